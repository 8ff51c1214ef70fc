import type { Middleware, ServerOptions } from '@velox/core';
import { listen } from '@velox/test-utils';
import cookieParser from 'cookie-parser';
import { sign } from 'cookie-signature';
import express4 from 'express4';
import { describe, expect, it } from 'vitest';
import { cookiesOf, listenNode, server } from './helpers.ts';

const signed = (value: string, secret: string) => `s:${sign(value, secret)}`;

/** What both apps answer: what cookie-parser left on the request. */
const show = (req: any, res: any) => res.json({ cookies: req.cookies ?? null, signed: req.signedCookies ?? null, secret: req.secret ?? null });

/** The part of an app both Velox's Server and Express's app have, for one setup run on each. */
interface App {
  use(...args: any[]): unknown;
  get(path: string, ...handlers: any[]): unknown;
}

/** The same middlewares and routes on a Velox server and on an Express 4 app: their base URLs. */
async function both(setup: (app: App, name: 'velox' | 'express') => void, options: ServerOptions = {}): Promise<{ velox: string; express: string }> {
  const velox = server(options);
  setup(velox as unknown as App, 'velox');
  const app = express4();
  setup(app as unknown as App, 'express');
  return { velox: await listen(velox), express: await listenNode(app) };
}

/** Asks both apps for `path` with this Cookie header; the answers, Velox's and Express's. */
async function ask(urls: { velox: string; express: string }, path: string, cookie?: string): Promise<{ velox: unknown; express: unknown }> {
  const init = cookie === undefined ? {} : { headers: { cookie } };
  const [velox, express] = await Promise.all([fetch(`${urls.velox}${path}`, init), fetch(`${urls.express}${path}`, init)]);
  expect(velox.status, await velox.clone().text()).toBe(200);
  return { velox: await velox.json(), express: await express.json() };
}

