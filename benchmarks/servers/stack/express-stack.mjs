// The Express middlewares of the stack, as an Express user adds them: compression (gzip at zlib's
// default level from 1 KB, br at quality 4; no zstd in compression 1.8), cors (one origin,
// credentials), helmet (its defaults), express-rate-limit (never reached, its MemoryStore, its
// default headers: X-RateLimit-*) and a request id (Express has none: a one-line middleware).
// Shared by Express, ultimate-express and Velox through nodeCompat.
import { randomUUID } from 'node:crypto';
import compression from 'compression';
import cors from 'cors';
import { rateLimit } from 'express-rate-limit';
import helmet from 'helmet';
import { list, ORIGIN, RATE_LIMIT, THRESHOLD, user, WINDOW_MS } from './common.mjs';

/** Adds the stack to an Express-shaped app (app.use(fn) with (req, res, next) middlewares). */
export function useExpressStack(app) {
  app.use(compression({ threshold: THRESHOLD }));
  app.use(cors({ origin: ORIGIN, credentials: true }));
  app.use(helmet());
  app.use(rateLimit({ limit: RATE_LIMIT, windowMs: WINDOW_MS }));
  app.use((_req, res, next) => { res.setHeader('x-request-id', randomUUID()); next(); });
}

/** The two routes, with res.json. */
export function expressRoutes(app) {
  app.get('/api/users/:id', (req, res) => { res.json(user(req.params.id)); });
  app.get('/api/list', (_req, res) => { res.json(list()); });
}
