// Express 5 on node:http with the Express middlewares of the stack (servers/stack/express-stack.mjs).
import express from 'express';
import { serve } from '../../lib/server-kit.mjs';
import { stackScenarios } from './common.mjs';
import { expressRoutes, useExpressStack } from './express-stack.mjs';

await serve({
  create: () => {
    const app = express();
    useExpressStack(app);
    return app;
  },
  scenarios: stackScenarios(expressRoutes),
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      const server = app.listen(port, '127.0.0.1', (err) => {
        if (err) reject(err);
        else resolve(server.address().port);
      });
    }),
});
