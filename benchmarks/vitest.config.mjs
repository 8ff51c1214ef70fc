// Only the charts' test runs here (`pnpm test` runs it on each Node pass); the benchmarks
// themselves are run by run.mjs, never by vitest. The Node version of the run is recorded for
// scripts/test-summary.mjs, as every package's is.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/charts.test.mjs'],
    pool: 'forks',
    testTimeout: 15_000,
    globalSetup: [fileURLToPath(new URL('../scripts/record-node.mjs', import.meta.url))],
  },
});
