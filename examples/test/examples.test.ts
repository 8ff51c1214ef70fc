/**
 * The small examples (hello, session, static, upload, ws), each run as a user runs it: its own
 * process, started with `node --import tsx`, on a port of its own (PORT=0), driven over real
 * sockets, then stopped with SIGTERM: `closeOnSignals` must finish the shutdown and exit 0.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connect, type Running, run, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';

const EXAMPLES = fileURLToPath(new URL('..', import.meta.url));

/** Starts `examples/<name>.ts`; resolves once it prints its address. */
async function start(name: string, env: Record<string, string> = {}): Promise<Running & { url: string }> {
  const running = run(new URL(`../${name}.ts`, import.meta.url), { PORT: '0', HOST: '127.0.0.1', ...env }, { cwd: EXAMPLES });
  const [, port] = await running.waitFor(/(?:http|ws):\/\/127\.0\.0\.1:(\d+)/, 60_000);
  return { ...running, url: `http://127.0.0.1:${port}` };
}

/** Sends SIGTERM and resolves with the exit code. */
async function stop(running: Running): Promise<number | null> {
  running.proc.kill('SIGTERM');
  const { code, signal } = await running.exited;
  expect(signal, running.output()).toBeNull();
  return code;
}

describe('examples/hello.ts', () => {
  it('answers its routes and exits 0 on SIGTERM', async () => {
    const app = await start('hello');
    const hi = await fetch(`${app.url}/`);
    expect(hi.status).toBe(200);
    expect(hi.headers.get('x-powered-by')).toBe('velox');
    expect(await hi.text()).toBe('Hi');
    expect(await (await fetch(`${app.url}/id/7?name=ana`)).text()).toBe('7 ana');
    const echo = await fetch(`${app.url}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(await echo.json()).toEqual({ a: [1, 2] });
    expect(await stop(app)).toBe(0);
  });
});

describe('examples/session.ts', () => {
  it('counts visits, logs in with a new id, logs out, and starts no session where none is used', async () => {
    const app = await start('session');
    const plain = await fetch(`${app.url}/`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('set-cookie')).toBeNull();

    const first = await fetch(`${app.url}/visits`);
    expect(await first.json()).toEqual({ visits: 1 });
    let cookie = first.headers.get('set-cookie')!.split(';')[0]!;
    expect(cookie).toMatch(/^sid=/);
    expect(await (await fetch(`${app.url}/visits`, { headers: { cookie } })).json()).toEqual({ visits: 2 });

    const login = await fetch(`${app.url}/login`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=ana',
      redirect: 'manual',
    });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe('/me');
    const before = cookie;
    cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect(cookie).not.toBe(before); // regenerated
    expect(await (await fetch(`${app.url}/me`, { headers: { cookie } })).json()).toEqual({ user: 'ana', visits: 2 });
    expect((await fetch(`${app.url}/me`, { headers: { cookie: before } })).status).toBe(401); // the old id is dead

    const logout = await fetch(`${app.url}/logout`, { method: 'POST', headers: { cookie } });
    expect(await logout.text()).toBe('bye');
    expect((await fetch(`${app.url}/me`, { headers: { cookie } })).status).toBe(401);
    expect(await stop(app)).toBe(0);
  });
});

describe('examples/static.ts', () => {
  it('serves the site with validators, revalidates with 304, keeps its API route, and refuses traversal', async () => {
    const app = await start('static');
    const page = await fetch(`${app.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<html');
    const etag = page.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect((await fetch(`${app.url}/`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const css = await fetch(`${app.url}/css/site.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=60');
    expect((await fetch(`${app.url}/docs/`)).status).toBe(200);
    expect(typeof (await (await fetch(`${app.url}/api/time`)).json()).now).toBe('string');
    for (const path of ['/%2e%2e/package.json', '/..%2fpackage.json', '/static.ts']) {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
    }
    expect(await stop(app)).toBe(0);
  });
});

describe('examples/upload.ts', () => {
  it('stores an upload, refuses an oversize file with 413 and a code, and removes its directory on SIGTERM', async () => {
    const app = await start('upload');
    const dir = /files go to (\S+)\)/.exec(app.output())![1]!;
    expect(existsSync(dir)).toBe(true);

    const form = new FormData();
    form.set('title', 'Holiday');
    form.set('photo', new Blob([Buffer.alloc(1000, 7)], { type: 'image/png' }), '../../etc/beach.png');
    const ok = await fetch(`${app.url}/upload`, { method: 'POST', body: form });
    expect(ok.status).toBe(201);
    const body = await ok.json();
    expect(body.fields).toEqual({ title: 'Holiday' });
    expect(body.files).toHaveLength(1);
    expect(body.files[0]).toMatchObject({ field: 'photo', name: 'beach.png', type: 'image/png', size: 1000 });
    expect(body.files[0].path.startsWith(dir)).toBe(true);
    expect(existsSync(body.files[0].path)).toBe(true);

    const big = new FormData();
    big.set('photo', new Blob([Buffer.alloc(5 * 1024 * 1024 + 1)]), 'big.bin');
    const refused = await fetch(`${app.url}/upload`, { method: 'POST', body: big });
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ error: 'Files are limited to 5 MiB', code: 'VELOX_ERR_MULTIPART_FILE_TOO_LARGE' });

    const notMultipart = await fetch(`${app.url}/upload`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(notMultipart.status).toBe(415);

    expect(await stop(app)).toBe(0);
    expect(existsSync(dir)).toBe(false); // its onClose hook ran
  });
});

describe('examples/ws.ts', () => {
  it('echoes, fans a room out to everyone but the sender, publishes from HTTP, and closes sockets with 1001 on SIGTERM', async () => {
    const app = await start('ws');
    const ws = app.url.replace('http', 'ws');
    const echo = await connect(`${ws}/echo`);
    echo.send('ping');
    echo.send(Buffer.from([1, 2, 3]));
    await until(() => echo.inbox.length === 2, 'two echoes');
    expect(echo.inbox[0]).toMatchObject({ text: 'ping', binary: false });
    expect(echo.inbox[1]!.binary).toBe(true);
    expect([...echo.inbox[1]!.data]).toEqual([1, 2, 3]);

    await expect(connect(`${ws}/rooms/lobby`)).rejects.toThrow('HTTP 400'); // no ?name=
    const ann = await connect(`${ws}/rooms/lobby?name=ann`);
    const bob = await connect(`${ws}/rooms/lobby?name=bob`);
    const eve = await connect(`${ws}/rooms/other?name=eve`);
    await until(() => ann.inbox.some((m) => m.text.includes('"joined"')), 'ann sees bob join');
    ann.send('hello');
    await until(() => bob.inbox.some((m) => m.text.includes('hello')), 'bob gets it');
    const notice = await fetch(`${app.url}/rooms/lobby/notice`, { method: 'POST', body: 'restarting' });
    expect(await notice.json()).toEqual({ reached: 2 });
    await until(() => ann.inbox.some((m) => m.text.includes('restarting')), 'the notice');
    expect(ann.inbox.some((m) => m.text.includes('"hello"'))).toBe(false); // never the sender
    expect(eve.inbox.some((m) => m.text.includes('hello') || m.text.includes('restarting'))).toBe(false); // another room

    const closes = [echo, ann, bob, eve].map((c) => c.closedWith);
    expect(await stop(app)).toBe(0);
    for (const closed of await Promise.all(closes)) expect(closed.code).toBe(1001);
  });
});
