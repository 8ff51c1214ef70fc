// Velox + @velox/session on its default MemoryStore: GET /visits starts the session the cookie
// names, increments a counter in it and answers JSON; the write is acknowledged by the store
// before the answer leaves.
import { Server } from '@velox/core';
import { MemoryStore, session } from '@velox/session';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { SESSION_SECRET } from './common.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: async () => {
    const app = new Server({ logger: false });
    await app.register(session, { secret: SESSION_SECRET, store: new MemoryStore() });
    return app;
  },
  scenarios: {
    session(app) {
      app.get('/visits', async (req, res) => {
        await req.session.start();
        const visits = (req.session.get('visits') ?? 0) + 1;
        req.session.set('visits', visits);
        res.json({ visits });
      });
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
