// Velox with the stack suite's two routes and no middleware at all: what the stack costs is
// measured against this (the 0.70 target on small).
import { Server } from '@velox/core';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { stackScenarios } from './common.mjs';
import { veloxListen, veloxRoutes } from './velox-routes.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: stackScenarios(veloxRoutes),
  listen: veloxListen,
});
