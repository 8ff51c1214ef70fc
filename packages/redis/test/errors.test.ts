import { readFileSync } from 'node:fs';
import { VeloxError } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { RedisConnection, RedisErrorCodes } from '../src/index.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('RedisErrorCodes', () => {
  it('documents every code in the README', () => {
    for (const code of Object.values(RedisErrorCodes)) expect(readme).toContain(`\`${code}\``);
  });

  it('prefixes every code with VELOX_ERR_REDIS_', () => {
    for (const code of Object.values(RedisErrorCodes)) expect(code).toMatch(/^VELOX_ERR_REDIS_[A-Z_]+$/);
  });

  it('throws VeloxErrors that carry the code and status', async () => {
    let thrown: unknown;
    try {
      new RedisConnection({ url: 'nope' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(RedisErrorCodes.INVALID_OPTION);
    const redis = new RedisConnection({ logger: false });
    const err = (await redis.command('PING').catch((e: unknown) => e)) as VeloxError;
    expect(err).toBeInstanceOf(VeloxError);
    expect(err.code).toBe(RedisErrorCodes.UNAVAILABLE);
    expect(err.status).toBe(503);
  });
});
