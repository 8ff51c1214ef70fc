// The same Velox route as servers/tracing/velox.mjs without @velox/otel: the suite's baseline.
import { Server } from '@velox/core';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { user } from './common.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: {
    tracing(app) {
      app.get('/users/:id', (req, res) => res.json(user(req.params.id)));
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
