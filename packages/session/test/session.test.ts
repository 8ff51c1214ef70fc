import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MemoryStore, SessionErrorCodes, session } from '../src/index.ts';
import { app, Browser, CountingStore, gate, SECRET, server, storeKinds } from './helpers.ts';

describe.each(storeKinds)('req.session with $kind', ({ make }) => {
  it('begins a session, then loads it from the cookie on the next request', async () => {
    const { url } = await app(make());
    const browser = new Browser(url);
    const first = await browser.get('/visits');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ visits: 1, isNew: true });
    expect(first.body.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const second = await browser.get('/visits');
    expect(second.body).toEqual({ visits: 2, id: first.body.id, isNew: false });
    expect((await browser.get('/visits')).body.visits).toBe(3);
  });

  it('sets, reads, deletes and lists values of every JSON kind', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: make() });
    a.post('/fill', async (req, res) => {
      await req.session.start();
      req.session.set({ text: 'é ☃', n: 1.5, yes: true, nothing: null, list: [1, 'two', { three: 3 }], obj: { nested: { deep: [] } } });
      req.session.set('gone', 'soon');
      req.session.delete('gone');
      req.session.set('undefinedDeletes', 'x');
      req.session.set('undefinedDeletes', undefined);
      res.json(req.session.all());
    });
    a.get('/all', async (req, res) => {
      await req.session.start();
      res.json({ all: req.session.all(), text: req.session.get('text'), missing: req.session.get('missing') ?? 'none' });
    });
    const browser = new Browser(await listen(a));
    const expected = { text: 'é ☃', n: 1.5, yes: true, nothing: null, list: [1, 'two', { three: 3 }], obj: { nested: { deep: [] } } };
    expect((await browser.post('/fill')).body).toEqual(expected);
    expect((await browser.get('/all')).body).toEqual({ all: expected, text: 'é ☃', missing: 'none' });
  });

  it('copies values in as JSON: a later change to the object is not stored, Dates become strings', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: make() });
    a.post('/set', async (req, res) => {
      await req.session.start();
      const cart = { items: ['apple'] };
      req.session.set('cart', cart);
      cart.items.push('changed after set()');
      req.session.set('when', new Date(0));
      res.json({ now: req.session.get('cart') });
    });
    a.get('/get', async (req, res) => {
      await req.session.start();
      res.json({ cart: req.session.get('cart'), when: req.session.get('when') });
    });
    const browser = new Browser(await listen(a));
    expect((await browser.post('/set')).body).toEqual({ now: { items: ['apple'] } });
    expect((await browser.get('/get')).body).toEqual({ cart: { items: ['apple'] }, when: '1970-01-01T00:00:00.000Z' });
  });

  it('gives each request its own copy of an object value: a change made without set() is not stored, nor seen by another request', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: make() });
    const gates = new Map<string, ReturnType<typeof gate>>();
    a.post('/fill', async (req, res) => {
      await req.session.start();
      req.session.set({ cart: { items: ['apple'] }, count: 1 });
      res.send('ok');
    });
    // Reads the cart, changes the object it got without set(), and answers what it sees after a gate.
    a.post('/mutate/:name', async (req, res) => {
      await req.session.start();
      const cart = req.session.get('cart') as { items: string[] };
      cart.items.push(`mutated by ${req.params.name}`);
      await gates.get(req.params.name)!.promise;
      res.json({ cart: req.session.get('cart'), all: req.session.all() });
    });
    a.post('/count', async (req, res) => {
      await req.session.start();
      req.session.set('count', (req.session.get('count') as number) + 1);
      res.json(req.session.all());
    });
    a.get('/read', async (req, res) => {
      await req.session.start();
      res.json(req.session.all());
    });
    const browser = new Browser(await listen(a));
    await browser.post('/fill');
    gates.set('a', gate());
    const pending = browser.post('/mutate/a');
    // Another request of the same session changes a key while the first one holds its copy.
    await new Promise((r) => setTimeout(r, 50));
    expect((await browser.post('/count')).body).toEqual({ cart: { items: ['apple'] }, count: 2 });
    gates.get('a')!.open();
    // The first request sees its own change (the same object on every read), not the other's write.
    expect((await pending).body).toEqual({ cart: { items: ['apple', 'mutated by a'] }, all: { cart: { items: ['apple', 'mutated by a'] }, count: 1 } });
    // Nothing called set('cart'): the stored cart is unchanged, the other request's count kept.
    expect((await browser.get('/read')).body).toEqual({ cart: { items: ['apple'] }, count: 2 });
  });

  it('does not store a new session nothing was set in, nor send a cookie for it', async () => {
    const store = new CountingStore(make());
    const { url } = await app(store);
    const r = await new Browser(url).get('/read');
    expect(r.status).toBe(200);
    expect(r.body.isNew).toBe(true);
    expect(r.cookies).toEqual([]);
    expect(store.calls).toEqual([]);
  });

  it('writes the session before the redirect leaves: a client that follows it at once sees the data', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: make() });
    a.post('/login', async (req, res) => {
      await req.session.start();
      await req.session.regenerate();
      req.session.set('user', 'ana');
      res.redirect('/me');
    });
    a.get('/me', async (req, res) => {
      await req.session.start();
      res.json({ user: req.session.get('user') ?? null });
    });
    const browser = new Browser(await listen(a));
    for (let i = 0; i < 20; i++) {
      const login = await browser.post('/login');
      expect(login.status).toBe(302);
      expect((await browser.get(login.headers.get('location')!)).body).toEqual({ user: 'ana' });
    }
  });

  it('regenerate() gives a new id, keeps the data (or only the keep keys), and kills the old id', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: make() });
    a.post('/fill', async (req, res) => {
      await req.session.start();
      req.session.set({ cart: ['book'], theme: 'dark', tracking: 'x' });
      res.json({ id: req.session.id });
    });
    a.post('/login', async (req, res) => {
      await req.session.start();
      const before = req.session.id;
      await req.session.regenerate(req.get('x-keep') ? { keep: ['cart'] } : {});
      req.session.set('user', 'ana');
      res.json({ before, after: req.session.id, data: req.session.all() });
    });
    a.get('/read', async (req, res) => {
      await req.session.start();
      res.json({ id: req.session.id, isNew: req.session.isNew, data: req.session.all() });
    });
    const url = await listen(a);
    const browser = new Browser(url);
    const { id } = (await browser.post('/fill')).body;
    const oldCookie = browser.cookie;
    const login = await browser.post('/login');
    expect(login.body.before).toBe(id);
    expect(login.body.after).not.toBe(id);
    expect(login.body.data).toEqual({ cart: ['book'], theme: 'dark', tracking: 'x', user: 'ana' });
    expect(browser.cookie).not.toBe(oldCookie);
    // The old id is dead: its cookie begins a new, empty session.
    const attacker = new Browser(url);
    attacker.cookie = oldCookie;
    const stale = await attacker.get('/read');
    expect(stale.body.isNew).toBe(true);
    expect(stale.body.id).not.toBe(id);
    expect(stale.body.data).toEqual({});

    const other = new Browser(url);
    await other.post('/fill');
    const kept = await other.post('/login', { headers: { 'x-keep': '1' } });
    expect(kept.body.data).toEqual({ cart: ['book'], user: 'ana' });
  });

  it('destroy() removes the record and clears the cookie; the old cookie then begins a new session', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: make() });
    a.post('/logout', async (req, res) => {
      await req.session.start();
      await req.session.destroy();
      res.send('bye');
    });
    a.post('/logout-flash', async (req, res) => {
      await req.session.start();
      await req.session.destroy();
      req.session.set('flash', 'logged out');
      res.json({ id: req.session.id, isNew: req.session.isNew });
    });
    a.get('/read', async (req, res) => {
      await req.session.start();
      res.json({ id: req.session.id, isNew: req.session.isNew, data: req.session.all() });
    });
    a.post('/fill', async (req, res) => {
      await req.session.start();
      req.session.set('user', 'ana');
      res.json({ id: req.session.id });
    });
    const url = await listen(a);
    const browser = new Browser(url);
    const { id } = (await browser.post('/fill')).body;
    const cookie = browser.cookie;
    const bye = await browser.post('/logout');
    expect(bye.body).toBe('bye');
    expect(bye.cookies).toHaveLength(1);
    expect(bye.cookies[0]).toMatch(/^sid=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; HttpOnly; SameSite=Lax$/);
    expect(browser.cookie).toBeUndefined();
    const replay = new Browser(url);
    replay.cookie = cookie;
    const after = await replay.get('/read');
    expect(after.body).toMatchObject({ isNew: true, data: {} });
    expect(after.body.id).not.toBe(id);

    // A value set after destroy() lives in a new session with a new cookie.
    const again = new Browser(url);
    const { id: first } = (await again.post('/fill')).body;
    const flash = await again.post('/logout-flash');
    expect(flash.body.isNew).toBe(true);
    expect(flash.body.id).not.toBe(first);
    expect((await again.get('/read')).body).toMatchObject({ id: flash.body.id, data: { flash: 'logged out' } });
  });

  it('save() writes at once, before the response', async () => {
    const store = make();
    const a = server();
    await a.register(session, { secret: SECRET, store });
    let seen: unknown;
    a.post('/save', async (req, res) => {
      await req.session.start();
      req.session.set('step', 2);
      await req.session.save();
      seen = (await store.get(req.session.id))?.data;
      res.send('saved');
    });
    const browser = new Browser(await listen(a));
    const r = await browser.post('/save');
    expect(r.cookies).toHaveLength(1);
    expect(seen).toEqual({ step: 2 });
  });

  it('answers 500 VELOX_ERR_SESSION_NOT_STARTED when the session is used before start()', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: make() });
    a.get('/early', (req, res) => res.json({ visits: req.session.get('visits') ?? 0 }));
    const r = await new Browser(await listen(a)).get('/early');
    expect(r.status).toBe(500);
  });
});

