// Fastify with @fastify/static, default options.
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { serve } from '../../lib/server-kit.mjs';
import { ensureFixture } from './fixture.mjs';

const { site, many } = ensureFixture();

await serve({
  create: () => Fastify({ logger: false }),
  scenarios: {
    static: (app) => app.register(fastifyStatic, { root: site, prefix: '/static/' }),
    'static-large': (app) => app.register(fastifyStatic, { root: site, prefix: '/static/' }),
    'static-304': (app) => app.register(fastifyStatic, { root: site, prefix: '/static/' }),
    'static-rss': (app) => app.register(fastifyStatic, { root: many, prefix: '/many/' }),
  },
  listen: async (app, port) => {
    await app.listen({ port, host: '127.0.0.1' });
    return app.server.address().port;
  },
});
