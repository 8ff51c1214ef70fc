// The shared settings, plus test files next to the examples they test (plugins/*.test.ts).
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

export default mergeConfig(shared, defineConfig({ test: { include: ['**/*.test.ts'], exclude: ['node_modules/**'], typecheck: { enabled: false } } }));
