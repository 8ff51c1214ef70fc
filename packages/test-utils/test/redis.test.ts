import { describe, expect, it } from 'vitest';
import { freePort, ownRedis, pings, REDIS_URL, redisPrefix } from '../src/index.ts';

describe('pings()', () => {
  it('is true for the shared Redis and false for a port nothing listens on', async () => {
    expect(await pings(Number(new URL(REDIS_URL).port))).toBe(true);
    expect(await pings(await freePort())).toBe(false);
  });
});

describe('redisPrefix()', () => {
  it('gives a new prefix each time, under the name', () => {
    const [a, b] = [redisPrefix('velox-test'), redisPrefix('velox-test')];
    expect(a).toMatch(/^velox-test:[0-9a-f]{12}:$/);
    expect(a).not.toBe(b);
  });
});

describe('ownRedis()', () => {
  let port = 0;

  it('starts a redis-server of its own, stops it by its PID and starts it again on the same port', async () => {
    const own = await ownRedis();
    port = own.port;
    expect(own.url).toBe(`redis://127.0.0.1:${own.port}`);
    expect(await pings(own.port)).toBe(true);
    await own.stop();
    expect(await pings(own.port)).toBe(false);
    await own.start();
    expect(await pings(own.port)).toBe(true);
    await own.stop('SIGTERM');
    expect(await pings(own.port)).toBe(false);
    await own.start();
  });

  it('takes a port, and leaves it empty until start() when not started', async () => {
    const given = await freePort();
    const own = await ownRedis({ port: given, started: false });
    expect(own.port).toBe(given);
    expect(own.url).toBe(`redis://127.0.0.1:${given}`);
    expect(await pings(given)).toBe(false);
    await own.start();
    expect(await pings(given)).toBe(true);
  });

  it('stopped it after that test', async () => {
    expect(port).toBeGreaterThan(0);
    expect(await pings(port)).toBe(false);
  });
});
