import { fileURLToPath } from 'node:url';
import { exitCode, freePort, listen, ownRedis, REDIS_URL, run, sleep, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { RedisStore, SessionErrorCodes, session } from '../src/index.ts';
import { type Answer, Browser, CountingStore, gate, SECRET, server } from './helpers.ts';

/** Routes shared by the fault tests; `hold` makes /slow wait after start() until the test opens it. */
async function faultApp(store: ConstructorParameters<typeof CountingStore>[0] | CountingStore) {
  const a = server();
  await a.register(session, { secret: SECRET, store: store as never, touchAfter: 0 });
  const state = { hold: gate(), reached: false };
  a.get('/visits', async (req, res) => {
    await req.session.start();
    const visits = (Number(req.session.get('visits')) || 0) + 1;
    req.session.set('visits', visits);
    res.json({ visits, id: req.session.id });
  });
  a.post('/slow', async (req, res) => {
    await req.session.start();
    state.reached = true;
    await state.hold.promise;
    req.session.set('order', 'placed');
    res.json({ ok: true });
  });
  a.post('/logout', async (req, res) => {
    await req.session.start();
    await req.session.destroy();
    res.send('bye');
  });
  a.post('/login', async (req, res) => {
    await req.session.start();
    await req.session.regenerate();
    res.send('hi');
  });
  a.get('/none', (req, res) => res.send('fine'));
  return { app: a, url: await listen(a), state };
}

describe('the store down', () => {
  it('answers 503 VELOX_ERR_SESSION_STORE on start() (never "no session"), and works again when the store is back', async () => {
    const store = new CountingStore();
    const { url } = await faultApp(store);
    const browser = new Browser(url);
    expect((await browser.get('/visits')).body.visits).toBe(1);
    store.failing = true;
    const down = await browser.get('/visits');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ statusCode: 503, code: SessionErrorCodes.STORE });
    expect(down.cookies).toEqual([]);
    // Routes without sessions don't care.
    expect((await browser.get('/none')).body).toBe('fine');
    store.failing = false;
    expect((await browser.get('/visits')).body.visits).toBe(2);
  });

  it('turns the 200 into a 503 when the write fails, so the client knows its change was not kept', async () => {
    const store = new CountingStore();
    const { url, state } = await faultApp(store);
    const browser = new Browser(url);
    await browser.get('/visits');
    const cookie = browser.cookie;
    const pending = browser.post('/slow');
    await until(() => state.reached, 'the handler to start', 10_000);
    store.failing = true;
    state.hold.open();
    const r = await pending;
    expect(r.status).toBe(503);
    expect(r.body.code).toBe(SessionErrorCodes.STORE);
    expect(r.cookies).toEqual([]);
    expect(browser.cookie).toBe(cookie);
  });

  it('answers 503 when destroy() or regenerate() cannot reach the store', async () => {
    const store = new CountingStore();
    const { url } = await faultApp(store);
    const browser = new Browser(url);
    await browser.get('/visits');
    // The load works, the destroy does not.
    store.destroy = () => Promise.reject(new Error('down'));
    expect((await browser.post('/logout')).status).toBe(503);
    expect((await browser.post('/login')).status).toBe(503);
    // Still the same session: nothing was lost.
    expect((await browser.get('/visits')).body.visits).toBe(2);
  });
});

