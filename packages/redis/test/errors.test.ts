import { VeloxError } from '@velox/core';
import { describeErrorCodes, thrownBy } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { RedisConnection, RedisErrorCodes } from '../src/index.ts';

describeErrorCodes('RedisErrorCodes', RedisErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_REDIS_' }, () => {
  it('throws VeloxErrors that carry the code and status', async () => {
    const thrown = thrownBy(() => new RedisConnection({ url: 'nope' }));
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(RedisErrorCodes.INVALID_OPTION);
    const redis = new RedisConnection({ logger: false });
    const err = (await redis.command('PING').catch((e: unknown) => e)) as VeloxError;
    expect(err).toBeInstanceOf(VeloxError);
    expect(err.code).toBe(RedisErrorCodes.UNAVAILABLE);
    expect(err.status).toBe(503);
  });
});
