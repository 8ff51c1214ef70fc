// The shared settings, plus --expose-gc: a test checks that expired sessions are really freed.
import { mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

export default mergeConfig(shared, { test: { poolOptions: { forks: { execArgv: ['--expose-gc'] } } } });
