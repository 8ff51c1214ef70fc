// Fastify 5 traced as its documentation says: @opentelemetry/instrumentation-http for the HTTP
// server span, and @fastify/otel (Fastify's OpenTelemetry plugin, registered on initialization)
// for the route, hooks and handler spans. `http` is patched before Fastify is imported.
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import FastifyOtelInstrumentation from '@fastify/otel';
import { serve } from '../../lib/server-kit.mjs';
import { setupTracing, user } from './common.mjs';

setupTracing([new HttpInstrumentation(), new FastifyOtelInstrumentation({ registerOnInitialization: true })]);
const { default: Fastify } = await import('fastify');

await serve({
  create: () => Fastify({ logger: false }),
  scenarios: {
    tracing(app) {
      app.get('/users/:id', async (req) => user(req.params.id));
    },
  },
  listen: async (app, port) => {
    await app.listen({ port, host: '127.0.0.1' });
    return app.server.address().port;
  },
});
