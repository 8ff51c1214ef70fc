// The Hono app on Bun.serve (Bun, not Node: the suite's framework entry has runtime 'bun', so
// the runner starts this file with the Bun binary of the pinned @oven/bun-linux-x64 package).
import { serve } from '../../lib/server-kit.mjs';
import { honoScenarios } from './app.mjs';

await serve({
  check: () => {
    if (typeof globalThis.Bun?.serve !== 'function') {
      process.stderr.write('servers/fetch/hono-bun.mjs runs on Bun only (the fetch suite starts it with the Bun binary)\n');
      process.exit(3);
    }
  },
  create: () => ({ app: null }),
  scenarios: honoScenarios(),
  listen: async (holder, port) => Bun.serve({ hostname: '127.0.0.1', port, development: false, fetch: holder.app.fetch }).port,
});
