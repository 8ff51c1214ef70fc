// Velox without sessions: the session scenario's route with its counter in a module variable,
// the baseline of the session suite (what a session costs is the gap to it). Same handler shape
// (async, JSON answer) as servers/session/velox.mjs; for `session-flood`, the same GET /anon
// (its counter in a variable too) and a GET /stats that says there is no store.
import { Server } from '@velox/core';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

let visits = 0;
let anonymous = 0;

function visitsRoute(app) {
  app.get('/visits', async (_req, res) => {
    visits += 1;
    res.json({ visits });
  });
}

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: {
    session: visitsRoute,
    'session-flood'(app) {
      visitsRoute(app);
      app.get('/anon', async (_req, res) => {
        anonymous += 1;
        res.send('ok');
      });
      app.get('/stats', (_req, res) => res.json({ store: null, anonymous }));
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
