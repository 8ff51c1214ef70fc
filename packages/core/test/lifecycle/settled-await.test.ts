// A handler that awaits work already settled (a session in memory, a cache hit) answers before
// uWS's callback returns: dispatch.ts waits for the handler's microtasks there instead of copying
// the request and registering an abort handler. These tests cover both sides of that path, and
// what this uWS build must do for it (learned at run time, checked here).
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { settlesInUwsCallback } from '../../src/dispatch.ts';
import { server } from '../helpers.ts';

/** Sends raw bytes and resolves with everything the server sent until it closed (or `ms` passed). */
function exchange(port: number, bytes: string, ms = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('error', reject);
    const timer = setTimeout(() => socket.end(), ms);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

describe('a handler that awaits settled work', () => {
  it('is answered inside the uWS callback on this uWS build, and reads the request before and after its awaits', async () => {
    const app = server();
    app.get('/item/:id', async (req, res) => {
      const before = req.get('x-test');
      await null;
      await Promise.resolve();
      res.json({ id: req.params.id, before, after: req.get('x-test'), q: req.query.q, path: req.path, ip: req.ip });
    });
    const url = await listen(app);
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${url}/item/${i}?q=x${i}`, { headers: { 'x-test': `t${i}` } });
      expect(await r.json()).toEqual({ id: String(i), before: `t${i}`, after: `t${i}`, q: `x${i}`, path: `/item/${i}`, ip: '127.0.0.1' });
    }
    // uWS.js v20.51 (@based/uws 6.0.1) runs a handler's microtasks, and the ticks they queue,
    // before its callback returns; Velox learns it from the first handler that went async.
    expect(settlesInUwsCallback()).toBe(true);
  });

  it('goes async when the handler waits for a timer: the request stays readable and the answer arrives', async () => {
    const app = server();
    app.get('/slow', async (req, res) => {
      await null;
      await sleep(30);
      res.json({ header: req.get('x-test'), query: req.query.q, url: req.url });
    });
    const url = await listen(app);
    const r = await fetch(`${url}/slow?q=1`, { headers: { 'x-test': 'kept' } });
    expect(await r.json()).toEqual({ header: 'kept', query: '1', url: '/slow?q=1' });
  });

  it('answers after a chain of awaits longer than the turns it waits for (the tick decides)', async () => {
    const app = server();
    app.get('/chain', async (_req, res) => {
      let n = 0;
      for (let i = 0; i < 25; i++) n += await Promise.resolve(1);
      res.send(String(n));
    });
    const url = await listen(app);
    expect(await (await fetch(`${url}/chain`)).text()).toBe('25');
  });

  it('reads a body started after an await, and a body started before one', async () => {
    const app = server();
    app.post('/after', async (req, res) => {
      await null;
      res.json({ got: await req.json() });
    });
    app.post('/before', async (req, res) => {
      const body = req.text();
      await null;
      res.send(`got ${await body}`);
    });
    const url = await listen(app);
    const after = await fetch(`${url}/after`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await after.json()).toEqual({ got: { a: 1 } });
    const before = await fetch(`${url}/before`, { method: 'POST', body: 'hello' });
    expect(await before.text()).toBe('got hello');
  });

  it('sends an error thrown after an await through the error path, and keeps serving', async () => {
    const app = server();
    app.get('/boom', async () => {
      await null;
      throw new Error('after the await');
    });
    app.get('/ok', async (_req, res) => {
      await null;
      res.send('ok');
    });
    const url = await listen(app);
    expect((await fetch(`${url}/boom`)).status).toBe(500);
    expect(await (await fetch(`${url}/ok`)).text()).toBe('ok');
  });

  it('notices a client that leaves while the handler waits, after it settled into going async', async () => {
    const app = server();
    let closed = 0;
    let released!: () => void;
    const waiting = new Promise<void>((r) => (released = r));
    app.get('/hang', async (_req, res) => {
      res.on('close', () => closed++);
      await null;
      await waiting;
      if (!res.aborted) res.send('late');
    });
    app.get('/ok', (_req, res) => res.send('ok'));
    const url = await listen(app);
    const port = Number(new URL(url).port);
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n'));
    await sleep(50);
    socket.destroy();
    await sleep(50);
    expect(closed).toBe(1);
    released();
    await sleep(10);
    expect(await (await fetch(`${url}/ok`)).text()).toBe('ok');
  });

  it('keeps a response that went async in flight: close() waits for it', async () => {
    const app = server();
    app.get('/slow', async (_req, res) => {
      await null;
      await sleep(150);
      res.send('finished');
    });
    const url = await listen(app);
    const port = Number(new URL(url).port);
    const answer = exchange(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n', 2000);
    await sleep(40);
    await app.close();
    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nfinished$/);
  });
});
