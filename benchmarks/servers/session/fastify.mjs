// Fastify 5 + @fastify/cookie + @fastify/session on its default store (an in-memory Map), as its
// docs show. Secure is off: the benchmark speaks plain HTTP, and @fastify/session sends no
// cookie for a secure one over it.
import fastifyCookie from '@fastify/cookie';
import fastifySession from '@fastify/session';
import Fastify from 'fastify';
import { serve } from '../../lib/server-kit.mjs';
import { SESSION_SECRET } from './common.mjs';

await serve({
  create: async () => {
    const app = Fastify({ logger: false });
    await app.register(fastifyCookie);
    await app.register(fastifySession, {
      secret: SESSION_SECRET,
      cookieName: 'sid',
      cookie: { secure: false, httpOnly: true, sameSite: 'lax', maxAge: 30 * 60_000 },
    });
    return app;
  },
  scenarios: {
    session(app) {
      app.get('/visits', async (req) => {
        const visits = (req.session.get('visits') ?? 0) + 1;
        req.session.set('visits', visits);
        return { visits };
      });
    },
  },
  listen: async (app, port) => {
    await app.listen({ port, host: '127.0.0.1' });
    return app.server.address().port;
  },
});
