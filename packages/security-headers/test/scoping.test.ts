// Instances globally, under prefixes and on one route, together on one server: which headers each
// answer gets, including 404s, methods without a route and errors.
import { VeloxError } from '@velox/core';
import { listen, parseResponses, raw } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { securityHeaders } from '../src/index.ts';
import { HELMET_DEFAULTS, poweredBy, securityHeaderSet, server } from './helpers.ts';

const NONCE_POLICY = /script-src 'self' 'nonce-([A-Za-z0-9+/]{22}==)'.*style-src 'self' https: 'unsafe-inline' 'nonce-\1'/;

/** The issue's example: a global instance, a nonce under /app, framing denied and no CSP under /embed. */
async function issueServer(): Promise<{ url: string; app: ReturnType<typeof server> }> {
  const app = server();
  app.use(poweredBy);
  app.use(securityHeaders());
  app.use('/app', securityHeaders({ cspNonce: true }));
  app.use('/embed', securityHeaders({ contentSecurityPolicy: false, frameguard: { action: 'deny' } }));
  app.get('/', (req, res) => res.send('home'));
  app.get('/app/page', (req, res) => res.send(String(res.locals.cspNonce)));
  app.get('/embed/x', (req, res) => res.send('widget'));
  app.get('/app/boom', () => {
    throw new VeloxError('APP_BOOM', 'boom', { status: 500 });
  });
  app.get('/app/reject', async () => {
    await Promise.resolve();
    throw new Error('later');
  });
  app.get('/embed/teapot', (req, res, next) => next(new VeloxError('APP_TEAPOT', 'short and stout', { status: 418 })));
  return { url: await listen(app), app };
}

const withoutCsp = (headers: Record<string, string>) => {
  const { 'content-security-policy': _, ...rest } = headers;
  return rest;
};

describe('securityHeaders() globally and under prefixes on one server', () => {
  it('sends the default set on a route outside the prefixes', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/`);
    expect(securityHeaderSet(r.headers)).toEqual(HELMET_DEFAULTS);
  });

  it('sends the nonce policy under /app, with the other defaults', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/app/page`);
    const nonce = await r.text();
    const headers = securityHeaderSet(r.headers);
    expect(headers['content-security-policy']).toMatch(NONCE_POLICY);
    expect(headers['content-security-policy']).toContain(`'nonce-${nonce}'`);
    expect(withoutCsp(headers)).toEqual(withoutCsp(HELMET_DEFAULTS));
  });

  it('sends X-Frame-Options: DENY and no CSP under /embed: contentSecurityPolicy: false removes the global policy', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/embed/x`);
    expect(await r.text()).toBe('widget');
    expect(securityHeaderSet(r.headers)).toEqual({ ...withoutCsp(HELMET_DEFAULTS), 'x-frame-options': 'DENY' });
  });

  it('sends the headers on a 404 under a prefix that has no such route', async () => {
    const { url } = await issueServer();
    const app404 = await fetch(`${url}/app/missing`);
    expect(app404.status).toBe(404);
    expect(app404.headers.get('content-security-policy')).toMatch(NONCE_POLICY);
    expect(app404.headers.get('strict-transport-security')).toBe(HELMET_DEFAULTS['strict-transport-security']);
    const embed404 = await fetch(`${url}/embed/missing/deeper`);
    expect(embed404.status).toBe(404);
    expect(securityHeaderSet(embed404.headers)).toEqual({ ...withoutCsp(HELMET_DEFAULTS), 'x-frame-options': 'DENY' });
  });

  it('sends the headers for a method with no route under a prefix', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/embed/x`, { method: 'DELETE' });
    expect(r.status).toBe(404);
    expect(securityHeaderSet(r.headers)).toEqual({ ...withoutCsp(HELMET_DEFAULTS), 'x-frame-options': 'DENY' });
  });

  it('sends the headers on a 404 outside every prefix', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/nowhere`);
    expect(r.status).toBe(404);
    expect(securityHeaderSet(r.headers)).toEqual(HELMET_DEFAULTS);
  });

  it('keeps the headers on the answer to an error thrown by the handler', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/app/boom`);
    expect(r.status).toBe(500);
    expect(r.headers.get('content-security-policy')).toMatch(NONCE_POLICY);
    expect(withoutCsp(securityHeaderSet(r.headers))).toEqual(withoutCsp(HELMET_DEFAULTS));
  });

  it('keeps the headers on the answer to a rejected async handler', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/app/reject`);
    expect(r.status).toBe(500);
    expect(r.headers.get('content-security-policy')).toMatch(NONCE_POLICY);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('keeps the headers on the answer to next(err)', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/embed/teapot`);
    expect(r.status).toBe(418);
    expect(securityHeaderSet(r.headers)).toEqual({ ...withoutCsp(HELMET_DEFAULTS), 'x-frame-options': 'DENY' });
  });

  it('sends each header once on the wire when two instances ran on one request', async () => {
    const { url } = await issueServer();
    const { text } = await raw(url, 'GET /app/page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const [answer] = parseResponses(text);
    expect(answer!.status).toBe(200);
    const head = text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase();
    for (const name of Object.keys(HELMET_DEFAULTS)) {
      expect(head.split('\r\n').filter((line) => line.startsWith(`${name}:`))).toHaveLength(1);
    }
    expect(head).not.toContain('x-powered-by');
  });

  it('answers HEAD with the headers', async () => {
    const { url } = await issueServer();
    const r = await fetch(`${url}/embed/x`, { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('content-security-policy')).toBeNull();
  });
});

