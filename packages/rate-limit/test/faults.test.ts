import { fileURLToPath } from 'node:url';
import { RedisConnection } from '@velox/redis';
import { exitCode, freePort, later, listen, ownRedis, REDIS_URL, run, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { RateLimitErrorCodes, type RateLimitStore, RedisStore, rateLimit } from '../src/index.ts';
import { hit, hits, memoryLogger, server, storePrefix } from './helpers.ts';

/** A server limiting / with `store`, logging into `logger.lines`; its base URL. */
async function limited(store: RateLimitStore, onStoreError: 'allow' | 'deny', more: Parameters<typeof rateLimit>[0] = {}) {
  const logger = memoryLogger();
  const app = server({ logger });
  app.get('/', rateLimit({ limit: 100, windowMs: 60_000, store, onStoreError, storeTimeout: 300, ...more }), (req, res) => res.send('ok'));
  const url = await listen(app);
  const ours = () => logger.lines.filter((l) => l.startsWith('[velox/rate-limit]'));
  return { url, logger, ours };
}

const counted = (a: { headers: Headers }) => a.headers.get('x-ratelimit-remaining') !== null;

describe('Redis down at start-up', () => {
  it("with onStoreError: 'allow', lets requests through uncounted, logs once, and limits again when Redis comes up", async () => {
    const own = await ownRedis({ started: false });
    const { url, ours } = await limited(new RedisStore({ url: own.url, reconnectDelay: { min: 20, max: 200 } }), 'allow');
    const answers = await hits(`${url}/`, 3);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers.some(counted)).toBe(false);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]).toMatch(/^\[velox\/rate-limit\] default: the store failed \(Redis is unavailable .*\); requests pass without a limit until it answers again$/);
    await own.start();
    await until(async () => counted(await hit(`${url}/`)), 'requests counted again', 15_000);
    expect(ours()).toEqual([expect.stringContaining('the store failed'), '[velox/rate-limit] default: the store answers again']);
  });

  it("with onStoreError: 'deny', answers 503 VELOX_ERR_RATE_LIMIT_STORE, and serves again when Redis comes up", async () => {
    const own = await ownRedis({ started: false });
    const { url, ours } = await limited(new RedisStore({ url: own.url, reconnectDelay: { min: 20, max: 200 } }), 'deny');
    const answers = await hits(`${url}/`, 2);
    expect(answers.map((a) => a.status)).toEqual([503, 503]);
    expect(answers[0]!.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The rate limit cannot be checked right now; try again shortly',
      code: RateLimitErrorCodes.STORE,
    });
    expect(ours()).toEqual([expect.stringMatching(/the store failed .*; requests are refused with 503 until it answers again$/)]);
    await own.start();
    await until(async () => (await hit(`${url}/`)).status === 200, 'a 200', 15_000);
  });
});

describe('Redis down mid-run', () => {
  for (const onStoreError of ['allow', 'deny'] as const) {
    it(`with onStoreError: '${onStoreError}', ${onStoreError === 'allow' ? 'lets requests through' : 'answers 503'} while it is down, once logged, and limits again when it is back`, async () => {
      const own = await ownRedis();
      const { url, ours } = await limited(new RedisStore({ url: own.url, reconnectDelay: { min: 20, max: 200 } }), onStoreError);
      const up = await hit(`${url}/`);
      expect(up.status).toBe(200);
      expect(up.headers.get('x-ratelimit-remaining')).toBe('99');
      await own.stop();
      const down = await hits(`${url}/`, 3);
      expect(down.map((a) => a.status)).toEqual(onStoreError === 'allow' ? [200, 200, 200] : [503, 503, 503]);
      expect(down.some(counted)).toBe(false);
      expect(ours()).toHaveLength(1);
      await own.start();
      await until(async () => counted(await hit(`${url}/`)), 'requests counted again', 15_000);
      expect(ours()).toEqual([expect.stringContaining('the store failed'), '[velox/rate-limit] default: the store answers again']);
      // A second outage is logged again.
      await own.stop();
      await hit(`${url}/`);
      expect(ours().filter((l) => l.includes('the store failed'))).toHaveLength(2);
    });
  }
});

