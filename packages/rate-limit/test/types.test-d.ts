import type { Middleware, Request } from '@velox/core';
import { Server } from '@velox/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  ipKeyGenerator,
  MemoryStore,
  type RateLimitInfo,
  type RateLimitMiddleware,
  type RateLimitOptions,
  type RateLimitStore,
  RedisStore,
  rateLimit,
  type WindowCounts,
} from '../src/index.ts';

declare const req: Request;

describe('rateLimit', () => {
  it('returns a middleware for use(), a prefix or a route, with its store and resetKey', () => {
    const limiter = rateLimit({ limit: 100, windowMs: 60_000, headers: 'draft-8' });
    expectTypeOf(limiter).toEqualTypeOf<RateLimitMiddleware>();
    expectTypeOf(limiter).toMatchTypeOf<Middleware>();
    expectTypeOf(limiter.store).toEqualTypeOf<RateLimitStore>();
    expectTypeOf(limiter.resetKey('k')).toEqualTypeOf<Promise<void>>();
    const app = new Server();
    app.use(limiter);
    app.use('/api', rateLimit());
    app.post('/msg/:room', rateLimit({ limit: 5 }), (r, res) => res.json({ room: r.params.room }));
    // The API block, as written there.
    app.use('/api', rateLimit({ limit: 100, windowMs: 60_000, keyGenerator: (req) => req.ip, headers: 'draft-8',
      store: new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'rl:' }) }));
  });

  it('takes a key as a string or a promise of one, and a sync or async skip', () => {
    rateLimit({ keyGenerator: (r) => r.ip });
    rateLimit({ keyGenerator: async (r) => `user:${r.get('x-user')}` });
    rateLimit({ skip: (r) => r.method === 'OPTIONS' });
    rateLimit({ skip: async () => false });
    // @ts-expect-error a key is a string
    rateLimit({ keyGenerator: () => 42 });
  });

  it('types the options that take a fixed set of values', () => {
    expectTypeOf<RateLimitOptions['headers']>().toEqualTypeOf<'draft-8' | 'draft-7' | 'draft-6' | 'legacy' | false | undefined>();
    expectTypeOf<RateLimitOptions['algorithm']>().toEqualTypeOf<'fixed-window' | 'sliding-window' | undefined>();
    expectTypeOf<RateLimitOptions['onStoreError']>().toEqualTypeOf<'allow' | 'deny' | undefined>();
    // @ts-expect-error not a mode
    rateLimit({ headers: 'draft-9' });
  });

  it('types req.rateLimit', () => {
    expectTypeOf(req.rateLimit).toEqualTypeOf<RateLimitInfo | undefined>();
    expectTypeOf<RateLimitInfo>().toEqualTypeOf<{ limit: number; used: number; remaining: number; resetTime: Date; key: string }>();
  });
});

describe('stores', () => {
  it('MemoryStore answers synchronously, RedisStore with a promise; both are stores', () => {
    expectTypeOf(new MemoryStore().increment('k', 1000, 0)).toEqualTypeOf<WindowCounts>();
    expectTypeOf(new RedisStore().increment('k', 1000, 0)).toEqualTypeOf<Promise<WindowCounts>>();
    expectTypeOf<MemoryStore>().toMatchTypeOf<RateLimitStore>();
    expectTypeOf<RedisStore>().toMatchTypeOf<RateLimitStore>();
  });

  it('lets a store of your own answer either way', () => {
    const sync: RateLimitStore = { increment: () => ({ count: 1, previous: 0, resetAt: 0 }), decrement() {}, reset() {} };
    const async: RateLimitStore = { increment: async () => ({ count: 1, previous: 0, resetAt: 0 }), decrement: async () => {}, reset: async () => {} };
    rateLimit({ store: sync });
    rateLimit({ store: async });
  });

  it('ipKeyGenerator takes an address and a prefix length or false', () => {
    expectTypeOf(ipKeyGenerator).parameters.toEqualTypeOf<[ip: string, ipv6Subnet?: number | false]>();
    expectTypeOf(ipKeyGenerator('::1')).toEqualTypeOf<string>();
  });
});
