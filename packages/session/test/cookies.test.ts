import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { sign } from 'cookie-signature';
import { sleep } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MemoryStore, SessionErrorCodes, session } from '../src/index.ts';
import { app, Browser, CountingStore, OLD_SECRET, SECRET, server, storeKinds } from './helpers.ts';

/** A session with data, and its cookie value. */
async function established(url: string): Promise<{ cookie: string; id: string }> {
  const browser = new Browser(url);
  const r = await browser.get('/visits');
  return { cookie: browser.cookie!, id: r.body.id };
}

/** Sends one request with exactly this Cookie header (through a raw socket: no client rewriting). */
function rawGet(url: string, path: string, cookieHeader: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nCookie: ${cookieHeader}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, without Domain or Secure over plain HTTP, and expires with the session', async () => {
    const { url } = await app(new MemoryStore(), { idleTimeout: 600_000, absoluteTimeout: 3_600_000 });
    const r = await new Browser(url).get('/visits');
    expect(r.cookies).toHaveLength(1);
    const line = r.cookies[0]!;
    expect(line).toMatch(/^sid=[A-Za-z0-9_-]{22}\.[A-Za-z0-9+/]{43}; /);
    const attributes = line.split('; ').slice(1);
    expect(attributes).toContain('Path=/');
    expect(attributes).toContain('HttpOnly');
    expect(attributes).toContain('SameSite=Lax');
    expect(attributes.some((a) => a.startsWith('Domain'))).toBe(false);
    expect(attributes).not.toContain('Secure');
    const maxAge = Number(attributes.find((a) => a.startsWith('Max-Age='))!.slice(8));
    expect(maxAge).toBeGreaterThan(590);
    expect(maxAge).toBeLessThanOrEqual(600);
    const expires = Date.parse(attributes.find((a) => a.startsWith('Expires='))!.slice(8));
    expect(Math.abs(expires - (Date.now() + 600_000))).toBeLessThan(60_000);
  });

  it('is Secure over HTTPS behind a trusted proxy (secure: auto honours trustProxy), and not for an untrusted one', async () => {
    const trusted = await app(new MemoryStore(), {}, { trustProxy: 'loopback' });
    const viaProxy = await new Browser(trusted.url).get('/visits', { headers: { 'x-forwarded-proto': 'https' } });
    expect(viaProxy.cookies[0]!.split('; ')).toContain('Secure');
    const untrusted = await app(new MemoryStore());
    const spoofed = await new Browser(untrusted.url).get('/visits', { headers: { 'x-forwarded-proto': 'https' } });
    expect(spoofed.cookies[0]!.split('; ')).not.toContain('Secure');
  });

  it('takes its name, path, domain, sameSite, secure and partitioned from the options', async () => {
    const { url } = await app(new MemoryStore(), {
      cookie: { name: '__Host-app', path: '/app', domain: 'example.com', sameSite: 'none', secure: true, partitioned: true, httpOnly: false },
    });
    const r = await new Browser(url, '__Host-app').get('/visits');
    const [pair, ...attributes] = r.cookies[0]!.split('; ');
    expect(pair!.startsWith('__Host-app=')).toBe(true);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/app', 'Domain=example.com', 'Secure', 'SameSite=None', 'Partitioned']));
    expect(attributes).not.toContain('HttpOnly');
  });
});

describe.each(storeKinds)('the cookie of a session changed on every request, with $kind', ({ make }) => {
  it('goes out with the new session, then only when the idle timer moved (once per touchAfter), with the new expiry', async () => {
    const { url } = await app(make(), { idleTimeout: 60_000, touchAfter: 400 });
    const browser = new Browser(url);
    const first = await browser.get('/visits');
    expect(first.cookies).toHaveLength(1);
    const expiresOf = (line: string) => Date.parse(line.split('; ').find((a) => a.startsWith('Expires='))!.slice(8));
    const firstExpires = expiresOf(first.cookies[0]!);
    // Changes within touchAfter: stored (the counter goes up), the cookie stays as it is.
    const second = await browser.get('/visits');
    expect(second.body.visits).toBe(2);
    expect(second.cookies).toEqual([]);
    // After touchAfter, the next change moves the idle timer, and the cookie's expiry with it.
    await sleep(1100);
    const third = await browser.get('/visits');
    expect(third.body).toMatchObject({ visits: 3, id: first.body.id });
    expect(third.cookies).toHaveLength(1);
    expect(expiresOf(third.cookies[0]!)).toBeGreaterThan(firstExpires);
    expect(third.cookies[0]!.split('; ')[0]).toBe(first.cookies[0]!.split('; ')[0]); // same id, same signature
  });
});

