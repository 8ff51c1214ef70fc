// Velox + @velox/session on its default MemoryStore: GET /visits starts the session the cookie
// names, increments a counter in it and answers JSON; the write is acknowledged by the store
// before the answer leaves.
//
// Scenario `session-flood` adds GET /anon, the route of an anonymous visitor (a counter set in a
// session, so each cookie-less request stores a new one), and GET /stats (the store's size,
// maxEntries and evictions, for the scenario's checks).
import { Server } from '@velox/core';
import { MemoryStore, session } from '@velox/session';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { SESSION_SECRET } from './common.mjs';

/** MemoryStore's default, written out so that /stats can report it. */
const MAX_ENTRIES = 100_000;
let store;

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
    store = new MemoryStore({ maxEntries: MAX_ENTRIES });
    await app.register(session, { secret: SESSION_SECRET, store });
    return app;
  },
  scenarios: {
    session: visits,
    'session-flood'(app) {
      visits(app);
      app.get('/anon', async (req, res) => {
        await req.session.start();
        req.session.set('visits', (req.session.get('visits') ?? 0) + 1);
        res.send('ok');
      });
      app.get('/stats', (_req, res) => {
        res.json({ store: { size: store.size, maxEntries: MAX_ENTRIES, evictions: store.evictions } });
      });
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
