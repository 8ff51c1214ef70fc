// Velox with the Express middlewares, through the Node.js/Express surface of @velox/express
// (nodeCompat): compression, cors, helmet, express-rate-limit and a request id, exactly as on
// Express (servers/stack/express-stack.mjs). Today's way of giving a Velox API this stack.
import { Server } from '@velox/core';
import { nodeCompat } from '@velox/express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { stackScenarios } from './common.mjs';
import { useExpressStack } from './express-stack.mjs';
import { veloxListen, veloxRoutes } from './velox-routes.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: async () => {
    const app = new Server({ logger: false });
    await app.register(nodeCompat);
    useExpressStack(app);
    return app;
  },
  scenarios: stackScenarios(veloxRoutes),
  listen: veloxListen,
});
