import { REDIS_URL, sleep } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MemoryStore, RedisStore } from '../src/index.ts';
import { app, Browser, ForeverStore, runPrefix } from './helpers.ts';

const kinds = [
  { kind: 'MemoryStore', make: () => new MemoryStore() },
  { kind: 'RedisStore', make: () => new RedisStore({ url: REDIS_URL, prefix: `${runPrefix}timeouts:`, logger: false }) },
  { kind: 'a store that never expires anything', make: () => new ForeverStore() },
];

describe.each(kinds)('timeouts with $kind', ({ make }) => {
  it('ends a session idle for longer than idleTimeout, whatever the cookie says: the next start() has a new id', async () => {
    const { url } = await app(make(), { idleTimeout: 400 });
    const browser = new Browser(url);
    const first = await browser.get('/visits');
    const cookie = browser.cookie;
    expect((await browser.get('/visits')).body).toMatchObject({ id: first.body.id, visits: 2 });
    await sleep(900);
    // The client still sends the old cookie (a browser that ignores Max-Age, a replayed cookie).
    browser.cookie = cookie;
    const after = await browser.get('/visits');
    expect(after.body).toMatchObject({ visits: 1, isNew: true });
    expect(after.body.id).not.toBe(first.body.id);
  });

  it('ends a session at absoluteTimeout under constant activity, and the cookie expires with it', async () => {
    const { url } = await app(make(), { idleTimeout: 60_000, absoluteTimeout: 1200 });
    const browser = new Browser(url);
    const started = Date.now();
    const first = await browser.get('/visits');
    const cookie = browser.cookie;
    // The cookie goes out with the new session, then again whenever its expiry moves (at most
    // once per touchAfter, 6 s here): every one of them is capped by the absolute timeout.
    const maxAges: number[] = [];
    const firstMaxAge = first.cookies[0]?.match(/Max-Age=(\d+)/)?.[1];
    if (firstMaxAge) maxAges.push(Number(firstMaxAge));
    let last = first;
    let previousVisits = 1;
    // A request every 50 ms: never idle, yet the session must end after 1.2 s.
    while (Date.now() - started < 20_000) {
      await sleep(50);
      browser.cookie = cookie;
      last = await browser.get('/visits');
      if (last.body.id !== first.body.id) break;
      expect(last.body.visits).toBe(++previousVisits);
      const maxAge = last.cookies[0]?.match(/Max-Age=(\d+)/)?.[1];
      if (maxAge) maxAges.push(Number(maxAge));
    }
    expect(last.body.id).not.toBe(first.body.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    expect(last.body).toMatchObject({ visits: 1, isNew: true });
    // Not 60 s of idle time: the cookie lives no longer than the absolute timeout allows
    // (Max-Age is in whole seconds, rounded up).
    expect(maxAges.length).toBeGreaterThan(0);
    for (const maxAge of maxAges) expect(maxAge).toBeLessThanOrEqual(2);
  });
});
