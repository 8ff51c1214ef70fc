// The vitest settings every package shares: tests in test/, type tests in *.test-d.ts, real
// sockets (so generous timeouts), one fork per file.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 15_000,
    hookTimeout: 15_000,
    pool: 'forks',
  },
});
