import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { memoryStoreWork } from '../src/memory-store.ts';
import { MemoryStore, RateLimitErrorCodes, rateLimit } from '../src/index.ts';
import { hit, pipelined, server } from './helpers.ts';

describe('MemoryStore at its cap', () => {
  it('stays bounded under a flood of 50,000 distinct keys over a real socket, looking at two entries per eviction, and a new key still answers', async () => {
    const store = new MemoryStore({ maxKeys: 1000 });
    const app = server();
    let largest = 0;
    app.get('/k/:n', rateLimit({ limit: 3, windowMs: 60_000, keyGenerator: (req) => req.path, store }), (req, res) => {
      if (store.size > largest) largest = store.size;
      res.send('');
    });
    const url = await listen(app);
    const port = Number(new URL(url).port);
    const before = { ...memoryStoreWork };
    const paths = Array.from({ length: 50_000 }, (_, i) => `/k/${i}`);
    const statuses = await pipelined(port, paths);
    expect(statuses).toHaveLength(50_000);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(largest).toBe(1000);
    expect(store.size).toBe(1000);
    const evicted = memoryStoreWork.evicted - before.evicted;
    expect(evicted).toBe(49_000);
    // No sweep: each eviction looked at two entries at most, whatever the size.
    expect(memoryStoreWork.examined - before.examined).toBeLessThanOrEqual(2 * evicted);
    // A new key after the flood is counted from 1, and the most recent keys are still there.
    const fresh = await hit(`${url}/k/new`);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(store.get('/k/49999')).toMatchObject({ count: 1 });
    expect(store.get('/k/0')).toBeUndefined();
  }, 30_000);

  it('evicts an expired window before a live one, even a live one seen less recently', () => {
    const store = new MemoryStore({ maxKeys: 2 });
    store.increment('old', 1000, 0); // window [0, 1000): nothing it holds counts from 2000 on
    store.increment('live', 1000, 500); // window [500, 1500): counts until 2500
    store.increment('old', 1000, 900); // 'live' is now the least recently seen
    store.increment('new', 1000, 2100);
    expect(store.get('old')).toBeUndefined();
    expect(store.get('live')).toMatchObject({ count: 1 });
    expect(store.get('new')).toMatchObject({ count: 1 });
  });

  it('evicts every key idle for two windows before any key hit since', () => {
    const store = new MemoryStore({ maxKeys: 4 });
    store.increment('idle-1', 1000, 0);
    store.increment('idle-2', 1000, 100);
    store.increment('busy', 1000, 50);
    store.increment('busy', 1000, 1200); // renewed: window [1000, 2000)
    store.increment('busy', 1000, 2300); // renewed: window [2000, 3000)
    store.increment('recent', 1000, 2400);
    store.increment('n1', 1000, 2500);
    store.increment('n2', 1000, 2600);
    expect(store.get('idle-1')).toBeUndefined();
    expect(store.get('idle-2')).toBeUndefined();
    expect(store.get('busy')).toMatchObject({ count: 1, previous: 1 });
    expect(store.get('recent')).toMatchObject({ count: 1 });
  });

  it('evicts the least recently seen key when none has expired', () => {
    const store = new MemoryStore({ maxKeys: 3 });
    store.increment('a', 60_000, 0);
    store.increment('b', 60_000, 1);
    store.increment('c', 60_000, 2);
    store.increment('a', 60_000, 3); // 'b' is now the least recently seen
    store.increment('d', 60_000, 4);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toMatchObject({ count: 2 });
    expect(store.get('c')).toMatchObject({ count: 1 });
    expect(store.get('d')).toMatchObject({ count: 1 });
    store.increment('e', 60_000, 5);
    expect(store.get('c')).toBeUndefined();
  });

  it('answers synchronously with its own object (no promise), and get() copies', () => {
    const store = new MemoryStore();
    const counts = store.increment('a', 1000, 0);
    expect(counts).not.toBeInstanceOf(Promise);
    expect(counts).toMatchObject({ count: 1, previous: 0, resetAt: 1000 });
    expect(store.increment('a', 1000, 10)).toBe(counts);
    expect(store.get('a')).not.toBe(counts);
    store.close();
    expect(store.size).toBe(0);
  });

  it('refuses a maxKeys that is not a whole number ≥ 1, and options it does not have', () => {
    for (const maxKeys of [0, -1, 1.5, Number.NaN, '100' as never]) {
      expect(() => new MemoryStore({ maxKeys })).toThrow(expect.objectContaining({ code: RateLimitErrorCodes.INVALID_OPTION }));
    }
    expect(() => new MemoryStore({ max: 10 } as never)).toThrow(/its only option is maxKeys/);
  });
});
