// Velox + @velox/session on RedisStore (REDIS_URL, default redis://127.0.0.1:6379): the same
// route as servers/session/velox.mjs. Two Redis round trips per request by design (HGETALL on
// start(), one EVALSHA for the changed key); the `session-redis-round-trips` probe counts them.
import { randomBytes } from 'node:crypto';
import { Server } from '@velox/core';
import { RedisStore, session } from '@velox/session';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { SESSION_SECRET } from './common.mjs';

function visits(app) {
  app.get('/visits', async (req, res) => {
    await req.session.start();
    const visits = (req.session.get('visits') ?? 0) + 1;
    req.session.set('visits', visits);
    res.json({ visits });
  });
}

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: async () => {
    const app = new Server({ logger: false });
    // A prefix of its own per start: runs never see each other's sessions.
    const prefix = `velox-bench:sess:${randomBytes(4).toString('hex')}:`;
    const store = new RedisStore({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix });
    await app.register(session, { secret: SESSION_SECRET, store, idleTimeout: 10 * 60_000 });
    return app;
  },
  scenarios: {
    session: visits,
    // The probe's name: the same server and route, started by the probe on a Redis of its own.
    'session-redis-round-trips': visits,
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
