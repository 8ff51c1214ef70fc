// Velox with request logging: `new Server({ logger })` with a pino logger, one line per finished
// request (method, url, route, status, bytes, duration, request id, headers with authorization and
// cookie redacted).
// With BENCH_LOGGING=off (velox-nolog.mjs) the same route without a logger: the suite's baseline.
import { Server } from '@velox/core';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { benchLogger, user } from './common.mjs';

const logging = process.env.BENCH_LOGGING !== 'off';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server(logging ? { logger: benchLogger() } : { logger: false }),
  scenarios: {
    logging(app) {
      app.get('/users/:id', (req, res) => res.json(user(req.params.id)));
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
