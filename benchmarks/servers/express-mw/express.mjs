// Express 5 on node:http with express.json() and the compression middleware.
import compression from 'compression';
import express from 'express';
import { serve } from '../../lib/server-kit.mjs';

await serve({
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
      const server = app.listen(port, '127.0.0.1', (err) => {
        if (err) reject(err);
        else resolve(server.address().port);
      });
    }),
});
