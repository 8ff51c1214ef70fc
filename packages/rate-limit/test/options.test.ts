import { VeloxError } from '@velox/core';
import { thrownBy } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MemoryStore, RateLimitErrorCodes, type RateLimitOptions, rateLimit } from '../src/index.ts';
import { hit, hits, serve } from './helpers.ts';

/** What rateLimit(options) throws: a VeloxError with the option code. */
function refused(options: unknown): VeloxError {
  const err = thrownBy(() => rateLimit(options as RateLimitOptions));
  expect(err).toBeInstanceOf(VeloxError);
  expect((err as VeloxError).code).toBe(RateLimitErrorCodes.INVALID_OPTION);
  return err as VeloxError;
}

describe('rateLimit() options', () => {
  it('refuses a limit of 0, a negative one, NaN, Infinity, a fraction or a text', () => {
    for (const limit of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2.5, '10']) {
      expect(refused({ limit }).message).toMatch(/^limit must be a whole number of requests, at least 1.*e\.g\. limit: 5/);
    }
    expect(refused({ max: 0 }).message).toMatch(/^max must be a whole number/);
  });

  it('refuses a windowMs that is not a positive whole number of milliseconds, and says a text is not read', () => {
    for (const windowMs of [0, -1000, Number.NaN, 1.5]) expect(refused({ windowMs }).message).toMatch(/^windowMs must be a whole number of milliseconds, at least 1/);
    expect(refused({ timeWindow: '1 minute' }).message).toContain("a number, not a text such as '1 minute'");
  });

  it('takes max and timeWindow as aliases, and refuses them when they disagree with limit and windowMs', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ max: 2, timeWindow: 30_000, headers: 'draft-7' }), (req, res) => res.send('ok')));
    const r = await hit(`${url}/`);
    expect(r.headers.get('ratelimit-policy')).toBe('2;w=30');
    expect(refused({ limit: 2, max: 3 }).message).toContain('limit and max are the same option and disagree');
    expect(refused({ windowMs: 1000, timeWindow: 2000 }).message).toContain('give only windowMs');
    expect(thrownBy(() => rateLimit({ limit: 2, max: 2 }))).toBeUndefined();
  });

  it('refuses an unknown headers value, algorithm or onStoreError', () => {
    expect(refused({ headers: 'draft-9' }).message).toBe(`headers must be 'draft-8', 'draft-7', 'draft-6', 'legacy' or false; got "draft-9"`);
    expect(refused({ headers: true }).message).toContain('got true');
    expect(refused({ algorithm: 'token-bucket' }).message).toBe('algorithm must be "fixed-window", "sliding-window"; got "token-bucket"');
    expect(refused({ onStoreError: 'ignore' }).message).toContain('onStoreError must be "allow", "deny"');
  });

  it('refuses a keyGenerator or skip that is not a function, and ipv6Subnet with a keyGenerator of your own', () => {
    expect(refused({ keyGenerator: 'ip' }).message).toContain('keyGenerator must be a function');
    expect(refused({ skip: true }).message).toContain('skip must be a function');
    expect(refused({ keyGenerator: () => 'k', ipv6Subnet: 56 }).message).toContain('ipKeyGenerator(req.ip, 56)');
    for (const ipv6Subnet of [0, 129, 64.5, true]) expect(refused({ ipv6Subnet }).message).toMatch(/^ipv6Subnet must be a prefix length from 1 to 128/);
  });

  it('refuses an identifier that cannot go in a header, a status that is not an error, a message that is not a string', () => {
    for (const identifier of ['', 'a"b', 'a\\b', 'é', 'a\nb', 5]) expect(refused({ identifier }).message).toMatch(/^identifier must be a non-empty text of printable ASCII/);
    for (const statusCode of [200, 399, 600, 429.5]) expect(refused({ statusCode }).message).toMatch(/^statusCode must be an error status/);
    expect(refused({ message: { error: 'x' } }).message).toContain('answer VELOX_ERR_RATE_LIMITED in an error handler');
  });

  it('refuses a storeTimeout that is not positive, flags that are not booleans, a bad requestPropertyName', () => {
    for (const storeTimeout of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(refused({ storeTimeout }).message).toMatch(/^storeTimeout must be a positive number/);
    expect(refused({ skipFailedRequests: 'yes' }).message).toBe('skipFailedRequests must be true or false; got "yes"');
    expect(refused({ skipSuccessfulRequests: 1 }).message).toBe('skipSuccessfulRequests must be true or false; got 1');
    expect(refused({ requestPropertyName: 'rate limit' }).message).toContain("requestPropertyName must be a property name such as 'rateLimit'");
  });

  it('refuses a store without the three methods, or one that already serves another limiter', () => {
    expect(refused({ store: { increment() {} } }).message).toContain('store must have increment(key, windowMs, now), decrement(key, windowMs, now) and reset(key)');
    const store = new MemoryStore();
    rateLimit({ store });
    expect(refused({ store }).message).toContain('This MemoryStore already serves another rateLimit()');
  });

  it("names what to write instead of express-rate-limit's and @fastify/rate-limit's options", () => {
    expect(refused({ standardHeaders: 'draft-8' }).message).toBe("rateLimit has no option standardHeaders: write headers: 'draft-8' (or 'draft-7', 'draft-6')");
    expect(refused({ legacyHeaders: false }).message).toContain("headers: 'legacy' (the default) or headers: false");
    expect(refused({ passOnStoreError: true }).message).toContain("onStoreError: 'allow'");
    expect(refused({ skipOnError: true }).message).toContain("onStoreError: 'allow'");
    expect(refused({ handler: () => {} }).message).toContain('app.addErrorHandler');
    expect(refused({ allowList: ['127.0.0.1'] }).message).toContain('skip: (req) => allowed.has(req.ip)');
    expect(refused({ continueExceeding: true }).message).toContain("see the README's migration table");
    expect(refused({ limt: 5 }).message).toMatch(/^rateLimit has no option "limt"; its options are limit, max, windowMs/);
  });

  it('refuses options that are not an object, and takes none at all (express-rate-limit\'s defaults: 5 per minute)', async () => {
    expect(refused('fast').message).toContain('rateLimit takes an options object');
    expect(refused([]).message).toContain('rateLimit takes an options object');
    const { url } = await serve((app) => app.get('/', rateLimit(), (req, res) => res.send('ok')));
    const answers = await hits(`${url}/`, 6);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('5');
    expect(Number(answers[0]!.headers.get('x-ratelimit-reset')) * 1000 - Date.now()).toBeGreaterThan(55_000);
  });
});