describe('cookie-parser', () => {
  it('gives what Express gives with the default options: j: JSON decoded, s: signed verified into req.signedCookies, req.secret', async () => {
    const urls = await both((app) => {
      app.use(cookieParser('secret'));
      app.get('/', show);
    });
    const cookie = `a=1; j=j:{"k":2}; s=${signed('v1', 'secret')}`;
    const { velox, express } = await ask(urls, '/', cookie);
    expect(express).toEqual({ cookies: { a: '1', j: { k: 2 } }, signed: { s: 'v1' }, secret: 'secret' });
    expect(velox).toEqual(express);
  });

  it('reads a signature that does not check out (or an s: value with none) as false, and takes it out of req.cookies', async () => {
    const urls = await both((app) => {
      app.use(cookieParser('secret'));
      app.get('/', show);
    });
    const cookie = `a=1; forged=${signed('v1', 'other')}; bare=s:v1; cut=${signed('v1', 'secret').slice(0, -2)}`;
    const { velox, express } = await ask(urls, '/', cookie);
    expect(express).toEqual({ cookies: { a: '1' }, signed: { forged: false, bare: false, cut: false }, secret: 'secret' });
    expect(velox).toEqual(express);
  });

  it('verifies with every secret of a list, and sets req.secret to the first', async () => {
    const urls = await both((app) => {
      app.use(cookieParser(['new', 'old']));
      app.get('/', show);
    });
    const cookie = `n=${signed('from new', 'new')}; o=${signed('from old', 'old')}; x=${signed('v', 'retired')}`;
    const { velox, express } = await ask(urls, '/', cookie);
    expect(express).toEqual({ cookies: {}, signed: { n: 'from new', o: 'from old', x: false }, secret: 'new' });
    expect(velox).toEqual(express);
  });

  it('keeps a j: cookie whose text is not JSON (or is falsy JSON) as the string sent', async () => {
    const urls = await both((app) => {
      app.use(cookieParser());
      app.get('/', show);
    });
    const cookie = `bad=j:{"k":; zero=j:0; list=j:[1,2]; sj=${signed('j:{"n":1}', 'unused')}`;
    const { velox, express } = await ask(urls, '/', cookie);
    expect(express).toEqual({
      cookies: { bad: 'j:{"k":', zero: 'j:0', list: [1, 2], sj: signed('j:{"n":1}', 'unused') },
      signed: {},
      secret: null,
    });
    expect(velox).toEqual(express);
  });

  it('decodes a signed j: cookie into req.signedCookies', async () => {
    const urls = await both((app) => {
      app.use(cookieParser('secret'));
      app.get('/', show);
    });
    const { velox, express } = await ask(urls, '/', `prefs=${encodeURIComponent(signed('j:{"theme":"dark"}', 'secret'))}`);
    expect(express).toEqual({ cookies: {}, signed: { prefs: { theme: 'dark' } }, secret: 'secret' });
    expect(velox).toEqual(express);
  });

  it("signs res.cookie(…, { signed: true }) with cookie-parser's secret, as Express does, and reads it back on the next request", async () => {
    // The Velox server has a cookieSecret of its own: where cookie-parser runs, req.secret signs.
    const urls = await both(
      (app) => {
        app.use(cookieParser('parser secret'));
        app.get('/set', (req: any, res: any) => res.cookie('sid', 'abc123', { signed: true, httpOnly: true }).send('set'));
        app.get('/', show);
      },
      { cookieSecret: 'velox secret' },
    );
    const [fromVelox, fromExpress] = await Promise.all([fetch(`${urls.velox}/set`), fetch(`${urls.express}/set`)]);
    expect(fromVelox.status).toBe(200);
    expect(cookiesOf(fromVelox)).toEqual(cookiesOf(fromExpress));
    const cookie = cookiesOf(fromVelox)[0]!;
    expect(cookie).toBe(`sid=${encodeURIComponent(signed('abc123', 'parser secret'))}`);
    const { velox, express } = await ask(urls, '/', cookie);
    expect(express).toEqual({ cookies: {}, signed: { sid: 'abc123' }, secret: 'parser secret' });
    expect(velox).toEqual(express);
  });

  it('signs res.cookie(…, { signed: true }) without a cookieSecret when cookie-parser has a secret', async () => {
    const app = server();
    app.use(cookieParser('parser secret'));
    app.get('/set', (req, res) => res.cookie('sid', 'abc123', { signed: true }).send('set'));
    app.get('/read', (req, res) => res.json({ ...req.signedCookies }));
    const url = await listen(app);
    const set = await fetch(`${url}/set`);
    expect(set.status).toBe(200);
    const read = await fetch(`${url}/read`, { headers: { cookie: cookiesOf(set)[0]! } });
    expect(await read.json()).toEqual({ sid: 'abc123' });
  });

  it('parses even when a middleware before it read req.cookies (Velox parsed them first)', async () => {
    const earlier: Record<string, unknown> = {};
    const urls = await both((app, name) => {
      app.use((req: any, _res: any, next: () => void) => {
        earlier[name] = req.cookies?.j ?? null;
        next();
      });
      app.use(cookieParser('secret'));
      app.get('/', show);
    });
    const cookie = `j=j:{"k":2}; s=${signed('v1', 'secret')}`;
    const { velox, express } = await ask(urls, '/', cookie);
    expect(express).toEqual({ cookies: { j: { k: 2 } }, signed: { s: 'v1' }, secret: 'secret' });
    expect(velox).toEqual(express);
    // What the middleware before it read: Velox's own parse (in Express, nothing yet).
    expect(earlier).toEqual({ velox: 'j:{"k":2}', express: null });
  });

  it('steps aside, as in Express, when cookie-parser already ran (on the server, then on the route)', async () => {
    const urls = await both((app) => {
      app.use(cookieParser('first'));
      app.get('/', cookieParser('second') as Middleware<any, any>, show);
    });
    const cookie = `a=1; one=${signed('v', 'first')}; two=${signed('v', 'second')}`;
    const { velox, express } = await ask(urls, '/', cookie);
    expect(express).toEqual({ cookies: { a: '1' }, signed: { one: 'v', two: false }, secret: 'first' });
    expect(velox).toEqual(express);
  });

  it("leaves Velox's own lazy req.cookies and req.signedCookies to the routes without cookie-parser", async () => {
    const app = server({ cookieSecret: 'velox secret' });
    app.get('/with', cookieParser('velox secret') as Middleware<any, any>, show);
    app.get('/without', (req, res) => {
      const first = req.cookies;
      res.json({ same: req.cookies === first, ...(show(req, { json: (body: unknown) => body }) as object) });
    });
    const url = await listen(app);
    const cookie = `j=${encodeURIComponent('j:{"k":2}')}; s=${encodeURIComponent(signed('v1', 'velox secret'))}`;
    const without = await (await fetch(`${url}/without`, { headers: { cookie } })).json();
    expect(without).toEqual({
      same: true,
      cookies: { j: 'j:{"k":2}', s: signed('v1', 'velox secret') },
      signed: { s: 'v1' },
      secret: null,
    });
    const withParser = await (await fetch(`${url}/with`, { headers: { cookie } })).json();
    expect(withParser).toEqual({ cookies: { j: { k: 2 } }, signed: { s: 'v1' }, secret: 'velox secret' });
  });

  it('gives empty records without a Cookie header, as Express does', async () => {
    const urls = await both((app) => {
      app.use(cookieParser('secret'));
      app.get('/', show);
    });
    const { velox, express } = await ask(urls, '/');
    expect(express).toEqual({ cookies: {}, signed: {}, secret: 'secret' });
    expect(velox).toEqual(express);
  });

  it('with parseCookies: false, parses cookies, j: JSON cookies and signed cookies, and sets req.secret', async () => {
    const app = server({ parseCookies: false });
    app.use(cookieParser('keyboard cat'));
    app.get('/', (req, res) =>
      res.json({ cookies: { ...req.cookies }, signed: { ...req.signedCookies }, secret: (req as { secret?: string }).secret }),
    );
    const url = await listen(app);
    const json = `j:${JSON.stringify({ theme: 'dark', n: 2 })}`;
    const cookie = [
      'plain=hello%20there',
      `prefs=${encodeURIComponent(json)}`,
      `user=${encodeURIComponent(signed('ada', 'keyboard cat'))}`,
      `forged=${encodeURIComponent(signed('eve', 'other secret'))}`,
    ].join('; ');
    const r = await fetch(url, { headers: { cookie } });
    expect(await r.json()).toEqual({
      cookies: { plain: 'hello there', prefs: { theme: 'dark', n: 2 } },
      signed: { user: 'ada', forged: false },
      secret: 'keyboard cat',
    });
  });

  it('reads signed cookies that Velox res.cookie({ signed: true }) wrote with the same secret', async () => {
    const app = server({ parseCookies: false, cookieSecret: 'shared secret' });
    app.use(cookieParser('shared secret'));
    app.get('/set', (req, res) => res.cookie('sid', 'abc123', { signed: true }).send('set'));
    app.get('/read', (req, res) => res.json({ ...req.signedCookies }));
    const url = await listen(app);
    const set = await fetch(`${url}/set`);
    const cookie = set.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(await (await fetch(`${url}/read`, { headers: { cookie } })).json()).toEqual({ sid: 'abc123' });
  });

  it('with parseCookies: false, gives empty records without a Cookie header', async () => {
    const app = server({ parseCookies: false });
    app.use(cookieParser());
    app.get('/', (req, res) => res.json({ cookies: { ...req.cookies }, signed: { ...req.signedCookies } }));
    const url = await listen(app);
    expect(await (await fetch(url)).json()).toEqual({ cookies: {}, signed: {} });
  });
});
