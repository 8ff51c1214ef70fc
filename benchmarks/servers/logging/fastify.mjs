// Fastify 5 with its built-in pino logging (the same pino 10 logger as servers/logging/velox.mjs,
// given as `loggerInstance`): by default Fastify writes two lines per request ("incoming request"
// and "request completed"), each with the request id. With BENCH_LOGGING=off (fastify-nolog.mjs), `logger: false`.
import Fastify from 'fastify';
import { serve } from '../../lib/server-kit.mjs';
import { benchLogger, user } from './common.mjs';

const logging = process.env.BENCH_LOGGING !== 'off';

await serve({
  create: () => (logging ? Fastify({ loggerInstance: benchLogger() }) : Fastify({ logger: false })),
  scenarios: {
    logging(app) {
      app.get('/users/:id', async (req) => user(req.params.id));
    },
  },
  listen: async (app, port) => {
    await app.listen({ port, host: '127.0.0.1' });
    return app.server.address().port;
  },
});
