// cspNonce: a fresh nonce per request in res.locals.cspNonce and in the policy; directive
// functions, which make the policy per request.
import { Buffer } from 'node:buffer';
import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { cspNonceOf, dangerouslyDisableDefaultSrc, SecurityHeadersErrorCodes, type SecurityHeadersOptions, securityHeaders } from '../src/index.ts';
import { nextNonce } from '../src/nonce.ts';
import { HELMET_DEFAULTS, server } from './helpers.ts';

const BASE64_NONCE = /^[A-Za-z0-9+/]{16,}={0,2}$/;

/** A policy's directives by name. */
function directivesOf(policy: string): Map<string, string> {
  return new Map(
    policy.split(';').map((d) => {
      const space = d.indexOf(' ');
      return space < 0 ? [d, ''] : [d.slice(0, space), d.slice(space + 1)];
    }),
  );
}

/** A server with one instance at `/` whose route answers the nonce it was given. */
async function nonceServer(options: SecurityHeadersOptions): Promise<string> {
  const app = server();
  app.use(securityHeaders(options));
  app.get('/', (req, res) => res.send(String(res.locals.cspNonce)));
  return listen(app);
}

describe('securityHeaders({ cspNonce: true })', () => {
  it('puts a fresh nonce of at least 16 base64 characters in res.locals.cspNonce on every request', async () => {
    const url = await nonceServer({ cspNonce: true });
    const nonces = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const nonce = await (await fetch(`${url}/`)).text();
      expect(nonce).toMatch(BASE64_NONCE);
      expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(30);
  });

  it("adds 'nonce-<value>' to the default policy's script-src and style-src, and changes nothing else", async () => {
    const url = await nonceServer({ cspNonce: true });
    const r = await fetch(`${url}/`);
    const nonce = await r.text();
    const got = directivesOf(r.headers.get('content-security-policy')!);
    const defaults = directivesOf(HELMET_DEFAULTS['content-security-policy']!);
    expect(got.get('script-src')).toBe(`'self' 'nonce-${nonce}'`);
    expect(got.get('style-src')).toBe(`'self' https: 'unsafe-inline' 'nonce-${nonce}'`);
    for (const [name, value] of defaults) if (name !== 'script-src' && name !== 'style-src') expect(got.get(name)).toBe(value);
    expect([...got.keys()]).toEqual([...defaults.keys()]);
  });

  it('gives each of many concurrent requests its own nonce, the same in its policy and its locals', async () => {
    const url = await nonceServer({ cspNonce: true });
    const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(`${url}/`)));
    const seen = new Set<string>();
    for (const r of answers) {
      const nonce = await r.text();
      const policy = r.headers.get('content-security-policy')!;
      expect(policy.split(`'nonce-${nonce}'`)).toHaveLength(3);
      seen.add(nonce);
    }
    expect(seen.size).toBe(40);
  });

  it('starts a missing script-src and style-src from default-src, so the nonce takes nothing away', async () => {
    const url = await nonceServer({
      cspNonce: true,
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'self'", 'https://cdn.example'], imgSrc: ['data:'] } },
    });
    const r = await fetch(`${url}/`);
    const nonce = await r.text();
    expect(r.headers.get('content-security-policy')).toBe(
      `default-src 'self' https://cdn.example;img-src data:;script-src 'self' https://cdn.example 'nonce-${nonce}';style-src 'self' https://cdn.example 'nonce-${nonce}'`,
    );
  });

  it('adds the nonce where a policy has script-src only, and starts style-src from default-src', async () => {
    const url = await nonceServer({
      cspNonce: true,
      contentSecurityPolicy: { directives: { styleSrc: null, scriptSrc: ["'strict-dynamic'"] } },
    });
    const r = await fetch(`${url}/`);
    const nonce = await r.text();
    const got = directivesOf(r.headers.get('content-security-policy')!);
    expect(got.get('script-src')).toBe(`'strict-dynamic' 'nonce-${nonce}'`);
    expect(got.get('style-src')).toBe(`'self' 'nonce-${nonce}'`);
  });

  it('adds nothing to a policy without default-src, script-src or style-src, and still makes the nonce', async () => {
    const url = await nonceServer({
      cspNonce: true,
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: dangerouslyDisableDefaultSrc, imgSrc: ["'self'"] } },
    });
    const r = await fetch(`${url}/`);
    expect(await r.text()).toMatch(BASE64_NONCE);
    expect(r.headers.get('content-security-policy')).toBe("img-src 'self'");
  });

  it('puts the nonce in Content-Security-Policy-Report-Only with reportOnly', async () => {
    const url = await nonceServer({ cspNonce: true, contentSecurityPolicy: { reportOnly: true } });
    const r = await fetch(`${url}/`);
    const nonce = await r.text();
    expect(r.headers.get('content-security-policy')).toBeNull();
    expect(r.headers.get('content-security-policy-report-only')).toContain(`script-src 'self' 'nonce-${nonce}'`);
  });

  it('makes no nonce without cspNonce', async () => {
    const url = await nonceServer({});
    const r = await fetch(`${url}/`);
    expect(await r.text()).toBe('undefined');
    expect(r.headers.get('content-security-policy')).toBe(HELMET_DEFAULTS['content-security-policy']);
  });

  it('hands out distinct 16-byte nonces across several refills of its pool', () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const nonce = nextNonce();
      expect(nonce).toHaveLength(24);
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(1000);
  });

  it('reads the nonce typed with cspNonceOf(res), undefined where no instance made one', async () => {
    const app = server();
    app.use('/app', securityHeaders({ cspNonce: true }));
    app.get('/app/page', (req, res) => res.json({ nonce: cspNonceOf(res) ?? null }));
    app.get('/other', (req, res) => res.json({ nonce: cspNonceOf(res) ?? null }));
    const url = await listen(app);
    const nonceAt = async (path: string) => ((await (await fetch(`${url}${path}`)).json()) as { nonce: string | null }).nonce;
    expect(await nonceAt('/app/page')).toMatch(BASE64_NONCE);
    expect(await nonceAt('/other')).toBeNull();
  });
});

