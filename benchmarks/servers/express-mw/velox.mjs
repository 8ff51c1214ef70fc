// Velox running Express middlewares unmodified, with the Node.js/Express surface of
// @velox/express (nodeCompat): express.json() (body-parser, from the express package) and
// compression, in front of a route that echoes req.body. `--conditions=built` (from
// frameworks.mjs) makes @velox/core and @velox/express their built JavaScript.
import { Server } from '@velox/core';
import { nodeCompat } from '@velox/express';
import compression from 'compression';
import express from 'express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  // The native scenario runs on a server without the Node.js/Express surface, as an app that
  // does not use Express middlewares would.
  create: async (scenario) => {
    const app = new Server({ logger: false });
    if (scenario === 'express-mw') await app.register(nodeCompat);
    return app;
  },
  scenarios: {
    'express-mw'(app) {
      app.use(express.json());
      app.use(compression());
      app.post('/json', (req, res) => res.json(req.body));
    },
    // The same answer with Velox's own body reader and no compression: what the Express
    // middlewares cost on Velox.
    'express-mw-native'(app) {
      app.post('/json', async (req, res) => res.json(await req.json()));
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
