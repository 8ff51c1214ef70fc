// Velox with @velox/otel: a SERVER span per request (HTTP semantic conventions, W3C trace context,
// active in the handler) and the request-duration and active-requests metrics.
import { Server } from '@velox/core';
import { VeloxInstrumentation } from '@velox/otel';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { setupTracing, user } from './common.mjs';

setupTracing([new VeloxInstrumentation()]);

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
