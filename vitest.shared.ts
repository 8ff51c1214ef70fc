// The vitest settings every package shares: tests in test/, type tests in *.test-d.ts, real
// sockets (so generous timeouts), one fork per file, two files at a time (most of a socket test is
// waiting: on the 2-core CI machine two forks ran core's suite in 97 s of wall time against 168 s
// of test time; VELOX_TEST_WORKERS=1 runs them one by one), and the shared Redis at 127.0.0.1:6379
// started when it is down (scripts/ensure-redis.mjs); the Node version each run used is recorded
// for the summary (scripts/record-node.mjs).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 15_000,
    hookTimeout: 15_000,
    pool: 'forks',
    maxWorkers: Number(process.env.VELOX_TEST_WORKERS) || 2,
    minWorkers: 1,
    globalSetup: [
      fileURLToPath(new URL('./scripts/ensure-redis.mjs', import.meta.url)),
      fileURLToPath(new URL('./scripts/record-node.mjs', import.meta.url)),
    ],
  },
});
