// Fastify 5 with its own plugins: @fastify/compress (gzip at zlib's default level from 1 KB, br at
// quality 4, zstd where Node has it), @fastify/cors (one origin, credentials), @fastify/helmet (its
// defaults), @fastify/rate-limit (never reached, its in-memory store, its default X-RateLimit-*
// headers) and Fastify's own request id (genReqId: a UUID, sent back by an onRequest hook).
import { randomUUID } from 'node:crypto';
import fastifyCompress from '@fastify/compress';
import fastifyCors from '@fastify/cors';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import Fastify from 'fastify';
import { serve } from '../../lib/server-kit.mjs';
import { list, ORIGIN, RATE_LIMIT, stackScenarios, THRESHOLD, user, WINDOW_MS } from './common.mjs';

await serve({
  create: async () => {
    const app = Fastify({ logger: false, genReqId: () => randomUUID() });
    await app.register(fastifyCompress, { threshold: THRESHOLD });
    // The origin as a list: with a string, @fastify/cors sends that origin to every request
    // (whatever its Origin) and no Vary: Origin; with a list it checks the request's Origin, as
    // the other stacks do, and adds Vary: Origin.
    await app.register(fastifyCors, { origin: [ORIGIN], credentials: true });
    await app.register(fastifyHelmet);
    await app.register(fastifyRateLimit, { max: RATE_LIMIT, timeWindow: WINDOW_MS });
    app.addHook('onRequest', (req, reply, done) => {
      reply.header('x-request-id', req.id);
      done();
    });
    return app;
  },
  scenarios: stackScenarios((app) => {
    app.get('/api/users/:id', async (req) => user(req.params.id));
    app.get('/api/list', async () => list());
  }),
  listen: async (app, port) => {
    await app.listen({ port, host: '127.0.0.1' });
    return app.server.address().port;
  },
});
