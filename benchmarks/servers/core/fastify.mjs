// Fastify 5 on node:http, logger off.
import Fastify from 'fastify';
import { payloadJsonSchema } from '../../lib/schema.mjs';
import { serve } from '../../lib/server-kit.mjs';
import { MIDDLEWARE_COUNT, ROUTE_COUNT } from '../../scenarios.mjs';

await serve({
  create: () => Fastify({ logger: false }),
  scenarios: {
    ping(app) {
      app.get('/', async () => 'Hi');
    },

    query(app) {
      app.get('/id/:id', async (req, reply) => {
        reply.header('x-powered', 'velox-bench');
        return `${req.params.id} ${req.query.name}`;
      });
    },

    body(app) {
      // Fastify parses application/json itself; returning the object serializes it.
      app.post('/json', async (req) => req.body);
    },

    middleware(app) {
      // Fastify's equivalent of application-wide middleware is an onRequest hook.
      for (let i = 1; i <= MIDDLEWARE_COUNT; i++) {
        const name = `x-mw-${i}`;
        app.addHook('onRequest', (_req, reply, done) => {
          reply.header(name, '1');
          done();
        });
      }
      app.get('/', async () => 'Hi');
    },

    routes(app) {
      for (let i = 0; i < ROUTE_COUNT; i++) {
        app.get(`/route/${i}`, async () => 'Hi');
      }
    },

    flat(app) {
      app.get('/a/b/c/:id', async (req) => req.params.id);
    },

    nested(app) {
      // Fastify nests with encapsulated plugins and prefixes.
      app.register(
        async (a) => {
          a.register(
            async (b) => {
              b.register(
                async (c) => {
                  c.get('/:id', async (req) => req.params.id);
                },
                { prefix: '/c' },
              );
            },
            { prefix: '/b' },
          );
        },
        { prefix: '/a' },
      );
    },

    'router-middleware'(app) {
      app.register(
        async (router) => {
          for (let i = 1; i <= MIDDLEWARE_COUNT; i++) {
            const name = `x-mw-${i}`;
            router.addHook('onRequest', (_req, reply, done) => {
              reply.header(name, '1');
              done();
            });
          }
          router.get('/hi', async () => 'Hi');
        },
        { prefix: '/r' },
      );
    },

    validated(app) {
      // Fastify's own JSON Schema validation (compiled with Ajv).
      app.post('/json', { schema: { body: payloadJsonSchema } }, async (req) => req.body);
    },
  },
  listen: async (app, port) => {
    await app.listen({ port, host: '127.0.0.1' });
    return app.server.address().port;
  },
});
