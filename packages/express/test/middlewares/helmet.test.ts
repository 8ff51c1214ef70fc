import { listen } from '@velox/test-utils';
import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

describe('helmet', () => {
  it('sets its security headers, with options, on an answer', async () => {
    const app = server();
    app.use(helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'", 'cdn.example'] } } }));
    app.get('/', (req, res) => res.json({ ok: true }));
    const url = await listen(app);
    const r = await fetch(url);
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self' cdn.example");
    expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(r.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await r.json()).toEqual({ ok: true });
  });
});
