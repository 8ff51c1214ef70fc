// Hono on Bun.serve with Hono's own middlewares: hono/compress (gzip from 1 KB; Hono compresses
// with CompressionStream, gzip and deflate only: no br, no zstd), hono/cors (one origin,
// credentials), hono/secure-headers, hono-rate-limiter (never reached, its MemoryStore, its default
// draft-6 RateLimit-* headers, keyed by the client address) and hono/request-id (a UUID per
// request, in X-Request-Id). Run by the Bun binary of @oven/bun-linux-x64 (the fetch suite's
// `hono-bun` framework entry, runtime 'bun').
//
// hono/compress applies its threshold only to answers that carry a Content-Length, and c.json()
// sets none: with c.json() it gzips the 72-byte answer of small too. The routes therefore send
// their JSON with its length (jsonWithLength below), so that the threshold works as in the other
// stacks.
//
// secureHeaders() sends no Content-Security-Policy unless given one; it gets helmet 8's default
// policy here, so that every server sends the same header set (its other defaults are helmet's,
// but for a Strict-Transport-Security max-age of 180 days instead of 365).
import { Hono } from 'hono';
import { getConnInfo } from 'hono/bun';
import { compress } from 'hono/compress';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { rateLimiter } from 'hono-rate-limiter';
import { serve } from '../../lib/server-kit.mjs';
import { list, ORIGIN, RATE_LIMIT, stackScenarios, THRESHOLD, user, WINDOW_MS } from './common.mjs';

const HELMET_CSP = {
  defaultSrc: ["'self'"],
  baseUri: ["'self'"],
  fontSrc: ["'self'", 'https:', 'data:'],
  formAction: ["'self'"],
  frameAncestors: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  objectSrc: ["'none'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'", 'https:', "'unsafe-inline'"],
  upgradeInsecureRequests: [],
};

/** c.json(value), with the Content-Length hono/compress needs to see the threshold. */
function jsonWithLength(c, value) {
  const body = JSON.stringify(value);
  return c.body(body, 200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
}

await serve({
  check: () => {
    if (typeof globalThis.Bun?.serve !== 'function') {
      process.stderr.write('servers/stack/hono-bun.mjs runs on Bun only (the runner starts it with the Bun binary)\n');
      process.exit(3);
    }
  },
  create: () => {
    const app = new Hono();
    app.use(compress({ threshold: THRESHOLD }));
    app.use(cors({ origin: ORIGIN, credentials: true }));
    app.use(secureHeaders({ contentSecurityPolicy: HELMET_CSP }));
    app.use(rateLimiter({ windowMs: WINDOW_MS, limit: RATE_LIMIT, keyGenerator: (c) => getConnInfo(c).remote.address ?? '' }));
    app.use(requestId());
    return app;
  },
  scenarios: stackScenarios((app) => {
    app.get('/api/users/:id', (c) => jsonWithLength(c, user(c.req.param('id'))));
    app.get('/api/list', (c) => jsonWithLength(c, list()));
  }),
  // Bun calls fetch(request, server): Hono gets the server as its env (getConnInfo reads it).
  listen: async (app, port) => Bun.serve({ hostname: '127.0.0.1', port, development: false, fetch: app.fetch }).port,
});
