import { connect } from 'node:net';
import { attempt, connect as open, received, start, until } from '@velox/test-utils';
import type { WebSocket as UwsSocket } from '@based/uws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ErrorCodes, type Server } from '../../src/index.ts';
import { server } from '../helpers.ts';

describe('ws() upgrades', () => {
  it('upgrades at once when upgrade() returns the data synchronously', async () => {
    const app = server();
    app.ws<{ n: number }>('/sync', {
      upgrade: () => ({ n: 7 }),
      message: (ws) => void ws.send(String(ws.getUserData().n)),
    });
    const { port } = await start(app);
    const ws = await open(`ws://127.0.0.1:${port}/sync`);
    const got = received(ws);
    ws.send('x');
    await until(() => got.length === 1, 'the reply');
    expect(got[0]!.data).toBe('7');
    ws.close();
  });

  it('answers the status and reason of an upgrade() that throws, and of one that answers itself', async () => {
    const app = server();
    app.ws('/refuse', {
      upgrade: async (req, res) => {
        if (req.query.how === 'throw') throw Object.assign(new Error('Not for you'), { status: 403 });
        res.status(429).send('Slow down');
        return {};
      },
    });
    const { port } = await start(app);
    const thrown = await attempt(`ws://127.0.0.1:${port}/refuse?how=throw`);
    expect(thrown.status).toBe(403);
    expect(JSON.parse(thrown.body)).toMatchObject({ statusCode: 403, message: 'Not for you' });
    expect(await attempt(`ws://127.0.0.1:${port}/refuse?how=answer`)).toEqual({ status: 429, body: 'Slow down' });
  });

  it('drops an upgrade whose client left while upgrade() awaited, and keeps serving', async () => {
    const app = server();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let left = false;
    let opened = 0;
    app.ws('/slow', {
      upgrade: async (req, res) => {
        res.on('close', () => (left = true));
        if (req.query.wait === '1') await gate;
        return {};
      },
      open: () => void opened++,
    });
    const { port } = await start(app);
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.on('connect', r));
    socket.write(
      'GET /slow?wait=1 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await until(() => left, 'the server to see the client leave');
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(opened).toBe(0);
    const ws = await open(`ws://127.0.0.1:${port}/slow`);
    expect(opened).toBe(1);
    ws.close();
  });
});