describe('several instances on one request', () => {
  it("lets a later instance's values replace the earlier's", async () => {
    const app = server();
    app.use(securityHeaders({ frameguard: { action: 'deny' }, hsts: { maxAge: 1 } }));
    app.use('/open', securityHeaders());
    app.get('/open/x', (req, res) => res.send('ok'));
    const r = await fetch(`${await listen(app)}/open/x`);
    expect(securityHeaderSet(r.headers)).toEqual(HELMET_DEFAULTS);
  });

  it('removes a header a later instance turns off with false, and leaves one it merely does not send by default', async () => {
    const app = server();
    app.use(securityHeaders({ crossOriginEmbedderPolicy: true }));
    app.use('/a', securityHeaders({ referrerPolicy: false, xXssProtection: false }));
    app.use('/b', securityHeaders({ crossOriginEmbedderPolicy: false }));
    app.get('/a/x', (req, res) => res.send('ok'));
    app.get('/b/x', (req, res) => res.send('ok'));
    const url = await listen(app);
    const a = securityHeaderSet((await fetch(`${url}/a/x`)).headers);
    expect(a['cross-origin-embedder-policy']).toBe('require-corp');
    expect(a['referrer-policy']).toBeUndefined();
    expect(a['x-xss-protection']).toBeUndefined();
    expect(a['x-frame-options']).toBe('SAMEORIGIN');
    const b = securityHeaderSet((await fetch(`${url}/b/x`)).headers);
    expect(b['cross-origin-embedder-policy']).toBeUndefined();
    expect(b['referrer-policy']).toBe('no-referrer');
  });

  it('removes a report-only policy too under contentSecurityPolicy: false', async () => {
    const app = server();
    app.use(securityHeaders({ contentSecurityPolicy: { reportOnly: true } }));
    app.use('/embed', securityHeaders({ contentSecurityPolicy: false }));
    app.get('/embed/x', (req, res) => res.send('ok'));
    app.get('/x', (req, res) => res.send('ok'));
    const url = await listen(app);
    expect((await fetch(`${url}/x`)).headers.get('content-security-policy-report-only')).toBe(HELMET_DEFAULTS['content-security-policy']);
    const embed = await fetch(`${url}/embed/x`);
    expect(embed.headers.get('content-security-policy-report-only')).toBeNull();
    expect(embed.headers.get('content-security-policy')).toBeNull();
  });

  it('works on one route, beside the route table', async () => {
    const app = server();
    app.get('/framed', securityHeaders({ frameguard: false, contentSecurityPolicy: { directives: { frameAncestors: ['https://partner.example'] } } }), (req, res) =>
      res.send('ok'),
    );
    app.get('/plain', (req, res) => res.send('ok'));
    const url = await listen(app);
    const framed = await fetch(`${url}/framed`);
    expect(framed.headers.get('x-frame-options')).toBeNull();
    expect(framed.headers.get('content-security-policy')).toContain('frame-ancestors https://partner.example');
    expect(securityHeaderSet((await fetch(`${url}/plain`)).headers)).toEqual({});
  });
});

describe('the prepared block on many responses', () => {
  it("is not changed by a handler that removes or replaces one of its headers: the next answer has the instance's set", async () => {
    const app = server();
    app.use(securityHeaders());
    app.get('/custom', (req, res) => {
      res.remove('x-frame-options');
      res.set('referrer-policy', 'origin');
      res.append('content-security-policy', "report-uri /r");
      res.send('ok');
    });
    app.get('/', (req, res) => res.send('ok'));
    const url = await listen(app);
    const custom = await fetch(`${url}/custom`);
    expect(custom.headers.get('x-frame-options')).toBeNull();
    expect(custom.headers.get('referrer-policy')).toBe('origin');
    for (let i = 0; i < 3; i++) expect(securityHeaderSet((await fetch(`${url}/`)).headers)).toEqual(HELMET_DEFAULTS);
  });

  it('adds to headers an earlier middleware set, and removes X-Powered-By it set', async () => {
    const app = server();
    app.use((req, res, next) => {
      res.set('x-request-id', '42').set('X-Powered-By', 'Velox');
      next();
    });
    app.use(securityHeaders());
    app.get('/', (req, res) => res.send('ok'));
    const r = await fetch(`${await listen(app)}/`);
    expect(securityHeaderSet(r.headers)).toEqual({ ...HELMET_DEFAULTS, 'x-request-id': '42' });
  });
});
