/**
 * The @velox/fetch examples (examples/fetch/): Hono, H3, itty-router and Elysia on serve(), and a
 * Hono API mounted in a Velox app, each run as its own process (PORT=0), driven over real
 * sockets, then stopped with SIGTERM (closeOnSignals must exit 0).
 */
import { fileURLToPath } from 'node:url';
import { connect, type Running, run, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';

const EXAMPLES = fileURLToPath(new URL('..', import.meta.url));

async function start(name: string): Promise<Running & { url: string }> {
  const running = run(new URL(`../fetch/${name}.ts`, import.meta.url), { PORT: '0', HOST: '127.0.0.1' }, { cwd: EXAMPLES });
  const [, port] = await running.waitFor(/http:\/\/127\.0\.0\.1:(\d+)/, 60_000);
  return { ...running, url: `http://127.0.0.1:${port}` };
}

async function stop(running: Running): Promise<number | null> {
  running.proc.kill('SIGTERM');
  const { code, signal } = await running.exited;
  expect(signal, running.output()).toBeNull();
  return code;
}

describe('examples/fetch', () => {
  for (const [name, greeting] of [
    ['hono', 'Hi from Hono'],
    ['h3', 'Hi from H3'],
    ['itty', 'Hi from itty-router'],
    ['elysia', 'Hi from Elysia'],
  ] as const) {
    it(`${name}.ts answers text, params and query, a JSON echo, and exits 0 on SIGTERM`, async () => {
      const app = await start(name);
      expect(await (await fetch(`${app.url}/`)).text()).toBe(greeting);
      expect(await (await fetch(`${app.url}/id/7?name=ana`)).json()).toEqual({ id: '7', name: 'ana' });
      const echo = await fetch(`${app.url}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
      expect(await echo.json()).toEqual({ a: [1, 2] });
      if (name === 'hono') expect(await (await fetch(`${app.url}/ip`)).text()).toBe('127.0.0.1');
      expect(await stop(app)).toBe(0);
    });
  }

  it('mounted.ts serves Velox routes and the Hono API side by side', async () => {
    const app = await start('mounted');
    expect(await (await fetch(`${app.url}/`)).text()).toMatch(/^Velox here/);
    expect(await (await fetch(`${app.url}/api/hello/ana`)).json()).toEqual({ hello: 'ana' });
    expect(await (await fetch(`${app.url}/api/echo`, { method: 'POST', body: 'back' })).text()).toBe('back');
    expect(await stop(app)).toBe(0);
  });

  it('hono-ws.ts relays a message to the others in a room, and exits 0 on SIGTERM', async () => {
    const app = await start('hono-ws');
    const ws = app.url.replace('http:', 'ws:');
    const a = await connect(`${ws}/room/lobby`);
    const b = await connect(`${ws}/room/lobby`);
    await until(() => a.inbox.length === 1 && b.inbox.length === 1, 'the joins');
    expect(a.inbox[0]!.text).toBe('joined room:lobby');
    a.send('hello');
    await until(() => b.inbox.length === 2, 'the relayed message');
    expect(b.inbox[1]!.text).toBe('hello');
    a.close();
    b.close();
    expect(await stop(app)).toBe(0);
  });
});
