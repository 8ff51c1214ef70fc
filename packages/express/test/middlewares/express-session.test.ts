import { later, listen, REDIS_URL, redisPrefix } from '@velox/test-utils';
import { RedisStore } from 'connect-redis';
import session from 'express-session';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { cookiesOf, server } from './helpers.ts';

declare module '@velox/core' {
  interface Request {
    session?: any;
    sessionID?: string;
  }
}

/** A counter per session: GET / increments and answers the count; GET /logout destroys the session. */
function counterRoutes(app: ReturnType<typeof server>): void {
  app.get('/', (req, res) => {
    req.session.views = (req.session.views ?? 0) + 1;
    res.json({ views: req.session.views });
  });
  app.get('/logout', (req, res, next) => {
    req.session.destroy((err: unknown) => (err ? next(err) : res.send('bye')));
  });
}

async function views(url: string, cookie?: string): Promise<{ views: number; cookie: string | undefined }> {
  const r = await fetch(url, { headers: cookie ? { cookie } : {} });
  const body = (await r.json()) as { views: number };
  return { views: body.views, cookie: cookiesOf(r)[0] ?? cookie };
}

describe('express-session', () => {
  it('MemoryStore: counts per session, signs the cookie, starts over on a forged cookie, and destroys', async () => {
    const app = server();
    app.use(session({ secret: 'keyboard cat', resave: false, saveUninitialized: false }));
    counterRoutes(app);
    const url = await listen(app);
    const one = await views(url);
    expect(one.views).toBe(1);
    expect(one.cookie).toMatch(/^connect\.sid=s%3A/);
    const two = await views(url, one.cookie);
    expect(two.views).toBe(2);
    // A cookie signed with another secret is ignored (a new session), not an error.
    const forged = await views(url, 'connect.sid=s%3Aforged.c2lnbmF0dXJl');
    expect(forged.views).toBe(1);
    expect((await fetch(`${url}/logout`, { headers: { cookie: one.cookie! } })).status).toBe(200);
    expect((await views(url, one.cookie)).views).toBe(1);
  });

  it('sets secure cookies only over TLS or from a trusted proxy saying https', async () => {
    const app = server({ trustProxy: 'loopback' });
    app.use(session({ secret: 's', resave: false, saveUninitialized: true, proxy: true, cookie: { secure: true } }));
    app.get('/', (req, res) => res.send('ok'));
    const url = await listen(app);
    expect(cookiesOf(await fetch(url))).toEqual([]);
    const viaProxy = await fetch(url, { headers: { 'x-forwarded-proto': 'https' } });
    expect(viaProxy.headers.getSetCookie()[0]).toMatch(/; Secure/);
  });

  it('connect-redis with node-redis: stores the session in Redis under its prefix, and removes it on destroy', async () => {
    const client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    await client.connect();
    later(() => client.quit());
    const prefix = redisPrefix('velox-compat:session');
    const app = server();
    app.use(session({ store: new RedisStore({ client, prefix }), secret: 'keyboard cat', resave: false, saveUninitialized: false }));
    counterRoutes(app);
    const url = await listen(app);
    const one = await views(url);
    const two = await views(url, one.cookie);
    expect([one.views, two.views]).toEqual([1, 2]);
    const keys = await client.keys(`${prefix}*`);
    expect(keys).toHaveLength(1);
    expect(JSON.parse((await client.get(keys[0]!))!)).toMatchObject({ views: 2 });
    expect(await client.ttl(keys[0]!)).toBeGreaterThan(0);
    await (await fetch(`${url}/logout`, { headers: { cookie: one.cookie! } })).text();
    expect(await client.keys(`${prefix}*`)).toEqual([]);
  });
});
