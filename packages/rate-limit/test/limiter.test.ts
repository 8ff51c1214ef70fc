import { createHook } from 'node:async_hooks';
import type { Request, Response } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { MemoryStore, RateLimitErrorCodes, type RateLimitStore, rateLimit, type WindowCounts } from '../src/index.ts';
import { hit, hits, memoryLogger, serve, waitUntil } from './helpers.ts';

const ok = (req: Request, res: Response) => res.json({ ok: true });
const remaining = (a: { headers: Headers }) => a.headers.get('x-ratelimit-remaining');

describe('fixed window', () => {
  it('allows limit requests per window, refuses the next, and starts over when the window ends', async () => {
    const store = new MemoryStore();
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 3, windowMs: 600, store }), ok));
    const first = await hits(`${url}/`, 4);
    expect(first.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(first.map(remaining)).toEqual(['2', '1', '0', '0']);
    await waitUntil(store.get('127.0.0.1')!.resetAt + 20);
    const again = await hits(`${url}/`, 2);
    expect(again.map((a) => a.status)).toEqual([200, 200]);
    expect(remaining(again[0]!)).toBe('2');
  });

  it('counts each key apart', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 1, windowMs: 60_000, keyGenerator: (req) => req.get('x-user') ?? 'anon' }), ok));
    expect((await hit(`${url}/`, { headers: { 'x-user': 'ana' } })).status).toBe(200);
    expect((await hit(`${url}/`, { headers: { 'x-user': 'ana' } })).status).toBe(429);
    expect((await hit(`${url}/`, { headers: { 'x-user': 'bo' } })).status).toBe(200);
  });

  it('goes on synchronously, without a promise, when the key and the store answer synchronously', async () => {
    const limiter = rateLimit({ limit: 5, windowMs: 60_000 });
    const { url } = await serve((app) =>
      app.get(
        '/',
        (req, res, next) => {
          let promises = 0;
          let nextCalled = false;
          const hook = createHook({
            init(id, type) {
              if (type === 'PROMISE') promises++;
            },
          }).enable();
          try {
            limiter(req, res, () => {
              nextCalled = true;
            });
          } finally {
            hook.disable();
          }
          res.locals.sync = { nextCalled, promises };
          next();
        },
        (req, res) => res.json(res.locals.sync),
      ),
    );
    const r = await hit(`${url}/`);
    expect(r.body).toEqual({ nextCalled: true, promises: 0 });
    expect(remaining(r)).toBe('4');
  });
});

describe('sliding window', () => {
  /** A store that answers what the test says, from the `now` the limiter passes it. */
  function scripted(answer: (now: number) => WindowCounts): RateLimitStore {
    return { increment: (key, windowMs, now) => answer(now), decrement() {}, reset() {} };
  }

  it("adds the previous window's count, weighted by how much of it the last windowMs still covers", async () => {
    let answer: (now: number) => WindowCounts = () => ({ count: 0, previous: 0, resetAt: 0 });
    const { url } = await serve((app) =>
      app.get('/', rateLimit({ limit: 4, windowMs: 10_000, algorithm: 'sliding-window', headers: 'draft-8', store: scripted((now) => answer(now)) }), ok),
    );
    // 1 s into the window: the previous 4 weigh 3.6; 1 + 3.6 > 4.
    answer = (now) => ({ count: 1, previous: 4, resetAt: now + 9000 });
    const early = await hit(`${url}/`);
    expect(early.status).toBe(429);
    // A fixed window would have let it through: the same counts without the previous window pass.
    answer = (now) => ({ count: 1, previous: 0, resetAt: now + 9000 });
    expect((await hit(`${url}/`)).headers.get('ratelimit')).toBe('"default";r=3;t=9');
    // 8 s in: the previous 4 weigh 0.8; 2 + 0.8 ≤ 4, 1 left (1.2 rounded down).
    answer = (now) => ({ count: 2, previous: 4, resetAt: now + 2000 });
    const later = await hit(`${url}/`);
    expect(later.status).toBe(200);
    expect(later.headers.get('ratelimit')).toBe('"default";r=1;t=2');
  });

  it('answers Retry-After with the wait until one more request fits, not the end of the window', async () => {
    let answer: (now: number) => WindowCounts = () => ({ count: 0, previous: 0, resetAt: 0 });
    const { url } = await serve((app) =>
      app.get('/', rateLimit({ limit: 4, windowMs: 8000, algorithm: 'sliding-window', headers: 'draft-8', store: scripted((now) => answer(now)) }), ok),
    );
    const retryAfter = async (counts: (now: number) => WindowCounts) => {
      answer = counts;
      const r = await hit(`${url}/`);
      expect(r.status).toBe(429);
      expect(r.headers.get('ratelimit')).toBe(`"default";r=0;t=${r.headers.get('retry-after')}`);
      return r.headers.get('retry-after');
    };
    // Half-way through a window with 1 hit, after 8: the previous 8 weigh 4. One more fits once
    // they weigh 2 (1 + 1 + 2 ≤ 4), three quarters in: 2 s from now.
    expect(await retryAfter((now) => ({ count: 1, previous: 8, resetAt: now + 4000 }))).toBe('2');
    // At the start of a window with 5 hits: not in this window; in the next one once these 5
    // weigh at most 3, two fifths into it: 8 s + 3.2 s.
    expect(await retryAfter((now) => ({ count: 5, previous: 0, resetAt: now + 8000 }))).toBe('12');
    // 3 hits now and 4 before, at the start: a 4th fits only when the previous 4 weigh nothing,
    // at the end of this window, where this window's 3 weigh 3 (1 + 3 ≤ 4): 8 s.
    expect(await retryAfter((now) => ({ count: 3, previous: 4, resetAt: now + 8000 }))).toBe('8');
  });

  it('refuses steadily once over, with a real store, and lets requests through again as the previous window fades', async () => {
    const store = new MemoryStore();
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 4, windowMs: 800, algorithm: 'sliding-window', store }), ok));
    const first = await hits(`${url}/`, 5);
    expect(first.map((a) => a.status)).toEqual([200, 200, 200, 200, 429]);
    const resetAt = store.get('127.0.0.1')!.resetAt;
    // Once the window after is over too, the count is gone.
    await waitUntil(resetAt + 800 + 20);
    expect((await hit(`${url}/`)).status).toBe(200);
  });
});

