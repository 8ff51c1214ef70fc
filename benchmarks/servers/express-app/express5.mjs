// Express 5 on node:http, for reference (its router differs from Express 4's).
import express from 'express';
import { serve } from '../../lib/server-kit.mjs';
import { expressAppScenarios, listenNodeStyle } from './app.mjs';

await serve({
  create: () => express(),
  scenarios: expressAppScenarios(express),
  listen: listenNodeStyle,
});
