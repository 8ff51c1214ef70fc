import { connect as tcp, type Socket as NetSocket } from 'node:net';
import { connect, sleep, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type SendStatus, type Socket, websocket } from '../src/index.ts';
import { server } from './helpers.ts';

const HANDSHAKE =
  'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';

/** A raw client that completes the handshake and then reads nothing (until `resume()`). */
async function stubbornClient(port: number, path: string): Promise<NetSocket> {
  const socket = tcp(port, '127.0.0.1');
  await new Promise((r) => socket.on('connect', r));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${HANDSHAKE}`);
  await new Promise<void>((resolve) => {
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        socket.off('data', onData);
        socket.pause();
        resolve();
      }
    };
    socket.on('data', onData);
  });
  socket.on('error', () => {});
  return socket;
}

describe('maxPayloadLength', () => {
  it('closes with 1009 for a message over the limit, and lets one at the limit through', async () => {
    const app = server();
    const sizes: number[] = [];
    app.ws('/p', websocket({ maxPayloadLength: 1024, message: (s, m) => void sizes.push(m.byteLength) }));
    const { url } = await start(app, 'ws');
    const ok = await connect(`${url}/p`);
    ok.send(Buffer.alloc(1024));
    await until(() => sizes.length === 1, 'the message at the limit');
    const big = await connect(`${url}/p`);
    big.send(Buffer.alloc(1025));
    expect(await big.closedWith).toEqual({ code: 1009, reason: 'Message over 1024 bytes' });
    const twice = await connect(`${url}/p`);
    twice.send('x'.repeat(2048));
    expect((await twice.closedWith).code).toBe(1009);
    expect(sizes).toEqual([1024]);
    expect(ok.readyState).toBe(ok.OPEN);
  });

  it("cuts a message past uWS's backstop (twice the limit, at least 64 KiB over) without buffering it: the client sees 1006", async () => {
    const app = server();
    app.ws('/p', websocket({ maxPayloadLength: 1024 }));
    const { url } = await start(app, 'ws');
    const huge = await connect(`${url}/p`);
    huge.send(Buffer.alloc(1024 + 64 * 1024 + 1));
    expect((await huge.closedWith).code).toBe(1006);
    const justUnder = await connect(`${url}/p`);
    justUnder.send(Buffer.alloc(1024 + 64 * 1024));
    expect((await justUnder.closedWith).code).toBe(1009);
  });
});

describe('message payloads', () => {
  it('gives an async handler a copy it can read after await; a plain one gets uWS memory, emptied on return', async () => {
    const app = server();
    app.ws(
      '/async',
      websocket({
        async message(s, m, isBinary) {
          await sleep(5);
          s.send(m, isBinary);
        },
      }),
    );
    app.ws(
      '/plain',
      websocket({
        message(s, m) {
          // Reading too late: uWS reclaimed the memory when this returned.
          setTimeout(() => s.send(`kept ${m.byteLength} bytes`), 5);
        },
      }),
    );
    const { url } = await start(app, 'ws');
    const a = await connect(`${url}/async`);
    for (let i = 0; i < 20; i++) a.send(`message ${i} ${'.'.repeat(i * 50)}`);
    a.send(Buffer.from([1, 2, 3]));
    await until(() => a.inbox.length === 21, 'twenty-one echoes');
    expect(a.inbox.slice(0, 20).map((m) => m.text)).toEqual(Array.from({ length: 20 }, (_, i) => `message ${i} ${'.'.repeat(i * 50)}`));
    expect([...a.inbox[20]!.data]).toEqual([1, 2, 3]);
    const p = await connect(`${url}/plain`);
    p.send('twelve bytes');
    await until(() => p.inbox.length === 1, 'the late read');
    expect(p.inbox[0]!.text).toBe('kept 0 bytes');
  });

  it('closes the connection when a text message is not UTF-8, and keeps serving others', async () => {
    const app = server();
    app.ws('/t', websocket({ message: (s, m, isBinary) => void s.send(m, isBinary) }));
    const { url } = await start(app, 'ws');
    const bad = await connect(`${url}/t`, { skipUTF8Validation: true });
    bad.send(Buffer.from([0xff, 0xfe, 0xfd]), { binary: false });
    expect((await bad.closedWith).code).toBe(1006);
    const good = await connect(`${url}/t`);
    good.send('fine');
    await until(() => good.inbox.length === 1, 'the echo');
    expect(good.inbox[0]!.text).toBe('fine');
  });
});

describe('handler errors', () => {
  it('logs a throw or rejection in open and message, and closes that socket with 1011', async () => {
    const app = server();
    app.ws(
      '/e',
      websocket({
        open() {
          throw new Error('open failed');
        },
      }),
    );
    app.ws(
      '/m',
      websocket({
        message(_s, m) {
          if (Buffer.from(m).toString() === 'throw') throw new Error('message threw');
          return Promise.reject(new Error('message rejected'));
        },
      }),
    );
    const { url } = await start(app, 'ws');
    const a = await connect(`${url}/e`);
    expect(await a.closedWith).toEqual({ code: 1011, reason: 'Internal error' });
    const b = await connect(`${url}/m`);
    b.send('throw');
    expect(await b.closedWith).toEqual({ code: 1011, reason: 'Internal error' });
    const c = await connect(`${url}/m`);
    c.send('reject');
    expect(await c.closedWith).toEqual({ code: 1011, reason: 'Internal error' });
    await until(() => app.logs.length === 3, 'three logged errors');
    expect(app.logs).toEqual(['open failed', 'message threw', 'message rejected']);
  });

  it('logs a close handler that throws, and keeps serving', async () => {
    const app = server();
    app.ws(
      '/c',
      websocket({
        close() {
          throw new Error('close threw');
        },
        message: (s) => void s.send('alive'),
      }),
    );
    const { url } = await start(app, 'ws');
    const a = await connect(`${url}/c`);
    a.close();
    await until(() => app.logs.length === 1, 'the logged error');
    expect(app.logs).toEqual(['close threw']);
    const b = await connect(`${url}/c`);
    b.send('x');
    await until(() => b.inbox.length === 1, 'a reply');
  });
});

describe('backpressure', () => {
  it('reports queued then dropped to a client that does not read, and drain fires once it reads', async () => {
    const app = server();
    let socket!: Socket;
    let drains = 0;
    app.ws(
      '/b',
      websocket({
        maxBackpressure: 256 * 1024,
        open: (s) => void (socket = s),
        drain: (s) => void (s.bufferedAmount === 0 && drains++),
      }),
    );
    const { port } = await start(app, 'ws');
    const client = await stubbornClient(port, '/b');
    await until(() => socket !== undefined, 'the socket');
    const chunk = Buffer.alloc(64 * 1024, 1);
    const statuses: SendStatus[] = [];
    for (let i = 0; i < 2000 && statuses.at(-1) !== 'dropped'; i++) {
      statuses.push(socket.send(chunk));
      if (statuses.at(-1) === 'sent') await sleep(1);
    }
    expect(statuses).toContain('sent');
    expect(statuses).toContain('queued');
    expect(statuses.at(-1)).toBe('dropped');
    expect(socket.bufferedAmount).toBeGreaterThan(256 * 1024);
    expect(socket.bufferedAmount).toBeLessThan(256 * 1024 + 2 * chunk.length);
    expect(socket.send(chunk)).toBe('dropped');
    client.on('data', () => {});
    client.resume();
    await until(() => drains > 0, 'drain with an empty buffer');
    expect(socket.bufferedAmount).toBe(0);
    expect(socket.send('again')).toBe('sent');
    client.destroy();
  });

  it('keeps memory bounded for a client that never reads while the server keeps sending and publishing', async () => {
    const app = server();
    let socket!: Socket;
    app.ws(
      '/b',
      websocket({
        maxBackpressure: 1024 * 1024,
        open(s) {
          socket = s;
          s.subscribe('firehose');
        },
      }),
    );
    const { port } = await start(app, 'ws');
    const client = await stubbornClient(port, '/b');
    await until(() => socket !== undefined, 'the socket');
    const chunk = Buffer.alloc(64 * 1024, 7);
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    const counts = { sent: 0, queued: 0, dropped: 0 };
    // 512 MiB offered in all, half sent, half published.
    for (let i = 0; i < 4096; i++) {
      counts[socket.send(chunk)]++;
      app.publish('firehose', chunk);
      if (i % 256 === 0) await sleep(1);
    }
    const grown = process.memoryUsage().rss - before;
    expect(counts.dropped).toBeGreaterThan(4000);
    expect(socket.bufferedAmount).toBeLessThan(1024 * 1024 + 2 * chunk.length);
    expect(grown).toBeLessThan(64 * 1024 * 1024);
    expect(socket.closed).toBe(false);
    client.destroy();
  });

  it('closes the socket instead of dropping with closeOnBackpressureLimit', async () => {
    const app = server();
    let socket!: Socket;
    const closes: number[] = [];
    app.ws(
      '/b',
      websocket({
        maxBackpressure: 128 * 1024,
        closeOnBackpressureLimit: true,
        open: (s) => void (socket = s),
        close: (_s, code) => void closes.push(code),
      }),
    );
    const { port } = await start(app, 'ws');
    const client = await stubbornClient(port, '/b');
    let ended = false;
    client.on('close', () => (ended = true));
    await until(() => socket !== undefined, 'the socket');
    const chunk = Buffer.alloc(64 * 1024, 1);
    for (let i = 0; i < 2000 && !socket.closed; i++) {
      socket.send(chunk);
      if (i % 8 === 0) await sleep(1);
    }
    await until(() => socket.closed, 'the server to close the socket');
    expect(closes).toEqual([1006]);
    expect(socket.send(chunk)).toBe('dropped');
    client.resume();
    await until(() => ended, 'the client connection to end');
  });
});
