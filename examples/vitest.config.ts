// The examples' tests: the small examples run as processes (test/), and the chat in a real
// browser (see chat/README.md).
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../vitest.shared.ts';

export default mergeConfig(shared, defineConfig({ test: { include: ['test/**/*.test.ts', 'chat/test/**/*.test.ts'], typecheck: { enabled: false } } }));
