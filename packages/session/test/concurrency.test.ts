import { listen, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { session } from '../src/index.ts';
import { Browser, gate, SECRET, server, storeKinds } from './helpers.ts';

describe.each(storeKinds)('concurrent requests of one session with $kind', ({ make }) => {
  it('keeps both changes when two requests change different keys at the same time', async () => {
    const store = make();
    const a = server();
    await a.register(session, { secret: SECRET, store });
    const gates = new Map<string, ReturnType<typeof gate>>();
    let loaded = 0;
    a.post('/set/:key', async (req, res) => {
      await req.session.start();
      loaded++;
      await gates.get(req.params.key)!.promise;
      req.session.set(req.params.key, `value of ${req.params.key}`);
      res.json(req.session.all());
    });
    a.get('/read', async (req, res) => {
      await req.session.start();
      res.json(req.session.all());
    });
    a.post('/fill', async (req, res) => {
      await req.session.start();
      req.session.set('base', 1);
      res.send('ok');
    });
    const browser = new Browser(await listen(a));
    await browser.post('/fill');
    gates.set('a', gate());
    gates.set('b', gate());
    const first = browser.post('/set/a');
    const second = browser.post('/set/b');
    // Both have loaded the session before either writes.
    await until(() => loaded === 2, 'both requests to load the session', 10_000);
    gates.get('b')!.open();
    expect((await second).body).toEqual({ base: 1, b: 'value of b' });
    gates.get('a')!.open();
    expect((await first).body).toEqual({ base: 1, a: 'value of a' });
    expect((await browser.get('/read')).body).toEqual({ base: 1, a: 'value of a', b: 'value of b' });
  });

  it('keeps a logout that raced a slow request: the slow request does not write the session back', async () => {
    const store = make();
    const a = server();
    await a.register(session, { secret: SECRET, store });
    const slow = gate();
    let loaded = false;
    let id = '';
    a.post('/slow/:mode', async (req, res) => {
      await req.session.start();
      id = req.session.id;
      loaded = true;
      await slow.promise;
      if (req.params.mode === 'write') req.session.set('cart', ['late item']);
      else req.session.touch();
      res.json({ done: true });
    });
    a.post('/logout', async (req, res) => {
      await req.session.start();
      await req.session.destroy();
      res.send('bye');
    });
    a.post('/login', async (req, res) => {
      await req.session.start();
      await req.session.regenerate();
      req.session.set('user', 'ana');
      res.send('hi');
    });
    a.get('/read', async (req, res) => {
      await req.session.start();
      res.json({ id: req.session.id, data: req.session.all() });
    });
    const url = await listen(a);
    for (const mode of ['write', 'touch']) {
      const browser = new Browser(url);
      await browser.post('/login');
      const cookie = browser.cookie;
      loaded = false;
      const pending = browser.post(`/slow/${mode}`);
      await until(() => loaded, 'the slow request to load the session', 10_000);
      const bye = await browser.post('/logout');
      expect(bye.body).toBe('bye');
      slow.open();
      const late = await pending;
      expect(late.status).toBe(200);
      // The slow request's answer clears the cookie instead of renewing the dead session.
      expect(late.cookies).toHaveLength(1);
      expect(late.cookies[0]).toMatch(/^sid=; .*Max-Age=0/);
      expect(await store.get(id)).toBeUndefined();
      const replay = new Browser(url);
      replay.cookie = cookie;
      const after = await replay.get('/read');
      expect(after.body.id).not.toBe(id);
      expect(after.body.data).toEqual({});
      Object.assign(slow, gate());
    }
  });
});
