// The stack's headers written by hand in ONE Velox middleware: the lower bound the packages should
// approach. The header blocks are prepared once (core's PreparedHeader): CORS for the one origin
// with credentials (only when the request's Origin is that one), helmet 8's default set, Vary and
// the rate limit's fixed header; per request it counts the client address in a fixed window (a
// Map, never reached), writes the two counts and a UUID request id, and installs a body transform
// that compresses bodies of 1 KB or more with the synchronous zlib call of the first coding that
// Accept-Encoding names among br (quality 4), zstd (level 3, where Node has it) and gzip (zlib's
// default level). No q-value parsing, no type filter: the least work that sends the same answer.
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import { PreparedHeader, Server } from '@velox/core';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ORIGIN, RATE_LIMIT, stackScenarios, THRESHOLD, WINDOW_MS } from './common.mjs';
import { veloxListen, veloxRoutes } from './velox-routes.mjs';

const SECURITY = Object.entries({
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
  vary: 'Origin, Accept-Encoding',
  'x-ratelimit-limit': String(RATE_LIMIT),
}).map(([name, value]) => new PreparedHeader(name, value));

const WITH_CORS = [
  new PreparedHeader('access-control-allow-origin', ORIGIN),
  new PreparedHeader('access-control-allow-credentials', 'true'),
  ...SECURITY,
];

const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };
const zstd = typeof zlib.zstdCompressSync === 'function' ? zlib.zstdCompressSync : undefined;

/** @type {import('@velox/core').BodyTransform} */
function encode(res, body) {
  if (body === null || body.length < THRESHOLD) return undefined;
  const accepted = res.req.firstHeader('accept-encoding');
  if (accepted.includes('br')) {
    res.set('content-encoding', 'br');
    return zlib.brotliCompressSync(body, BROTLI);
  }
  if (zstd !== undefined && accepted.includes('zstd')) {
    res.set('content-encoding', 'zstd');
    return zstd(body);
  }
  if (accepted.includes('gzip')) {
    res.set('content-encoding', 'gzip');
    return zlib.gzipSync(body);
  }
  return undefined;
}

/** Fixed windows per client address: { count, reset (ms since the epoch) }. */
const windows = new Map();

function stack(req, res, next) {
  res.setPrepared(req.firstHeader('origin') === ORIGIN ? WITH_CORS : SECURITY);
  const now = Date.now();
  let window = windows.get(req.ip);
  if (window === undefined || window.reset <= now) {
    window = { count: 0, reset: now + WINDOW_MS };
    windows.set(req.ip, window);
  }
  window.count += 1;
  if (window.count > RATE_LIMIT) {
    res.status(429).set('retry-after', Math.ceil((window.reset - now) / 1000)).json({ error: 'Too many requests' });
    return;
  }
  res.set('x-ratelimit-remaining', RATE_LIMIT - window.count);
  res.set('x-ratelimit-reset', Math.ceil(window.reset / 1000));
  res.set('x-request-id', randomUUID());
  res.transformBody(encode);
  next();
}

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => {
    const app = new Server({ logger: false });
    app.use(stack);
    return app;
  },
  scenarios: stackScenarios(veloxRoutes),
  listen: veloxListen,
});
