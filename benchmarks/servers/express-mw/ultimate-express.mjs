// ultimate-express with its own express.json() and the compression middleware, as an Express
// user would write it.
import compression from 'compression';
import express from 'ultimate-express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, 'ultimate-express'),
  create: () => express(),
  scenarios: {
    'express-mw'(app) {
      app.use(express.json());
      app.use(compression());
      app.post('/json', (req, res) => {
        res.json(req.body);
      });
    },
  },
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      app.listen(port, '127.0.0.1', (token) => {
        if (token === false) reject(new Error(`could not listen on 127.0.0.1:${port}`));
        else resolve(app.port);
      });
    }),
});