describe('where it applies', () => {
  it('counts a per-route limiter apart from a global one', async () => {
    const { url } = await serve((app) => {
      app.use(rateLimit({ limit: 5, windowMs: 60_000 }));
      app.post('/msg', rateLimit({ limit: 2, windowMs: 60_000 }), ok);
      app.get('/other', ok);
    });
    const msg = await hits(`${url}/msg`, 3, { method: 'POST' });
    expect(msg.map((a) => a.status)).toEqual([200, 200, 429]);
    // The route's own limiter wrote last: its counts show.
    expect(msg.map(remaining)).toEqual(['1', '0', '0']);
    // The global limiter counted those 3 too, and allows 2 more.
    const other = await hits(`${url}/other`, 3);
    expect(other.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(other.map(remaining)).toEqual(['1', '0', '0']);
  });

  it('under a prefix, counts only paths under it, also those without a route, and the 404 keeps the headers', async () => {
    const { url } = await serve((app) => {
      app.use('/api', rateLimit({ limit: 2, windowMs: 60_000, headers: 'draft-8' }));
      app.get('/api/users', ok);
      app.get('/health', ok);
    });
    expect((await hits(`${url}/health`, 3)).map((a) => a.status)).toEqual([200, 200, 200]);
    const missing = await hit(`${url}/api/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit')).toMatch(/^"default";r=1;t=(59|60)$/);
    expect((await hit(`${url}/api/users`)).status).toBe(200);
    const refused = await hit(`${url}/api/users`);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe(RateLimitErrorCodes.RATE_LIMITED);
  });

  it('keeps its headers when the handler throws', async () => {
    const { url } = await serve((app) => {
      app.use('/api', rateLimit({ limit: 2, windowMs: 60_000, headers: 'draft-8' }));
      app.get('/api/boom', () => {
        throw new Error('boom');
      });
    });
    const r = await hit(`${url}/api/boom`);
    expect(r.status).toBe(500);
    expect(r.headers.get('ratelimit')).toBe('"default";r=1;t=60');
  });
});

describe('keyGenerator', () => {
  it('takes a promise of a key', async () => {
    const { url } = await serve((app) =>
      app.get('/', rateLimit({ limit: 1, windowMs: 60_000, keyGenerator: async (req) => `user:${req.get('x-user')}` }), ok),
    );
    expect((await hit(`${url}/`, { headers: { 'x-user': 'a' } })).status).toBe(200);
    expect((await hit(`${url}/`, { headers: { 'x-user': 'a' } })).status).toBe(429);
    expect((await hit(`${url}/`, { headers: { 'x-user': 'b' } })).status).toBe(200);
  });

  it('answers 500 through the error path when it throws, and keeps serving the next request', async () => {
    const { url } = await serve((app) =>
      app.get(
        '/',
        rateLimit({
          limit: 5,
          windowMs: 60_000,
          keyGenerator: (req) => {
            if (req.get('x-fail')) throw new Error('no key for you');
            return 'k';
          },
        }),
        ok,
      ),
    );
    const failed = await hit(`${url}/`, { headers: { 'x-fail': '1' } });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' });
    const next = await hit(`${url}/`);
    expect(next.status).toBe(200);
    expect(remaining(next)).toBe('4');
  });

  it('answers 500 when its promise rejects, and keeps serving', async () => {
    const { url } = await serve((app) =>
      app.get(
        '/',
        rateLimit({ limit: 5, windowMs: 60_000, keyGenerator: async (req) => (req.get('x-fail') ? Promise.reject(new Error('lookup failed')) : 'k') }),
        ok,
      ),
    );
    expect((await hit(`${url}/`, { headers: { 'x-fail': '1' } })).status).toBe(500);
    expect((await hit(`${url}/`)).status).toBe(200);
  });

  it("passes on a thrown VeloxError's own status (a key function may refuse a request without credentials)", async () => {
    const { VeloxError } = await import('@velox/core');
    const { url } = await serve((app) =>
      app.get(
        '/',
        rateLimit({
          keyGenerator: (req) => req.get('x-api-key') ?? Promise.reject(new VeloxError('APP_NO_KEY', 'an API key is required', { status: 401 })),
        }),
        ok,
      ),
    );
    const r = await hit(`${url}/`);
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('APP_NO_KEY');
  });

  it('answers 500 VELOX_ERR_RATE_LIMIT_KEY when it gives something that is not a string', async () => {
    const logger = memoryLogger();
    const { url } = await serve((app) => app.get('/', rateLimit({ keyGenerator: ((req: Request) => (req.get('x-n') ? 42 : undefined)) as never }), ok), { logger });
    expect((await hit(`${url}/`)).status).toBe(500);
    expect((await hit(`${url}/`, { headers: { 'x-n': '1' } })).status).toBe(500);
    expect(logger.lines.filter((l) => l.includes('keyGenerator must return a string'))).toHaveLength(2);
  });

  it('groups IPv6 clients by their /64 by default (behind a trusted proxy here)', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 2, windowMs: 60_000 }), ok), { trustProxy: true });
    const from = (ip: string) => hit(`${url}/`, { headers: { 'x-forwarded-for': ip } });
    expect((await from('2001:db8:1:2::1')).status).toBe(200);
    expect((await from('2001:db8:1:2:ffff:ffff:ffff:ffff')).status).toBe(200);
    // Same /64: refused.
    expect((await from('2001:0db8:0001:0002:abcd::9')).status).toBe(429);
    // Another /64, and an IPv4 client: their own counts.
    expect((await from('2001:db8:1:3::1')).status).toBe(200);
    expect((await from('203.0.113.9')).status).toBe(200);
  });

  it('groups by ipv6Subnet, or keeps whole addresses with ipv6Subnet: false', async () => {
    const { url } = await serve(
      (app) => {
        app.get('/56', rateLimit({ limit: 1, windowMs: 60_000, ipv6Subnet: 56 }), ok);
        app.get('/all', rateLimit({ limit: 1, windowMs: 60_000, ipv6Subnet: false }), ok);
      },
      { trustProxy: true },
    );
    const from = (path: string, ip: string) => hit(`${url}${path}`, { headers: { 'x-forwarded-for': ip } });
    expect((await from('/56', '2001:db8:1:100::1')).status).toBe(200);
    expect((await from('/56', '2001:db8:1:1ff::1')).status).toBe(429);
    expect((await from('/all', '2001:db8:1:2::1')).status).toBe(200);
    expect((await from('/all', '2001:db8:1:2::2')).status).toBe(200);
    expect((await from('/all', '2001:db8:1:2::2')).status).toBe(429);
  });
});

describe('skip', () => {
  it('lets skipped requests through uncounted and without headers, sync or async', async () => {
    const { url } = await serve((app) => {
      app.get('/sync', rateLimit({ limit: 1, windowMs: 60_000, skip: (req) => req.get('x-skip') === '1' }), ok);
      app.get('/async', rateLimit({ limit: 1, windowMs: 60_000, skip: async (req) => req.get('x-skip') === '1' }), ok);
    });
    for (const path of ['/sync', '/async']) {
      const skipped = await hits(`${url}${path}`, 3, { headers: { 'x-skip': '1' } });
      expect(skipped.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(skipped.map(remaining)).toEqual([null, null, null]);
      expect((await hits(`${url}${path}`, 2)).map((a) => a.status)).toEqual([200, 429]);
    }
  });

  it('answers 500 when skip throws', async () => {
    const { url } = await serve((app) =>
      app.get(
        '/',
        rateLimit({
          skip: () => {
            throw new Error('skip failed');
          },
        }),
        ok,
      ),
    );
    expect((await hit(`${url}/`)).status).toBe(500);
  });
});

describe('the 429', () => {
  it('takes statusCode and message', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 1, windowMs: 60_000, statusCode: 503, message: 'Slow down, please.' }), ok));
    const [, refused] = await hits(`${url}/`, 2);
    expect(refused!.status).toBe(503);
    expect(refused!.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'Slow down, please.', code: 'VELOX_ERR_RATE_LIMITED' });
    expect(refused!.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('reaches error handlers with its code, which may answer their own body', async () => {
    const { url } = await serve((app) => {
      app.get('/', rateLimit({ limit: 1, windowMs: 60_000 }), ok);
      app.addErrorHandler((err: any, req, res, next) =>
        err.code === RateLimitErrorCodes.RATE_LIMITED ? res.status(429).json({ slowDown: true, retryAfter: Number(res.get('retry-after')) }) : next(err),
      );
    });
    const [, refused] = await hits(`${url}/`, 2);
    expect(refused!.status).toBe(429);
    expect(refused!.body.slowDown).toBe(true);
    expect(refused!.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused!.headers.get('x-ratelimit-limit')).toBe('1');
  });
});

describe('requestPropertyName', () => {
  it("puts the counts on req.rateLimit when asked, and nothing by default", async () => {
    const { url } = await serve((app) => {
      app.get('/on', rateLimit({ limit: 3, windowMs: 60_000, requestPropertyName: 'rateLimit' }), (req, res) =>
        res.json({ ...req.rateLimit, resetIn: req.rateLimit!.resetTime.getTime() - Date.now() }),
      );
      app.get('/off', rateLimit({ limit: 3, windowMs: 60_000 }), (req, res) => res.json({ has: 'rateLimit' in req }));
    });
    const r = await hit(`${url}/on`);
    expect(r.body).toMatchObject({ limit: 3, used: 1, remaining: 2, key: '127.0.0.1' });
    expect(r.body.resetIn).toBeGreaterThan(58_000);
    expect(r.body.resetIn).toBeLessThanOrEqual(60_000);
    expect((await hit(`${url}/off`)).body).toEqual({ has: false });
  });
});

describe('skipFailedRequests / skipSuccessfulRequests', () => {
  it('takes back the hits of failed answers with skipFailedRequests', async () => {
    const store = new MemoryStore();
    const { url } = await serve((app) =>
      app.get('/:status', rateLimit({ limit: 2, windowMs: 60_000, skipFailedRequests: true, store }), (req, res) => res.sendStatus(Number(req.params.status))),
    );
    for (let i = 0; i < 4; i++) expect((await hit(`${url}/500`)).status).toBe(500);
    await expect.poll(() => store.get('127.0.0.1')!.count).toBe(0);
    expect((await hits(`${url}/200`, 3)).map((a) => a.status)).toEqual([200, 200, 429]);
  });

  it('takes back the hits of successful answers with skipSuccessfulRequests', async () => {
    const store = new MemoryStore();
    const { url } = await serve((app) =>
      app.get('/:status', rateLimit({ limit: 2, windowMs: 60_000, skipSuccessfulRequests: true, store }), (req, res) => res.sendStatus(Number(req.params.status))),
    );
    for (let i = 0; i < 4; i++) expect((await hit(`${url}/200`)).status).toBe(200);
    await expect.poll(() => store.get('127.0.0.1')!.count).toBe(0);
    expect((await hits(`${url}/404`, 3)).map((a) => a.status)).toEqual([404, 404, 429]);
  });
});

describe('resetKey', () => {
  it("forgets a key's count", async () => {
    const limiter = rateLimit({ limit: 1, windowMs: 60_000 });
    const { url } = await serve((app) => app.get('/', limiter, ok));
    expect((await hits(`${url}/`, 2)).map((a) => a.status)).toEqual([200, 429]);
    await limiter.resetKey('127.0.0.1');
    expect((await hit(`${url}/`)).status).toBe(200);
  });
});
