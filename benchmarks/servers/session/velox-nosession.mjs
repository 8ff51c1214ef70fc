// Velox without sessions: the session scenario's route with its counter in a module variable,
// the baseline of the session suite (what a session costs is the gap to it). Same handler shape
// (async, JSON answer) as servers/session/velox.mjs.
import { Server } from '@velox/core';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

let visits = 0;

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: {
    session(app) {
      app.get('/visits', async (_req, res) => {
        visits += 1;
        res.json({ visits });
      });
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