describe('RedisStore with Redis stopped mid-test', () => {
  it('answers 503 while Redis is down, on start() and on the write, and recovers without a restart', async () => {
    const redis = await ownRedis();
    const { url, state } = await faultApp(new RedisStore({ url: redis.url, logger: false, reconnectDelay: { min: 20, max: 200 } }));
    const browser = new Browser(url);
    expect((await browser.get('/visits')).body.visits).toBe(1);
    expect((await browser.get('/visits')).body.visits).toBe(2);

    // Down on the write: the handler loaded the session, then Redis went away.
    const pending = browser.post('/slow');
    await until(() => state.reached, 'the handler to start', 10_000);
    await redis.stop();
    state.hold.open();
    const lost = await pending;
    expect(lost.status).toBe(503);
    expect(lost.body.code).toBe(SessionErrorCodes.STORE);

    // Down on start().
    const down = await browser.get('/visits');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: SessionErrorCodes.STORE, message: expect.stringContaining('unavailable') });
    expect((await browser.get('/none')).body).toBe('fine');

    // Back: the same server works again (this Redis kept nothing, so a new session begins).
    await redis.start();
    await until(async () => (await browser.get('/visits')).status === 200, 'sessions to work again', 20_000);
    expect((await browser.get('/visits')).status).toBe(200);
  });

  it('is connected by the time listen() resolves: the very first request works', async () => {
    const a = server();
    await a.register(session, { secret: SECRET, store: new RedisStore({ url: REDIS_URL, logger: false }) });
    a.get('/first', async (req, res) => {
      await req.session.start();
      req.session.set('first', true);
      res.send('ok');
    });
    const url = await listen(a);
    const r = await new Browser(url).get('/first');
    expect(r.status).toBe(200);
    expect(r.cookies).toHaveLength(1);
  });

  it('fails listen() with VELOX_ERR_REDIS_CONNECT when Redis cannot be reached, with failFast: true', async () => {
    const port = await freePort();
    const a = server();
    a.register(session, { secret: SECRET, store: new RedisStore({ url: `redis://127.0.0.1:${port}`, connectTimeout: 300, failFast: true }) }).catch(
      () => {},
    );
    await expect(a.listen(0, '127.0.0.1')).rejects.toMatchObject({ code: 'VELOX_ERR_REDIS_CONNECT' });
  });
});

describe('RedisStore with Redis not up yet at start-up', () => {
  it('starts and serves, answers 503 VELOX_ERR_SESSION_STORE on session routes, and works once Redis is up, without a restart', async () => {
    const port = await freePort();
    const { app, url } = await faultApp(new RedisStore({ url: `redis://127.0.0.1:${port}`, logger: false, reconnectDelay: { min: 20, max: 200 } }));
    expect(app.listening).toBe(true);
    const browser = new Browser(url);
    // Routes without a session do not care.
    const none = await browser.get('/none');
    expect(none.status).toBe(200);
    expect(none.body).toBe('fine');
    const down = await browser.get('/visits');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ statusCode: 503, code: SessionErrorCodes.STORE });
    expect(down.cookies).toEqual([]);

    // Redis comes up on that port: the same server uses it, with no restart.
    const redis = await ownRedis({ port, started: false });
    await redis.start();
    let up: Answer | undefined;
    await until(async () => (up = await browser.get('/visits')).status === 200, 'sessions to work', 20_000);
    if (up === undefined) throw new Error('no answer');
    expect(up.body.visits).toBe(1);
    expect(up.cookies).toHaveLength(1);
    // The value is in that Redis, and the next request finds it.
    const check = new RedisStore({ url: redis.url, logger: false });
    await check.open();
    try {
      expect((await check.get(up.body.id))?.data).toEqual({ visits: 1 });
    } finally {
      await check.close();
    }
    expect((await browser.get('/visits')).body.visits).toBe(2);
  });

  it('rejects start() itself with 503 VELOX_ERR_SESSION_STORE while the store is down, for a new visitor that stores nothing', async () => {
    const port = await freePort();
    const a = server();
    await a.register(session, { secret: SECRET, store: new RedisStore({ url: `redis://127.0.0.1:${port}`, logger: false, reconnectDelay: { min: 20, max: 200 } }) });
    let started = 0;
    a.get('/start', async (req, res) => {
      await req.session.start();
      started++;
      res.send('started');
    });
    const browser = new Browser(await listen(a));
    const down = await browser.get('/start');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ statusCode: 503, code: SessionErrorCodes.STORE });
    expect(started).toBe(0);
    const redis = await ownRedis({ port, started: false });
    await redis.start();
    await until(async () => (await browser.get('/start')).status === 200, 'start() to resolve', 20_000);
    expect(started).toBe(1);
  });

  it('logs through the server logger once that the store is unreachable and once that it is up, not once per attempt', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const record = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
    const a = server({ logger: { error: record, warn: record, info: record } });
    // An attempt every 20-40 ms: many fail before Redis comes up.
    await a.register(session, { secret: SECRET, store: new RedisStore({ url: `redis://127.0.0.1:${port}`, reconnectDelay: { min: 20, max: 40 } }) });
    a.get('/visits', async (req, res) => {
      await req.session.start();
      req.session.set('visits', 1);
      res.send('ok');
    });
    const browser = new Browser(await listen(a));
    expect((await browser.get('/visits')).status).toBe(503);
    await sleep(500);
    const redis = await ownRedis({ port, started: false });
    await redis.start();
    await until(async () => (await browser.get('/visits')).status === 200, 'sessions to work', 20_000);
    await sleep(100);
    expect(lines.filter((l) => l.includes('unreachable'))).toEqual([
      `[velox/redis] session store: Redis at redis://127.0.0.1:${port} is unreachable (connect ECONNREFUSED 127.0.0.1:${port}); retrying in the background`,
    ]);
    expect(lines.filter((l) => l.includes('connected'))).toEqual([`[velox/redis] session store: connected to Redis at redis://127.0.0.1:${port}`]);
    // The 503 itself is the error handler's to log; nothing else came from the store.
    expect(lines.filter((l) => l.startsWith('[velox/redis]'))).toHaveLength(2);
  });
});

