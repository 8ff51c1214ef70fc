// One Velox process running the same app as each cluster worker: the baseline of the suite.
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import createApp, { SCENARIO_NAMES } from './app.mjs';

const scenarios = Object.fromEntries(SCENARIO_NAMES.map((name) => [name, () => {}]));

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: (name) => {
    process.env.BENCH_SCENARIO = name;
    return createApp();
  },
  scenarios,
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
