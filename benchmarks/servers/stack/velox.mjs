// Velox with its own four packages: @velox/cors (one origin, credentials), @velox/security-headers
// (helmet 8's default set), @velox/rate-limit (never reached, MemoryStore, its default headers:
// X-RateLimit-*), a request id (Velox sends none unless request logging is on: a one-line
// middleware) and @velox/compress (gzip at zlib's default level from 1 KB; br at quality 4, zstd
// at level 3). `--conditions=built` (the suite's framework entry) loads the built packages.
import { randomUUID } from 'node:crypto';
import { compress } from '@velox/compress';
import { Server } from '@velox/core';
import { cors } from '@velox/cors';
import { rateLimit } from '@velox/rate-limit';
import { securityHeaders } from '@velox/security-headers';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ORIGIN, RATE_LIMIT, stackScenarios, THRESHOLD, WINDOW_MS } from './common.mjs';
import { veloxListen, veloxRoutes } from './velox-routes.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => {
    const app = new Server({ logger: false });
    app.use(cors({ origin: ORIGIN, credentials: true }));
    app.use(securityHeaders());
    app.use(rateLimit({ limit: RATE_LIMIT, windowMs: WINDOW_MS }));
    app.use((_req, res, next) => { res.set('x-request-id', randomUUID()); next(); });
    app.use(compress({ threshold: THRESHOLD }));
    return app;
  },
  scenarios: stackScenarios(veloxRoutes),
  listen: veloxListen,
});