describe.each(storeKinds)('a cookie the server did not issue, with $kind', ({ make }) => {
  const cases: Array<[string, (value: string) => string]> = [
    ['a tampered signature', (v) => `${v.slice(0, -1)}${v.endsWith('A') ? 'B' : 'A'}`],
    ['a tampered id', (v) => `${v[0] === 'a' ? 'b' : 'a'}${v.slice(1)}`],
    ['a truncated cookie', (v) => v.slice(0, -5)],
    ['extra bytes after the signature', (v) => `${v}xyz`],
    ['an id without a signature', (v) => v.slice(0, 22)],
    ['garbage', () => 'not-a-session%20at-all'],
  ];
  for (const [what, mangle] of cases) {
    it(`begins a new session without touching the store for ${what}`, async () => {
      const store = new CountingStore(make());
      const { url } = await app(store);
      const { cookie, id } = await established(url);
      store.calls = [];
      const browser = new Browser(url);
      browser.cookie = mangle(cookie);
      const r = await browser.get('/visits');
      expect(r.status).toBe(200);
      expect(r.body.visits).toBe(1);
      expect(r.body.isNew).toBe(true);
      expect(r.body.id).not.toBe(id);
      // Only the new session was written: no read of the id the cookie named.
      expect(store.calls).toEqual(['set']);
    });
  }

  it('gets a fresh id for a well-signed id the store does not know', async () => {
    const store = new CountingStore(make());
    const { url } = await app(store);
    const unknown = randomBytes(16).toString('base64url');
    const browser = new Browser(url);
    browser.cookie = sign(unknown, SECRET);
    const r = await browser.get('/visits');
    expect(r.body).toMatchObject({ visits: 1, isNew: true });
    expect(r.body.id).not.toBe(unknown);
    expect(browser.cookie!.startsWith(`${r.body.id}.`)).toBe(true);
    expect(store.calls).toEqual(['get', 'set']);
  });

  it('accepts a cookie signed with a retired secret and signs it again with the current one', async () => {
    const store = make();
    const before = await app(store, { secret: OLD_SECRET });
    const { cookie, id } = await established(before.url);
    await before.app.close();
    // Rotation: the new secret first, the old one kept to verify.
    const after = await app(store, { secret: [SECRET, OLD_SECRET] });
    const browser = new Browser(after.url);
    browser.cookie = cookie;
    const read = await browser.get('/read');
    expect(read.body).toMatchObject({ id, isNew: false, data: { visits: 1 } });
    expect(read.cookies).toHaveLength(1);
    expect(browser.cookie).toBe(sign(id, SECRET));
    // Once the old secret is dropped, the old cookie no longer opens the session, the new one does.
    const only = await app(store, { secret: SECRET });
    const renewed = new Browser(only.url);
    renewed.cookie = browser.cookie;
    expect((await renewed.get('/visits')).body).toMatchObject({ id, visits: 2 });
    const stale = new Browser(only.url);
    stale.cookie = cookie;
    expect((await stale.get('/visits')).body).toMatchObject({ visits: 1, isNew: true });
  });

  it('is not fooled by a second cookie of the same name ahead of the real one (the first one counts)', async () => {
    const { url } = await app(make());
    const { cookie, id } = await established(url);
    const text = await rawGet(url, '/read', `sid=forged; sid=${cookie}`);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).not.toContain(id);
  });

  it('fixation: the id from before regenerate() is dead', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: make() });
    a.post('/login', async (req, res) => {
      await req.session.start();
      await req.session.regenerate();
      req.session.set('user', 'ana');
      res.send('in');
    });
    a.get('/whoami', async (req, res) => {
      await req.session.start();
      res.json({ user: req.session.get('user') ?? null, id: req.session.id });
    });
    a.get('/visit', async (req, res) => {
      await req.session.start();
      req.session.set('seen', true);
      res.json({ id: req.session.id });
    });
    const { port } = await a.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    // The attacker gets a session and plants its cookie in the victim's browser.
    const attacker = new Browser(url);
    const planted = (await attacker.get('/visit')).body.id;
    const victim = new Browser(url);
    victim.cookie = attacker.cookie;
    await victim.post('/login');
    expect(victim.cookie).not.toBe(attacker.cookie);
    expect((await victim.get('/whoami')).body.user).toBe('ana');
    const replay = await attacker.get('/whoami');
    expect(replay.body.user).toBeNull();
    expect(replay.body.id).not.toBe(planted);
  });
});

