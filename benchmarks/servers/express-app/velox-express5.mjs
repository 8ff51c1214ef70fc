// The same app on Velox's Express 5 entry: `import express from '@velox/express/5'` (Express 5's
// router, body-parser 2 and serve-static 2, on a Velox server), to set beside express@5.
// `--conditions=built` (frameworks) makes @velox/core and @velox/express their built JavaScript.
import express from '@velox/express/5';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { expressAppScenarios, listenNodeStyle } from './app.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => express(),
  scenarios: expressAppScenarios(express),
  listen: listenNodeStyle,
});
