/**
 * Sessions through core's `app.inject()` (no listen()): the round trip a test of an app makes,
 * carrying the cookie of one answer into the next request. Here rather than in core's tests:
 * core cannot depend on @velox/session, which depends on core.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore, session } from '../src/index.ts';
import { SECRET, server } from './helpers.ts';

describe('sessions through app.inject()', () => {
  it('begins a session, and loads it again from the cookie carried to the next inject', async () => {
    const app = server();
    await app.register(session, { secret: SECRET, store: new MemoryStore() });
    app.post('/login', async (req, res) => {
      await req.session.start();
      req.session.set('user', (await req.json()) as { name: string });
      res.json({ isNew: req.session.isNew });
    });
    app.get('/me', async (req, res) => {
      await req.session.start();
      res.json({ user: req.session.get('user') ?? null, isNew: req.session.isNew });
    });

    const login = await app.inject('/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ana' }) });
    expect(await login.json()).toEqual({ isNew: true });
    const cookies = login.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^sid=[^;]+;/);
    expect(cookies[0]).toMatch(/; HttpOnly(;|$)/i);
    const cookie = cookies[0]!.split(';')[0]!;

    expect(await (await app.inject('/me', { headers: { cookie } })).json()).toEqual({ user: { name: 'ana' }, isNew: false });
    // Without the cookie, a new session that knows nobody.
    expect(await (await app.inject('/me')).json()).toEqual({ user: null, isNew: true });
  });
});
