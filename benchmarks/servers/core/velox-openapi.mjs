// Velox with @velox/openapi registered: the ping, query and body routes of servers/core/velox.mjs,
// each with a describeRoute() marker and response schemas (validate({ response })), the document
// at /openapi.json and the docs page at /docs. What it measures is what issue 42 promised: the
// plugin and the markers cost nothing per request (instruction counts within 2 % of `velox`),
// because the markers and a response-only validate() are left out of the route's chain and the
// plugin adds no per-request hook. The document is built at listen(), as in an app.
import { Server } from '@velox/core';
import { describeRoute, openapi } from '@velox/openapi';
import { validate } from '@velox/validate';
import { z } from 'zod';
import { payloadSchema } from '../../lib/schema.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

const text = (description) => ({ 200: { description, schema: z.string(), contentType: 'text/plain' } });

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: async () => {
    const app = new Server({ logger: false });
    await app.register(openapi, { info: { title: 'Velox benchmark', version: '1.0.0' }, path: '/openapi.json', ui: '/docs' });
    return app;
  },
  scenarios: {
    ping(app) {
      app.get('/', describeRoute({ summary: 'Ping', tags: ['bench'], responses: text('Hi') }), (_req, res) => res.send('Hi'));
    },

    query(app) {
      app.get(
        '/id/:id',
        describeRoute({ summary: 'A parameter and a query', tags: ['bench'], responses: text('The id and the name') }),
        (req, res) => {
          res.set('x-powered', 'velox-bench');
          res.send(`${req.params.id} ${req.query.name}`);
        },
      );
    },

    body(app) {
      app.post(
        '/json',
        describeRoute({ summary: 'Echo a JSON body', tags: ['bench'] }),
        validate({ response: { 200: payloadSchema } }),
        async (req, res) => res.json(await req.json()),
      );
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
