// Node's http with @opentelemetry/instrumentation-http, the way OpenTelemetry traces a plain Node
// server: the module is required after the instrumentation is registered, so that it is patched.
import { createRequire } from 'node:module';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { serve } from '../../lib/server-kit.mjs';
import { setupTracing, user } from './common.mjs';

setupTracing([new HttpInstrumentation()]);
const http = createRequire(import.meta.url)('node:http');

const ROUTE = /^\/users\/([^/?]+)/;

await serve({
  create: () =>
    http.createServer((req, res) => {
      const m = ROUTE.exec(req.url);
      if (req.method !== 'GET' || !m) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.stringify(user(decodeURIComponent(m[1])));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    }),
  scenarios: { tracing() {} },
  listen: (server, port) => new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server.address().port))),
});
