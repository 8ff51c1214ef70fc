import { rateLimit } from '../src/index.ts';
import { describe, expect, it } from 'vitest';
import { hit, hits, serve } from './helpers.ts';

const ok = (req: unknown, res: { json(v: unknown): unknown }) => res.json({ ok: true });

describe("headers: 'draft-8'", () => {
  it('sends RateLimit-Policy "default";q=5;w=2 and RateLimit "default";r=4;t=2 on the first request', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 5, windowMs: 2000, headers: 'draft-8' }), ok));
    const r = await hit(`${url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('ratelimit-policy')).toBe('"default";q=5;w=2');
    expect(r.headers.get('ratelimit')).toBe('"default";r=4;t=2');
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('counts r down to 0, then answers 429 with the same headers, Retry-After in seconds and a JSON body with the code', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 5, windowMs: 2000, headers: 'draft-8' }), ok));
    const answers = await hits(`${url}/`, 6);
    // t counts down from 2 (the window is 2 s): 2, or 1 on a slow machine after the first second.
    expect(answers[0]!.headers.get('ratelimit')).toBe('"default";r=4;t=2');
    for (const [i, a] of answers.slice(1, 5).entries()) expect(a.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${3 - i};t=[12]$`));
    const refused = answers[5]!;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=5;w=2');
    expect(refused.headers.get('ratelimit')).toMatch(/^"default";r=0;t=[12]$/);
    const retryAfter = refused.headers.get('retry-after')!;
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(2);
    expect(refused.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.body).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'Too many requests, please try again later.',
      code: 'VELOX_ERR_RATE_LIMITED',
    });
  });

  it('uses the identifier as the name in both headers', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 3, windowMs: 60_000, headers: 'draft-8', identifier: 'api-v1' }), ok));
    const r = await hit(`${url}/`);
    expect(r.headers.get('ratelimit-policy')).toBe('"api-v1";q=3;w=60');
    expect(r.headers.get('ratelimit')).toBe('"api-v1";r=2;t=60');
  });

  it('rounds a window that is not a whole number of seconds up, for w and t', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 2, windowMs: 1500, headers: 'draft-8' }), ok));
    const r = await hit(`${url}/`);
    expect(r.headers.get('ratelimit-policy')).toBe('"default";q=2;w=2');
    expect(r.headers.get('ratelimit')).toBe('"default";r=1;t=2');
  });

  it('lists each of two limiters on one answer once, as an item of its own', async () => {
    const { url } = await serve((app) => {
      app.use(rateLimit({ limit: 10, windowMs: 60_000, headers: 'draft-8', identifier: 'global' }));
      app.post('/msg', rateLimit({ limit: 2, windowMs: 10_000, headers: 'draft-8', identifier: 'messages' }), ok);
    });
    const r = await hit(`${url}/msg`, { method: 'POST' });
    expect(r.headers.get('ratelimit-policy')).toBe('"global";q=10;w=60, "messages";q=2;w=10');
    expect(r.headers.get('ratelimit')).toBe('"global";r=9;t=60, "messages";r=1;t=10');
  });
});

describe("headers: 'draft-7'", () => {
  it('sends RateLimit-Policy 5;w=2 and the combined RateLimit limit=5, remaining=4, reset=2 (429 too)', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 5, windowMs: 2000, headers: 'draft-7' }), ok));
    const answers = await hits(`${url}/`, 6);
    expect(answers[0]!.headers.get('ratelimit-policy')).toBe('5;w=2');
    expect(answers[0]!.headers.get('ratelimit')).toBe('limit=5, remaining=4, reset=2');
    expect(answers[4]!.headers.get('ratelimit')).toMatch(/^limit=5, remaining=0, reset=[12]$/);
    const refused = answers[5]!;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-policy')).toBe('5;w=2');
    expect(refused.headers.get('ratelimit')).toBe(`limit=5, remaining=0, reset=${refused.headers.get('retry-after')}`);
  });
});

describe("headers: 'draft-6'", () => {
  it('sends RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 5, windowMs: 2000, headers: 'draft-6' }), ok));
    const r = await hit(`${url}/`);
    expect(r.headers.get('ratelimit-policy')).toBe('5;w=2');
    expect(r.headers.get('ratelimit-limit')).toBe('5');
    expect(r.headers.get('ratelimit-remaining')).toBe('4');
    expect(r.headers.get('ratelimit-reset')).toBe('2');
    expect(r.headers.get('ratelimit')).toBeNull();
  });
});

describe("headers: 'legacy' (the default)", () => {
  it('sends X-RateLimit-Limit, -Remaining and -Reset (the window end in seconds since the epoch)', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 5, windowMs: 2000 }), ok));
    const before = Date.now();
    const answers = await hits(`${url}/`, 6);
    const r = answers[0]!;
    expect(r.headers.get('x-ratelimit-limit')).toBe('5');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('4');
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(Math.ceil((before + 2000) / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil((Date.now() + 2000) / 1000));
    expect(r.headers.get('ratelimit')).toBeNull();
    expect(r.headers.get('ratelimit-policy')).toBeNull();
    const refused = answers[5]!;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('retry-after')).toMatch(/^[12]$/);
  });
});

describe('headers: false', () => {
  it('sends no rate-limit header, and only Retry-After on the 429', async () => {
    const { url } = await serve((app) => app.get('/', rateLimit({ limit: 1, windowMs: 5000, headers: false }), ok));
    const [first, refused] = await hits(`${url}/`, 2);
    for (const name of ['ratelimit', 'ratelimit-policy', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'ratelimit-limit']) {
      expect(first!.headers.get(name)).toBeNull();
      expect(refused!.headers.get(name)).toBeNull();
    }
    expect(refused!.status).toBe(429);
    expect(refused!.headers.get('retry-after')).toMatch(/^[1-5]$/);
  });
});
