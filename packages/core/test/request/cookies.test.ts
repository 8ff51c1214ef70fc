import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from '../helpers.ts';

describe('cookies and cookie-parsing middlewares', () => {
  it('leaves req.cookies to a middleware with parseCookies: false, and lets one assign them', async () => {
    const app = server({ parseCookies: false });
    app.use((req, res, next) => {
      res.set('x-before', String(req.cookies === undefined));
      req.cookies = { parsed: 'by middleware' };
      req.signedCookies = {};
      next();
    });
    app.get('/', (req, res) => res.json({ cookies: req.cookies, signed: req.signedCookies }));
    const { url } = await start(app);
    const r = await fetch(url, { headers: { cookie: 'a=1' } });
    expect(r.headers.get('x-before')).toBe('true');
    expect(await r.json()).toEqual({ cookies: { parsed: 'by middleware' }, signed: {} });
  });

  it('reads req.signedCookies as empty without a cookieSecret instead of failing', async () => {
    const app = server();
    app.get('/', (req, res) => res.json({ signed: { ...req.signedCookies }, plain: req.cookies.sid }));
    const { url } = await start(app);
    const r = await fetch(url, { headers: { cookie: 'sid=s:abc.def' } });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ signed: {}, plain: 's:abc.def' });
  });
});