describe('close() with WebSockets', () => {
  it('ends every open socket with 1001 and waits for close handlers that return a promise', async () => {
    const app = server();
    const order: string[] = [];
    app.ws('/a', {
      close: async (_ws, code) => {
        order.push(`a ${code}`);
        await new Promise((r) => setTimeout(r, 100));
        order.push('a done');
      },
    });
    app.ws('/b', { close: (_ws, code) => void order.push(`b ${code}`) });
    app.addHook('onClose', () => void order.push('onClose'));
    const { port } = await start(app);
    const clients = await Promise.all([open(`ws://127.0.0.1:${port}/a`), open(`ws://127.0.0.1:${port}/b`)]);
    const codes = clients.map((c) => c.closedWith);
    await app.close();
    expect(order).toEqual(['a 1001', 'b 1001', 'a done', 'onClose']);
    expect(await Promise.all(codes)).toEqual([
      { code: 1001, reason: 'Server shutting down' },
      { code: 1001, reason: 'Server shutting down' },
    ]);
  });

  it('stops waiting for a close handler that never settles once the timeout passes', async () => {
    const app = server();
    app.ws('/stuck', { close: () => new Promise<void>(() => {}) });
    const { port } = await start(app);
    const ws = await open(`ws://127.0.0.1:${port}/stuck`);
    const code = ws.closedWith;
    const started = Date.now();
    await app.close({ timeout: 200 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect((await code).code).toBe(1001);
  });

  it('answers 503 to an upgrade that completes after close() began', async () => {
    const app = server();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reached = false;
    app.ws('/late', {
      upgrade: async () => {
        reached = true;
        await gate;
        return {};
      },
    });
    const { port } = await start(app);
    const answer = attempt(`ws://127.0.0.1:${port}/late`);
    await until(() => reached, 'the upgrade to start');
    const closing = app.close({ timeout: 5000 });
    release();
    await closing;
    expect(await answer).toEqual({ status: 503, body: 'The server is shutting down' });
  });
});

describe('WebSocketRoute.setup', () => {
  it('is called with the server and the pattern when the route is added', () => {
    const app = server();
    const calls: Array<[Server, string]> = [];
    app.ws('/s/:id', { setup: (s, pattern) => void calls.push([s, pattern]) });
    expect(calls).toEqual([[app, '/s/:id']]);
    expect(() => app.ws('/bad', { setup: 'no' as never })).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
  });

  it('holds back listen() until an async setup resolves, and makes listen() reject when it fails', async () => {
    const ok = server();
    let done = false;
    ok.ws('/x', {
      setup: async () => {
        await new Promise((r) => setTimeout(r, 50));
        done = true;
      },
    });
    await start(ok);
    expect(done).toBe(true);
    const bad = server();
    bad.ws('/x', { setup: async () => Promise.reject(new Error('cannot serve')) });
    await expect(bad.listen(0, '127.0.0.1')).rejects.toThrow('cannot serve');
    expect(bad.listening).toBe(false);
  });
});

describe('publish()', () => {
  async function pubsub(app: Server) {
    const sockets: UwsSocket<unknown>[] = [];
    app.ws('/t', {
      open: (ws) => {
        sockets.push(ws);
        ws.subscribe('news');
      },
      message: (ws, message) => {
        const text = Buffer.from(message).toString();
        if (text === 'others') app.publish('news', 'from a peer', false, { exclude: ws });
        if (text === 'unsubscribed') {
          ws.unsubscribe('news');
          app.publish('news', 'from an outsider', false, { exclude: ws });
        }
      },
    });
    const { port } = await start(app);
    const clients = [await open(`ws://127.0.0.1:${port}/t`), await open(`ws://127.0.0.1:${port}/t`)];
    return { sockets, clients, inbox: clients.map(received) };
  }

  it('reaches every subscriber, returns how many, and sends bytes as binary and strings as text', async () => {
    const app = server();
    const { clients, inbox } = await pubsub(app);
    expect(app.publish('news', 'hello')).toBe(2);
    expect(app.publish('news', Buffer.from('bytes'))).toBe(2);
    expect(app.publish('news', new DataView(new Uint8Array([104, 105]).buffer))).toBe(2);
    expect(app.publish('news', 'forced binary', true)).toBe(2);
    expect(app.publish('nobody', 'x')).toBe(0);
    await until(() => inbox.every((m) => m.length === 4), 'four messages each');
    for (const m of inbox) {
      expect(m).toEqual([
        { data: 'hello', binary: false },
        { data: 'bytes', binary: true },
        { data: 'hi', binary: true },
        { data: 'forced binary', binary: true },
      ]);
    }
    for (const c of clients) c.close();
  });

  it('skips the excluded socket and counts only the others, also when it has no subscriptions of its own', async () => {
    const app = server();
    const counts: number[] = [];
    app.addHook('onPublish', (topic, message) => void counts.push(typeof message === 'string' ? message.length : -1));
    const { clients, inbox } = await pubsub(app);
    clients[0]!.send('others');
    await until(() => inbox[1]!.length === 1, 'the peer message');
    expect(inbox[0]).toEqual([]);
    expect(inbox[1]).toEqual([{ data: 'from a peer', binary: false }]);
    expect(counts).toEqual(['from a peer'.length]);
    // uWS's own publish from a socket with no subscriptions sends nothing; core's still does.
    clients[0]!.send('unsubscribed');
    await until(() => inbox[1]!.length === 2, 'the outsider message');
    expect(inbox[1]![1]).toEqual({ data: 'from an outsider', binary: false });
    expect(inbox[0]).toEqual([]);
    for (const c of clients) c.close();
  });

  it('runs onPublish hooks unless local is set, and logs a hook that throws, even with no WebSocket route on uWS yet', async () => {
    const errors: unknown[] = [];
    const app = server({ logger: { error: (e: unknown) => void errors.push(e), warn: () => {} } });
    const seen: Array<[string, unknown, boolean]> = [];
    app.addHook('onPublish', (topic, message, isBinary) => void seen.push([topic, message, isBinary]));
    app.addHook('onPublish', () => {
      throw new Error('hook failed');
    });
    expect(app.publish('t', 'a')).toBe(0);
    expect(app.publish('t', 'b', false, { local: true })).toBe(0);
    expect(seen).toEqual([['t', 'a', false]]);
    expect(errors).toEqual([expect.objectContaining({ message: 'hook failed' })]);
  });

  it('compresses with compress: true for a client that negotiated permessage-deflate', async () => {
    const app = server();
    app.ws('/z', { compression: 1 | 256, open: (ws) => void ws.subscribe('big') });
    const { port } = await start(app);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/z`, { perMessageDeflate: true });
    await new Promise((r) => ws.on('open', r));
    const sizes: number[] = [];
    ws.on('message', (data: Buffer) => sizes.push(data.length));
    const before = (ws as unknown as { _socket: { bytesRead: number } })._socket.bytesRead;
    expect(app.publish('big', 'a'.repeat(100_000), false, { compress: true })).toBe(1);
    await until(() => sizes.length === 1, 'the message');
    const wire = (ws as unknown as { _socket: { bytesRead: number } })._socket.bytesRead - before;
    expect(sizes).toEqual([100_000]);
    expect(wire).toBeLessThan(2_000);
    ws.close();
  });

  it('throws a clear error for a topic or message of the wrong type', () => {
    const app = server();
    expect(() => app.publish(1 as never, 'x')).toThrow(/topic string/);
    expect(() => app.publish('t', { a: 1 } as never)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
    expect(() => app.publish('t', null as never)).toThrow(/got null/);
  });
});
