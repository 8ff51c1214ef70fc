// Velox answering two router scenarios without what they measure: `nested` with the route
// declared flat on the server (GET /a/b/c/:id, as in `flat`), `validated` with the body echoed
// unchecked (the handler of the `body` scenario). It is the baseline of the router targets
// ("nested ≥ 0.95 × flat", "validated ≥ 0.85 × unvalidated"), measured in the same slices as
// Velox itself, so that a change in the machine's speed between two scenarios cannot move them.
import { Server } from '@velox/core';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: {
    nested(app) {
      app.get('/a/b/c/:id', (req, res) => res.send(req.params.id));
    },

    validated(app) {
      app.post('/json', async (req, res) => res.json(await req.json()));
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