describe('req.session', () => {
  it('keeps changes made before a handler threw: the commit runs before the error answer too', async () => {
    const a = server();
    await a.register(session, { secret: SECRET });
    a.post('/fail', async (req, res) => {
      await req.session.start();
      req.session.set('step', 'reached');
      throw new Error('boom');
    });
    a.get('/read', async (req, res) => {
      await req.session.start();
      res.json(req.session.all());
    });
    const browser = new Browser(await listen(a));
    const failed = await browser.post('/fail');
    expect(failed.status).toBe(500);
    expect(failed.cookies).toHaveLength(1);
    expect((await browser.get('/read')).body).toEqual({ step: 'reached' });
  });

  it('refuses values JSON cannot hold with VELOX_ERR_SESSION_INVALID_VALUE', async () => {
    const a = server({ exposeErrors: true });
    await a.register(session, { secret: SECRET });
    a.post('/bad/:kind', async (req, res) => {
      await req.session.start();
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      const values: Record<string, unknown> = { bigint: 1n, fn: () => 1, cycle, symbol: Symbol('s') };
      req.session.set('bad', values[req.params.kind]);
      res.send('stored?');
    });
    a.post('/empty-key', async (req, res) => {
      await req.session.start();
      req.session.set('', 1);
      res.send('stored?');
    });
    const browser = new Browser(await listen(a));
    for (const kind of ['bigint', 'fn', 'cycle', 'symbol']) {
      const r = await browser.post(`/bad/${kind}`);
      expect(r.status).toBe(500);
      expect(r.body.code).toBe(SessionErrorCodes.INVALID_VALUE);
      expect(r.cookies).toEqual([]);
    }
    expect((await browser.post('/empty-key')).body.code).toBe(SessionErrorCodes.INVALID_VALUE);
  });

  it('answers 500 VELOX_ERR_SESSION_NOT_REGISTERED on a server without the plugin', async () => {
    const withPlugin = server();
    await withPlugin.register(session, { secret: SECRET });
    const without = server({ exposeErrors: true });
    without.get('/', async (req, res) => {
      await req.session.start();
      res.send('no');
    });
    const r = await new Browser(await listen(without)).get('/');
    expect(r.status).toBe(500);
    expect(r.body.code).toBe(SessionErrorCodes.NOT_REGISTERED);
  });

  it('works on two servers of one process, each with its own settings', async () => {
    const a = await app(new MemoryStore(), { cookie: { name: 'a_sid' } });
    const b = await app(new MemoryStore(), { cookie: { name: 'b_sid' } });
    const ba = new Browser(a.url, 'a_sid');
    const bb = new Browser(b.url, 'b_sid');
    await ba.get('/visits');
    expect((await ba.get('/visits')).body.visits).toBe(2);
    expect((await bb.get('/visits')).body.visits).toBe(1);
  });

  it('keeps session keys that look like Object properties as plain data', async () => {
    const a = server();
    await a.register(session, { secret: SECRET });
    a.post('/proto', async (req, res) => {
      await req.session.start();
      req.session.set('__proto__', { polluted: true });
      req.session.set('constructor', 'c');
      res.json({ toString: req.session.get('toString') ?? 'absent', polluted: ({} as { polluted?: boolean }).polluted ?? false });
    });
    a.get('/read', async (req, res) => {
      await req.session.start();
      res.json({ keys: Object.keys(req.session.all()).sort(), proto: req.session.get('__proto__') });
    });
    const browser = new Browser(await listen(a));
    expect((await browser.post('/proto')).body).toEqual({ toString: 'absent', polluted: false });
    expect((await browser.get('/read')).body).toEqual({ keys: ['__proto__', 'constructor'], proto: { polluted: true } });
    // Again, as a change to the stored session (the store's per-key update).
    expect((await browser.post('/proto')).body).toEqual({ toString: 'absent', polluted: false });
    expect((await browser.get('/read')).body).toEqual({ keys: ['__proto__', 'constructor'], proto: { polluted: true } });
  });

  it('answers the session of a WebSocket upgrade request too', async () => {
    const a = server();
    await a.register(session, { secret: SECRET });
    a.ws('/ws', {
      upgrade: async (req) => {
        await req.session.start();
        req.session.set('ws', true);
        return {};
      },
    });
    const { port } = await a.listen(0, '127.0.0.1');
    const { connect } = await import('node:net');
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          'GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
        );
      });
      let got = '';
      socket.on('data', (d) => {
        got += d.toString('latin1');
        if (got.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(got);
        }
      });
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 101/);
    expect(text).toMatch(/set-cookie: sid=[A-Za-z0-9_-]{22}\./i);
  });
});