describe('app.close()', () => {
  it('closes what the plugin opened: the process exits by itself (MemoryStore and RedisStore)', async () => {
    const entry = JSON.stringify(fileURLToPath(new URL('../src/index.ts', import.meta.url)));
    const core = JSON.stringify(fileURLToPath(new URL('../node_modules/@velox/core/src/index.ts', import.meta.url)));
    const script = `
      import { Server } from ${core};
      import { session, RedisStore } from ${entry};
      for (const store of [undefined, new RedisStore({ url: ${JSON.stringify(REDIS_URL)}, prefix: 'velox-session-exit:' })]) {
        const app = new Server();
        await app.register(session, { secret: ${JSON.stringify(SECRET)}, store, idleTimeout: 5000 });
        app.get('/', async (req, res) => { await req.session.start(); req.session.set('x', 1); res.send('ok'); });
        const { port } = await app.listen(0, '127.0.0.1');
        const r = await fetch('http://127.0.0.1:' + port + '/');
        if (r.status !== 200 || !r.headers.get('set-cookie')) throw new Error('no session');
        await app.close();
      }
      console.log('CLOSED');
    `;
    const child = run({ script }, {}, { cwd: new URL('..', import.meta.url) });
    const code = await exitCode(child, 20_000);
    expect(child.output()).toContain('CLOSED');
    expect(code).toBe(0);
  }, 30_000);

  it('lets the process exit by itself when Redis never came up (the store stops retrying on close)', async () => {
    const port = await freePort();
    const entry = JSON.stringify(fileURLToPath(new URL('../src/index.ts', import.meta.url)));
    const core = JSON.stringify(fileURLToPath(new URL('../node_modules/@velox/core/src/index.ts', import.meta.url)));
    const script = `
      import { Server } from ${core};
      import { session, RedisStore } from ${entry};
      const app = new Server({ logger: false });
      await app.register(session, { secret: ${JSON.stringify(SECRET)}, store: new RedisStore({ url: 'redis://127.0.0.1:${port}' }) });
      app.get('/', async (req, res) => { await req.session.start(); req.session.set('x', 1); res.send('ok'); });
      const { port } = await app.listen(0, '127.0.0.1');
      const r = await fetch('http://127.0.0.1:' + port + '/');
      if (r.status !== 503) throw new Error('expected 503, got ' + r.status);
      await app.close();
      console.log('CLOSED');
    `;
    const child = run({ script }, {}, { cwd: new URL('..', import.meta.url) });
    const code = await exitCode(child, 20_000);
    expect(child.output()).toContain('CLOSED');
    expect(code).toBe(0);
  }, 30_000);
});
