import { Server } from '@velox/core';
import { RedisConnection } from '@velox/redis';
import { later, listen, ownRedis, REDIS_URL } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { RateLimitErrorCodes, RedisStore, rateLimit } from '../src/index.ts';
import { hit, hits, redisStore, server, storePrefix } from './helpers.ts';

/** A connection to the shared Redis for looking at keys, closed after the test. */
async function inspector(url = REDIS_URL): Promise<RedisConnection> {
  const redis = new RedisConnection({ url, logger: false });
  await redis.connect();
  later(() => redis.close());
  return redis;
}

describe('RedisStore', () => {
  it('keeps each key under <prefix><identifier>:, expiring within two windows', async () => {
    const prefix = storePrefix();
    const store = redisStore({ prefix });
    const app = server();
    app.get('/', rateLimit({ limit: 5, windowMs: 3000, identifier: 'api', store }), (req, res) => res.send('ok'));
    const url = await listen(app);
    await hits(`${url}/`, 2);
    const redis = await inspector();
    const [, keys] = await redis.command<[string, string[]]>('SCAN', '0', 'MATCH', `${prefix}*`, 'COUNT', 1000);
    expect(keys).toEqual([`${prefix}api:127.0.0.1`]);
    expect(store.keyPrefix).toBe(`${prefix}api:`);
    const pttl = await redis.command<number>('PTTL', keys[0]!);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(6000);
    expect(await redis.command('HGET', keys[0]!, 'c')).toBe('2');
  });

  it('shares one count between servers (processes) on one prefix and identifier', async () => {
    const prefix = storePrefix();
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const app = server();
      app.get('/', rateLimit({ limit: 3, windowMs: 60_000, store: redisStore({ prefix }) }), (req, res) => res.send('ok'));
      urls.push(await listen(app));
    }
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await hit(`${urls[i % 2]}/`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('keeps two limiters on one prefix apart by their identifiers', async () => {
    const prefix = storePrefix();
    const app = server();
    app.use(rateLimit({ limit: 3, windowMs: 60_000, identifier: 'global', store: redisStore({ prefix }) }));
    app.post('/msg', rateLimit({ limit: 1, windowMs: 60_000, identifier: 'messages', store: redisStore({ prefix }) }), (req, res) => res.send('ok'));
    app.get('/', (req, res) => res.send('ok'));
    const url = await listen(app);
    expect((await hit(`${url}/msg`, { method: 'POST' })).status).toBe(200);
    expect((await hit(`${url}/msg`, { method: 'POST' })).status).toBe(429);
    // The global limiter counted 2; the route's refusal did not take from it.
    const r = await hit(`${url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('makes one round trip per request (one EVALSHA of its script), nothing else', async () => {
    const own = await ownRedis();
    const store = new RedisStore({ url: own.url, logger: false });
    const app = server();
    app.get('/', rateLimit({ limit: 100, windowMs: 60_000, store }), (req, res) => res.send('ok'));
    const url = await listen(app);
    await hit(`${url}/`); // connects, and loads the script (EVALSHA, then EVAL once)
    const redis = await inspector(own.url);
    await redis.command('CONFIG', 'RESETSTAT');
    await hits(`${url}/`, 10);
    const stats = await redis.command<string>('INFO', 'commandstats');
    const calls = Object.fromEntries([...stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map((m) => [m[1], Number(m[2])]));
    delete calls.info;
    delete calls.config;
    // Redis counts the commands a script runs too: those of our script, once per request each.
    expect(calls).toEqual({ evalsha: 10, time: 10, hmget: 10, hset: 10, pexpire: 10 });
  });

  it('connects at its first request and closes when the server closes', async () => {
    const store = redisStore();
    const app = new Server({ logger: false });
    app.get('/', rateLimit({ store }), (req, res) => res.send('ok'));
    const url = await listen(app);
    expect(store.connection.ready).toBe(false);
    expect((await hit(`${url}/`)).status).toBe(200);
    expect(store.connection.ready).toBe(true);
    await app.close();
    expect(store.connection.ready).toBe(false);
  });

  it('leaves a shared connection open for its other users when the server closes', async () => {
    const shared = await inspector();
    const app = new Server({ logger: false });
    app.get('/', rateLimit({ store: new RedisStore({ connection: shared, prefix: storePrefix() }) }), (req, res) => res.send('ok'));
    const url = await listen(app);
    expect((await hit(`${url}/`)).status).toBe(200);
    await app.close();
    expect(shared.ready).toBe(true);
    expect(await shared.command('PING')).toBe('PONG');
  });

  it('refuses a prefix that is not a string, and Redis options @velox/redis refuses', () => {
    expect(() => new RedisStore({ prefix: 5 as never })).toThrow(expect.objectContaining({ code: RateLimitErrorCodes.INVALID_OPTION }));
    expect(() => new RedisStore({ url: 'http://127.0.0.1:6379' })).toThrow(expect.objectContaining({ code: 'VELOX_ERR_REDIS_INVALID_OPTION' }));
  });
});
