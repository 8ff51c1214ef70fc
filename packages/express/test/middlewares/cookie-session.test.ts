import { listen } from '@velox/test-utils';
import cookieSession from 'cookie-session';
import { describe, expect, it } from 'vitest';
import { cookiesOf, server } from './helpers.ts';

declare module '@velox/core' {
  interface Request {
    session?: any;
  }
}

describe('cookie-session', () => {
  it('keeps the session in a signed cookie, rejects a tampered one, and clears it with req.session = null', async () => {
    const app = server();
    app.use(cookieSession({ name: 'sess', keys: ['key one', 'key two'] }));
    app.get('/', (req, res) => {
      req.session.n = (req.session.n ?? 0) + 1;
      res.json({ n: req.session.n, isNew: req.session.isNew });
    });
    app.get('/clear', (req, res) => {
      req.session = null;
      res.send('cleared');
    });
    const url = await listen(app);
    const first = await fetch(url);
    const cookies = cookiesOf(first);
    expect(cookies.map((c) => c.split('=')[0])).toEqual(['sess', 'sess.sig']);
    expect(await first.json()).toEqual({ n: 1, isNew: true });
    const jar = cookies.join('; ');
    expect(await (await fetch(url, { headers: { cookie: jar } })).json()).toEqual({ n: 2, isNew: false });
    const tampered = jar.replace(/sess=[^;]+/, `sess=${Buffer.from('{"n":99}').toString('base64')}`);
    expect(await (await fetch(url, { headers: { cookie: tampered } })).json()).toEqual({ n: 1, isNew: true });
    const cleared = await fetch(`${url}/clear`, { headers: { cookie: jar } });
    expect(cleared.headers.getSetCookie().some((line) => line.startsWith('sess=;') && /expires=Thu, 01 Jan 1970/i.test(line))).toBe(true);
  });
});
