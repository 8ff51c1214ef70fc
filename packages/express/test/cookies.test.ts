import { start } from '@velox/test-utils';
import { sign } from 'cookie-signature';
import { describe, expect, it } from 'vitest';
import type { Middleware, Request } from '@velox/core';
import { isCookieParser } from '../src/cookies.ts';
import { server } from './helpers.ts';

/**
 * A middleware shaped like cookie-parser (the real one is tested in test/middlewares):
 * does nothing when `req.cookies` is set, else assigns `secret`, `cookies` and `signedCookies`.
 */
function likeCookieParser(secret: string): Middleware<any, any> {
  return (req: any, _res, next) => {
    if (req.cookies) return next();
    req.secret = secret;
    req.cookies = { parsedBy: secret };
    req.signedCookies = {};
    next();
  };
}

const show = (req: Request, res: any) => res.json({ cookies: { ...req.cookies }, secret: req.secret ?? null });

describe('cookie-parser on Velox', () => {
  it('tells a cookie-parser-shaped middleware (minified too) from one that only reads or sets some of those', () => {
    expect(isCookieParser(likeCookieParser('s'))).toBe(true);
    // What a minifier leaves of cookie-parser's middleware.
    const minified = new Function('s', 'return function(e,t,n){if(e.cookies)return n();e.secret=s,e.cookies={},e.signedCookies={};n()}')('s');
    expect(isCookieParser(minified)).toBe(true);
    const reads: Middleware = (req, _res, next) => next(req.cookies.sid === undefined ? undefined : 'route');
    expect(isCookieParser(reads)).toBe(false);
    const assigns: Middleware = (req, _res, next) => {
      req.cookies = { a: '1' };
      next();
    };
    expect(isCookieParser(assigns)).toBe(false);
    const twoArguments = (req: any, _res: unknown) => {
      req.secret = 's';
      req.cookies = {};
      req.signedCookies = {};
    };
    expect(isCookieParser(twoArguments)).toBe(false);
  });

  it('lets such a middleware find req.cookies unset, in use(), use(prefix) and on a route, and its result wins', async () => {
    const app = server();
    app.use('/prefixed', likeCookieParser('prefixed'));
    app.get('/prefixed/x', show);
    app.get('/route', likeCookieParser('route'), show);
    app.get('/none', show);
    const { url } = await start(app);
    const headers = { cookie: 'a=1' };
    expect(await (await fetch(`${url}/prefixed/x`, { headers })).json()).toEqual({ cookies: { parsedBy: 'prefixed' }, secret: 'prefixed' });
    expect(await (await fetch(`${url}/route`, { headers })).json()).toEqual({ cookies: { parsedBy: 'route' }, secret: 'route' });
    expect(await (await fetch(`${url}/none`, { headers })).json()).toEqual({ cookies: { a: '1' }, secret: null });
  });

  it('replaces the cookies Velox parsed for an earlier reader, but not cookies a middleware assigned', async () => {
    const app = server();
    const reads: Middleware = (req, _res, next) => {
      if (req.cookies.a !== '1') throw new Error('Velox parsed no cookie');
      next();
    };
    const assigns: Middleware = (req, _res, next) => {
      req.cookies = { mine: 'yes' };
      next();
    };
    app.get('/read-first', reads, likeCookieParser('p'), show);
    app.get('/assigned-first', assigns, likeCookieParser('p'), show);
    app.get('/twice', likeCookieParser('first'), likeCookieParser('second'), show);
    const { url } = await start(app);
    const headers = { cookie: 'a=1' };
    expect(await (await fetch(`${url}/read-first`, { headers })).json()).toEqual({ cookies: { parsedBy: 'p' }, secret: 'p' });
    expect(await (await fetch(`${url}/assigned-first`, { headers })).json()).toEqual({ cookies: { mine: 'yes' }, secret: null });
    expect(await (await fetch(`${url}/twice`, { headers })).json()).toEqual({ cookies: { parsedBy: 'first' }, secret: 'first' });
  });

  it("hands Velox's cookies to the reads after its check when such a middleware assigns nothing", async () => {
    const app = server();
    const sometimes: Middleware<any, any> = (req: any, _res, next) => {
      if (req.cookies) return next();
      if (req.get('x-skip')) return next();
      req.secret = 's';
      req.cookies = { parsedBy: 's' };
      req.signedCookies = {};
      next();
    };
    app.get('/', sometimes, show);
    const { url } = await start(app);
    expect(await (await fetch(url, { headers: { cookie: 'a=1', 'x-skip': '1' } })).json()).toEqual({ cookies: { a: '1' }, secret: null });
    expect(await (await fetch(url, { headers: { cookie: 'a=1' } })).json()).toEqual({ cookies: { parsedBy: 's' }, secret: 's' });
  });

  it("signs res.cookie(…, { signed: true }) with req.secret when set, else with cookieSecret; with neither, 500 VELOX_ERR_NO_COOKIE_SECRET", async () => {
    const app = server({ cookieSecret: 'server' });
    app.get('/parser', likeCookieParser('parser'), (_req, res) => res.cookie('sid', 'v', { signed: true }).send('ok'));
    app.get('/server', (_req, res) => res.cookie('sid', 'v', { signed: true }).send('ok'));
    const bare = server({ exposeErrors: true });
    bare.get('/', (_req, res) => res.cookie('sid', 'v', { signed: true }).send('ok'));
    const { url } = await start(app);
    const { url: bareUrl } = await start(bare);
    const pair = (r: globalThis.Response) => r.headers.getSetCookie()[0]!.split(';')[0];
    expect(pair(await fetch(`${url}/parser`))).toBe(`sid=${encodeURIComponent(`s:${sign('v', 'parser')}`)}`);
    expect(pair(await fetch(`${url}/server`))).toBe(`sid=${encodeURIComponent(`s:${sign('v', 'server')}`)}`);
    const refused = await fetch(bareUrl);
    expect(refused.status).toBe(500);
    expect(await refused.text()).toMatch(/VELOX_ERR_NO_COOKIE_SECRET[\s\S]*cookieSecret/);
  });
});
