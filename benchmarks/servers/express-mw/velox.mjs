// Velox running Express middlewares unmodified: express.json() (body-parser, from the express
// package) and compression, in front of a route that echoes req.body. `--conditions=built` (from
// frameworks.mjs) makes @velox/core its built JavaScript.
import { Server } from '@velox/core';
import compression from 'compression';
import express from 'express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
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