describe('never a hang', () => {
  /** A store whose every call stays pending forever. */
  const silent = (): RateLimitStore => ({ increment: () => new Promise(() => {}), decrement: () => new Promise(() => {}), reset: () => new Promise(() => {}) });

  it("answers after storeTimeout when the store never answers: 'allow' lets the request through, 'deny' answers 503", async () => {
    const allow = await limited(silent(), 'allow');
    const deny = await limited(silent(), 'deny');
    expect((await hits(`${allow.url}/`, 2)).map((a) => a.status)).toEqual([200, 200]);
    const refused = await hit(`${deny.url}/`);
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe(RateLimitErrorCodes.STORE);
    expect(allow.ours()).toEqual([expect.stringContaining('the store failed (no answer within 300 ms)')]);
  });

  it("answers when the store's open() never settles", async () => {
    const store: RateLimitStore = { increment: () => ({ count: 1, previous: 0, resetAt: Date.now() + 1000 }), decrement() {}, reset() {}, open: () => new Promise(() => {}) };
    const { url } = await limited(store, 'deny');
    expect((await hit(`${url}/`)).status).toBe(503);
  });

  it('answers while Redis is paused, before Redis itself answers', async () => {
    const own = await ownRedis();
    const prefix = storePrefix();
    const allow = await limited(new RedisStore({ url: own.url, prefix }), 'allow', { identifier: 'a' });
    const deny = await limited(new RedisStore({ url: own.url, prefix }), 'deny', { identifier: 'd' });
    // Connect both stores first.
    expect((await hit(`${allow.url}/`)).status).toBe(200);
    expect((await hit(`${deny.url}/`)).status).toBe(200);
    const admin = new RedisConnection({ url: own.url, logger: false });
    await admin.connect();
    later(() => admin.close());
    // WRITE pauses scripts (EVALSHA) but still answers reads, such as ours below.
    await admin.command('CLIENT', 'PAUSE', '10000', 'WRITE');
    later(() => admin.command('CLIENT', 'UNPAUSE').catch(() => {}));
    const passed = await hit(`${allow.url}/`);
    const refused = await hit(`${deny.url}/`);
    expect(passed.status).toBe(200);
    expect(counted(passed)).toBe(false);
    expect(refused.status).toBe(503);
    // Both answered while Redis still held the scripts: the counts have not moved.
    expect(await admin.command('HGET', `${prefix}a:127.0.0.1`, 'c')).toBe('1');
    expect(await admin.command('HGET', `${prefix}d:127.0.0.1`, 'c')).toBe('1');
    await admin.command('CLIENT', 'UNPAUSE');
  });

  it('treats a store that throws, or answers without counts, as a failing store', async () => {
    const throwing: RateLimitStore = {
      increment() {
        throw new Error('boom');
      },
      decrement() {},
      reset() {},
    };
    const nonsense: RateLimitStore = { increment: () => ({ nothing: true }) as never, decrement() {}, reset() {} };
    const a = await limited(throwing, 'deny');
    const b = await limited(nonsense, 'allow');
    expect((await hit(`${a.url}/`)).status).toBe(503);
    expect(a.ours()).toEqual([expect.stringContaining('the store failed (boom)')]);
    expect((await hit(`${b.url}/`)).status).toBe(200);
    expect(b.ours()).toEqual([expect.stringContaining('without a numeric count')]);
  });
});

describe('app.close()', () => {
  const entry = JSON.stringify(fileURLToPath(new URL('../src/index.ts', import.meta.url)));
  const core = JSON.stringify(fileURLToPath(new URL('../node_modules/@velox/core/src/index.ts', import.meta.url)));

  it('closes what the limiter opened: the process exits by itself (MemoryStore, RedisStore, and a Redis that never came up)', async () => {
    const port = await freePort();
    const script = `
      import { Server } from ${core};
      import { rateLimit, RedisStore } from ${entry};
      const stores = [
        [undefined, 200],
        [new RedisStore({ url: ${JSON.stringify(REDIS_URL)}, prefix: ${JSON.stringify(storePrefix())} }), 200],
        [new RedisStore({ url: 'redis://127.0.0.1:${port}' }), 503],
      ];
      for (const [store, status] of stores) {
        const app = new Server({ logger: false });
        app.use(rateLimit({ limit: 5, windowMs: 60000, store, onStoreError: 'deny' }));
        app.get('/', (req, res) => res.send('ok'));
        const { port: at } = await app.listen(0, '127.0.0.1');
        const r = await fetch('http://127.0.0.1:' + at + '/');
        if (r.status !== status) throw new Error('expected ' + status + ', got ' + r.status);
        if (status === 200 && r.headers.get('x-ratelimit-remaining') !== '4') throw new Error('not counted');
        await app.close();
      }
      console.log('CLOSED');
    `;
    const child = run({ script }, {}, { cwd: new URL('..', import.meta.url) });
    const code = await exitCode(child, 20_000);
    expect(child.output()).toContain('CLOSED');
    expect(code).toBe(0);
  }, 30_000);
});
