// ultimate-express with the Express middlewares of the stack (servers/stack/express-stack.mjs).
import express from 'ultimate-express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { stackScenarios } from './common.mjs';
import { expressRoutes, useExpressStack } from './express-stack.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, 'ultimate-express'),
  create: () => {
    const app = express();
    useExpressStack(app);
    return app;
  },
  scenarios: stackScenarios(expressRoutes),
  listen: (app, port) =>
    new Promise((resolve, reject) => {
      app.listen(port, '127.0.0.1', (token) => {
        if (token === false) reject(new Error(`could not listen on 127.0.0.1:${port}`));
        else resolve(app.port);
      });
    }),
});