describe('CSP directive functions', () => {
  it('builds the policy per request from a function of the request', async () => {
    const app = server();
    app.use(securityHeaders({ contentSecurityPolicy: { directives: { imgSrc: ["'self'", (req) => `https://${req.get('x-tenant')}.example`] } } }));
    app.get('/', (req, res) => res.send('ok'));
    const url = await listen(app);
    for (const tenant of ['a', 'b']) {
      const r = await fetch(`${url}/`, { headers: { 'x-tenant': tenant } });
      expect(directivesOf(r.headers.get('content-security-policy')!).get('img-src')).toBe(`'self' https://${tenant}.example`);
    }
  });

  it('gives the function the response, with the nonce already in res.locals', async () => {
    const app = server();
    app.use(securityHeaders({ cspNonce: true, contentSecurityPolicy: { directives: { imgSrc: [(req, res) => `'nonce-${res.locals.cspNonce}'`] } } }));
    app.get('/', (req, res) => res.send(String(res.locals.cspNonce)));
    const url = await listen(app);
    const r = await fetch(`${url}/`);
    const nonce = await r.text();
    const got = directivesOf(r.headers.get('content-security-policy')!);
    expect(got.get('img-src')).toBe(`'nonce-${nonce}'`);
    expect(got.get('script-src')).toBe(`'self' 'nonce-${nonce}'`);
  });

  const BAD_RESULTS: Array<[string, () => unknown, RegExp]> = [
    ['a number', () => 42, /returned 42: it must return a string/],
    ['an unquoted keyword', () => 'self', /should be quoted/],
    ['a ";" that would start another directive', () => "'self'; script-src *", /";" or ","/],
    ['a newline', () => "'self'\r\nSet-Cookie: a=b", /control character/],
  ];

  it.each(BAD_RESULTS)('answers 500 (VELOX_ERR_SECURITY_HEADERS_INVALID_DIRECTIVE) when a function returns %s, and keeps serving', async (_name, fn, message) => {
    const app = server();
    let bad = true;
    app.use(securityHeaders({ contentSecurityPolicy: { directives: { imgSrc: [() => (bad ? (fn() as string) : "'self'")] } } }));
    app.get('/', (req, res) => res.send('ok'));
    const url = await listen(app);
    const r = await fetch(`${url}/`);
    expect(r.status).toBe(500);
    expect(r.headers.get('content-security-policy')).toBeNull();
    expect(r.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(await r.text()).not.toMatch(message);
    expect(app.logged).toHaveLength(1);
    expect(app.logged[0]).toMatchObject({ code: SecurityHeadersErrorCodes.INVALID_DIRECTIVE, status: 500 });
    expect((app.logged[0] as Error).message).toMatch(message);
    bad = false;
    const ok = await fetch(`${url}/`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toContain("img-src 'self'");
  });

  it('sends the error a function throws down the error path', async () => {
    const app = server();
    const boom = new Error('tenant lookup failed');
    app.use(
      securityHeaders({
        contentSecurityPolicy: {
          directives: {
            imgSrc: [
              () => {
                throw boom;
              },
            ],
          },
        },
      }),
    );
    app.get('/', (req, res) => res.send('ok'));
    const r = await fetch(`${await listen(app)}/`);
    expect(r.status).toBe(500);
    expect(app.logged).toEqual([boom]);
  });
});
