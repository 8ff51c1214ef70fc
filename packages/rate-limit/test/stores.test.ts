import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type RateLimitStore, type WindowCounts, rateLimit } from '../src/index.ts';
import { hit, hits, server, storeKinds, waitUntil } from './helpers.ts';

/** The store, connected when it has to be (the limiter does this at its first request). */
async function opened(store: RateLimitStore): Promise<RateLimitStore> {
  await (store as { open?(): unknown }).open?.();
  return store;
}

/** What increment() returned, copied (a MemoryStore hands out its own object). */
async function increment(store: RateLimitStore, key: string, windowMs: number): Promise<WindowCounts & { now: number }> {
  const now = Date.now();
  const { count, previous, resetAt } = await store.increment(key, windowMs, now);
  return { count, previous, resetAt, now };
}

describe.each(storeKinds)('$kind', ({ make }) => {
  it('counts hits in a window that ends windowMs after the first', async () => {
    const store = await opened(make());
    store.init?.({ identifier: 'default', windowMs: 1000, limit: 5, algorithm: 'fixed-window' });
    const first = await increment(store, 'a', 60_000);
    expect(first.count).toBe(1);
    expect(first.previous).toBe(0);
    expect(first.resetAt).toBeGreaterThan(first.now + 59_000);
    expect(first.resetAt).toBeLessThanOrEqual(first.now + 60_000);
    const second = await increment(store, 'a', 60_000);
    expect(second.count).toBe(2);
    // The same window (a RedisStore reads its own clock: allow for the round trips of a busy machine).
    expect(Math.abs(second.resetAt - first.resetAt)).toBeLessThan(1000);
    expect((await increment(store, 'b', 60_000)).count).toBe(1);
  });

  it('follows with the next window back to back, carrying the count over as previous', async () => {
    const store = await opened(make());
    store.init?.({ identifier: 'default', windowMs: 1000, limit: 5, algorithm: 'sliding-window' });
    await increment(store, 'a', 1000);
    await increment(store, 'a', 1000);
    const last = await increment(store, 'a', 1000);
    // Half-way into the next window: a window starting now would end 500 ms after the back-to-back one.
    await waitUntil(last.resetAt + 500);
    const next = await increment(store, 'a', 1000);
    expect(next.count).toBe(1);
    expect(next.previous).toBe(3);
    expect(Math.abs(next.resetAt - (last.resetAt + 1000))).toBeLessThan(250);
  });

  it('starts a new series after a whole window without hits (previous 0)', async () => {
    const store = await opened(make());
    store.init?.({ identifier: 'default', windowMs: 300, limit: 5, algorithm: 'sliding-window' });
    const last = await increment(store, 'a', 300);
    await waitUntil(last.resetAt + 300 + 30);
    const fresh = await increment(store, 'a', 300);
    expect(fresh).toMatchObject({ count: 1, previous: 0 });
    expect(fresh.resetAt).toBeGreaterThan(fresh.now + 200);
  });

  it('takes a hit back with decrement (never below 0), and forgets a key with reset', async () => {
    const store = await opened(make());
    store.init?.({ identifier: 'default', windowMs: 60_000, limit: 5, algorithm: 'fixed-window' });
    await increment(store, 'a', 60_000);
    await increment(store, 'a', 60_000);
    await store.decrement('a', 60_000, Date.now());
    expect((await increment(store, 'a', 60_000)).count).toBe(2);
    for (let i = 0; i < 4; i++) await store.decrement('a', 60_000, Date.now());
    await store.decrement('nobody', 60_000, Date.now());
    expect((await increment(store, 'a', 60_000)).count).toBe(1);
    await store.reset('a');
    await store.reset('nobody');
    expect((await increment(store, 'a', 60_000)).count).toBe(1);
  });

  it('does not take back a hit of a window that is over', async () => {
    const store = await opened(make());
    store.init?.({ identifier: 'default', windowMs: 1000, limit: 5, algorithm: 'fixed-window' });
    const first = await increment(store, 'a', 1000);
    await increment(store, 'a', 1000);
    await waitUntil(first.resetAt + 20);
    await store.decrement('a', 1000, Date.now());
    const next = await increment(store, 'a', 1000);
    expect(next).toMatchObject({ count: 1, previous: 2 });
  });

  it('limits requests over real sockets, each key on its own, with the limiter on top', async () => {
    const store = make();
    const app = server();
    app.get('/', rateLimit({ limit: 2, windowMs: 60_000, keyGenerator: (req) => req.get('x-user') ?? 'anon', store }), (req, res) => res.send('ok'));
    const url = await listen(app);
    const ana = await hits(`${url}/`, 3, { headers: { 'x-user': 'ana' } });
    expect(ana.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(ana.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0', '0']);
    expect((await hit(`${url}/`, { headers: { 'x-user': 'bo' } })).status).toBe(200);
  });

  it('limits a sliding window over real sockets', async () => {
    const store = make();
    const app = server();
    app.get('/', rateLimit({ limit: 2, windowMs: 60_000, algorithm: 'sliding-window', headers: 'draft-8', store }), (req, res) => res.send('ok'));
    const url = await listen(app);
    const answers = await hits(`${url}/`, 3);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    // A refusal at the start of the window with 3 hits: one more fits 100 s on (60 s, then two thirds of the next).
    const values = answers.map((a) => a.headers.get('ratelimit'));
    expect(values[0]).toMatch(/^"default";r=1;t=(59|60)$/);
    expect(values[1]).toMatch(/^"default";r=0;t=(59|60)$/);
    expect(values[2]).toMatch(/^"default";r=0;t=(99|100)$/);
  });

  it('serves one limiter only: a second rateLimit() with it throws at once', () => {
    const store = make();
    rateLimit({ store });
    expect(() => rateLimit({ store, identifier: 'other' })).toThrow(/already serves another rateLimit\(\); give limiter "other" its own/);
  });
});
