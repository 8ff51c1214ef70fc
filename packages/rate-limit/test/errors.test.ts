import { VeloxError } from '@velox/core';
import { describeErrorCodes, thrownBy } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { RateLimitErrorCodes, type RateLimitStore, rateLimit } from '../src/index.ts';
import { hit, hits, serve } from './helpers.ts';

describeErrorCodes(
  'RateLimitErrorCodes',
  RateLimitErrorCodes,
  { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_RATE_LIMIT', pattern: /^VELOX_ERR_RATE_LIMIT(ED|_[A-Z_]+)$/ },
  () => {
    it('raises VeloxErrors with the code and status: start-up errors thrown, request errors answered', async () => {
      const thrown = thrownBy(() => rateLimit({ limit: 0 }));
      expect(thrown).toBeInstanceOf(VeloxError);
      expect(thrown).toMatchObject({ code: RateLimitErrorCodes.INVALID_OPTION });

      const caught: unknown[] = [];
      const down: RateLimitStore = { increment: () => Promise.reject(new Error('store down: secret details')), decrement() {}, reset() {} };
      const { url } = await serve((app) => {
        app.addHook('onError', (err) => void caught.push(err));
        app.get('/limited', rateLimit({ limit: 1 }), (req, res) => res.send('ok'));
        app.get('/store', rateLimit({ store: down, onStoreError: 'deny' }), (req, res) => res.send('ok'));
        app.get('/key', rateLimit({ keyGenerator: (() => 7) as never }), (req, res) => res.send('ok'));
      });
      const [, limited] = await hits(`${url}/limited`, 2);
      expect(limited!.status).toBe(429);
      const store = await hit(`${url}/store`);
      expect(store.status).toBe(503);
      // The store's own message stays on the server.
      expect(JSON.stringify(store.body)).not.toContain('secret details');
      const key = await hit(`${url}/key`);
      expect(key.status).toBe(500);
      expect(key.body.code).toBeUndefined();
      expect(caught).toEqual([
        expect.objectContaining({ code: RateLimitErrorCodes.RATE_LIMITED, status: 429, expose: true }),
        expect.objectContaining({ code: RateLimitErrorCodes.STORE, status: 503, expose: true }),
        expect.objectContaining({ code: RateLimitErrorCodes.KEY, status: 500, expose: false }),
      ]);
      for (const err of caught) expect(err).toBeInstanceOf(VeloxError);
    });
  },
);
