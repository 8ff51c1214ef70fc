// The same Express 4 app on Velox: `import express from '@velox/express'` is the only change.
// `--conditions=built` (frameworks) makes @velox/core and @velox/express their built JavaScript.
import express from '@velox/express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { expressAppScenarios, listenNodeStyle } from './app.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => express(),
  scenarios: expressAppScenarios(express),
  listen: listenNodeStyle,
});