describe('lazy sessions', () => {
  it('costs nothing on a route that never starts the session: no store call, no Set-Cookie', async () => {
    const store = new CountingStore();
    const { url } = await app(store);
    const { cookie } = await established(url);
    store.calls = [];
    const withCookie = new Browser(url);
    withCookie.cookie = cookie;
    const tampered = new Browser(url);
    tampered.cookie = `${cookie}garbage`;
    for (const browser of [withCookie, tampered, new Browser(url)]) {
      const r = await browser.get('/none');
      expect(r.body).toBe('no session here');
      expect(r.cookies).toEqual([]);
    }
    expect(store.calls).toEqual([]);
  });

  it('does not write or send a cookie for a session that was read but not changed, between touches', async () => {
    const store = new CountingStore();
    const { url } = await app(store);
    const browser = new Browser(url);
    await browser.get('/visits');
    store.calls = [];
    const r = await browser.get('/read');
    expect(r.body.data).toEqual({ visits: 1 });
    expect(r.cookies).toEqual([]);
    expect(store.calls).toEqual(['get']);
  });

  it('touches a read session at most once per touchAfter, and then sends the cookie again', async () => {
    const store = new CountingStore();
    const { url } = await app(store, { idleTimeout: 60_000, touchAfter: 200 });
    const browser = new Browser(url);
    await browser.get('/visits');
    store.calls = [];
    await new Promise((r) => setTimeout(r, 300));
    const touched = await browser.get('/read');
    expect(store.calls).toEqual(['get', 'touch']);
    expect(touched.cookies).toHaveLength(1);
  });
});

describe('session options', () => {
  it('refuses a secret shorter than 32 characters at start-up, with a message saying what to do', async () => {
    const a = server();
    await expect(a.register(session, { secret: 'too short' })).rejects.toThrow(/at least 32 characters \(got 9 characters\).*openssl rand/);
    await expect(server().register(session, { secret: [SECRET, 'short'] })).rejects.toMatchObject({
      code: SessionErrorCodes.INVALID_OPTION,
      message: expect.stringContaining('secret #2'),
    });
    await expect(server().register(session, { secret: undefined as never })).rejects.toThrow(/got undefined/);
    await expect(server().register(session, { secret: [] })).rejects.toThrow(/at least 32 characters/);
    // An unset retired secret (OLD_SESSION_SECRET) is skipped.
    await expect(server().register(session, { secret: [SECRET, undefined] })).resolves.toBeUndefined();
  });

  it('refuses other bad options at start-up', async () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ idleTimeout: 0 }, /idleTimeout/],
      [{ absoluteTimeout: -5 }, /absoluteTimeout/],
      [{ idleTimeout: 1000, touchAfter: 1000 }, /touchAfter/],
      [{ store: { get() {} } }, /store must have get/],
      [{ cookie: { name: 'bad name' } }, /cookie.name/],
      [{ cookie: { path: '/a;b' } }, /cookie.path/],
      [{ cookie: { domain: 'a\r\nb' } }, /cookie.domain/],
      [{ cookie: { sameSite: 'none', secure: false } }, /needs cookie.secure/],
      [{ cookie: { partitioned: true, secure: false } }, /needs cookie.secure/],
      [{ cookie: { sameSite: 'sometimes' } }, /sameSite/],
    ];
    for (const [options, message] of bad) {
      await expect(server().register(session, { secret: SECRET, ...options } as never)).rejects.toThrow(message);
    }
    const twice = server();
    await twice.register(session, { secret: SECRET });
    await expect(twice.register(session, { secret: SECRET })).rejects.toThrow(/already registered/);
  });

  it('fails listen() when the plugin failed at registration', async () => {
    const a = server();
    a.register(session, { secret: 'short' }).catch(() => {});
    await expect(a.listen(0, '127.0.0.1')).rejects.toMatchObject({ code: SessionErrorCodes.INVALID_OPTION });
  });
});
