import { listen } from '@velox/test-utils';
import { rateLimit } from 'express-rate-limit';
import { describe, expect, it, vi } from 'vitest';
import { server } from './helpers.ts';

describe('express-rate-limit', () => {
  it('counts requests per client, sends the RateLimit headers, and answers 429 past the limit', async () => {
    const errors = vi.spyOn(console, 'error');
    const app = server();
    app.use(rateLimit({ windowMs: 60_000, limit: 2, standardHeaders: 'draft-8', legacyHeaders: true, message: { error: 'slow down' } }));
    app.get('/', (req, res) => res.send('ok'));
    const url = await listen(app);
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toMatch(/^"2-in-1min"; q=2; w=60; pk=:[\w+/=]+:$/);
    expect(first.headers.get('ratelimit')).toMatch(/^"2-in-1min"; r=1; t=\d+$/);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await fetch(url)).status).toBe(200);
    const limited = await fetch(url);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toEqual({ error: 'slow down' });
    // Its start-up and per-request validations found nothing to complain about (req.ip, req.app).
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });

  it('keys clients by req.ip, which honours trustProxy', async () => {
    const app = server({ trustProxy: 'loopback' });
    app.use(rateLimit({ windowMs: 60_000, limit: 1, standardHeaders: false, legacyHeaders: false }));
    app.get('/', (req, res) => res.send(req.ip));
    const url = await listen(app);
    const a = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.1' } });
    const b = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.2' } });
    const again = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.1' } });
    expect([a.status, await a.text(), b.status, await b.text(), again.status]).toEqual([200, '203.0.113.1', 200, '203.0.113.2', 429]);
  });

  it('does not count failed requests with skipFailedRequests (it watches the response finish)', async () => {
    const app = server();
    app.use(rateLimit({ windowMs: 60_000, limit: 1, skipFailedRequests: true, standardHeaders: false, legacyHeaders: false }));
    app.get('/fail', (req, res) => res.status(500).send('failed'));
    app.get('/ok', (req, res) => res.send('ok'));
    const url = await listen(app);
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/fail`)).status).toBe(500);
    // The failures were taken back once they finished: the one allowed request is still there.
    await expect.poll(async () => (await fetch(`${url}/ok`)).status).toBe(200);
    expect((await fetch(`${url}/ok`)).status).toBe(429);
  });
});
