// Express 4 (express@4.22, the version @velox/express follows) on node:http.
import express from 'express4';
import { serve } from '../../lib/server-kit.mjs';
import { expressAppScenarios, listenNodeStyle } from './app.mjs';

await serve({
  create: () => express(),
  scenarios: expressAppScenarios(express),
  listen: listenNodeStyle,
});
