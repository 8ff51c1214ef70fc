import { listen } from '@velox/test-utils';
import cookieParser from 'cookie-parser';
import { sign } from 'cookie-signature';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

const signed = (value: string, secret: string) => `s:${sign(value, secret)}`;

describe('cookie-parser', () => {
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

  it('gives empty records without a Cookie header', async () => {
    const app = server({ parseCookies: false });
    app.use(cookieParser());
    app.get('/', (req, res) => res.json({ cookies: { ...req.cookies }, signed: { ...req.signedCookies } }));
    const url = await listen(app);
    expect(await (await fetch(url)).json()).toEqual({ cookies: {}, signed: {} });
  });

  it("steps aside under Velox's default cookie parsing: req.cookies stays Velox's (no j: decoding, no req.secret)", async () => {
    const app = server({ cookieSecret: 'velox secret' });
    app.use(cookieParser('keyboard cat'));
    app.get('/', (req, res) =>
      res.json({ cookies: { ...req.cookies }, signed: { ...req.signedCookies }, secret: (req as { secret?: string }).secret ?? null }),
    );
    const url = await listen(app);
    const cookie = `prefs=${encodeURIComponent('j:{"a":1}')}; user=${encodeURIComponent(signed('ada', 'velox secret'))}`;
    expect(await (await fetch(url, { headers: { cookie } })).json()).toEqual({
      cookies: { prefs: 'j:{"a":1}', user: signed('ada', 'velox secret') },
      signed: { user: 'ada' },
      secret: null,
    });
  });
});
