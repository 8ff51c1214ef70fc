import { type Server, VeloxError } from '@velox/core';
import { connect, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type Socket, websocket, WsErrorCodes } from '../src/index.ts';
import { server } from './helpers.ts';

/** A route whose sockets are handed to the test as they open. */
async function withSockets(app: Server, extra: Parameters<typeof websocket>[0] = {}) {
  const sockets: Array<Socket<{ n: number }, { room: string }>> = [];
  let n = 0;
  app.ws(
    '/rooms/:room',
    websocket<{ n: number }, { room: string }>({
      upgrade: () => ({ n: ++n }),
      open: (socket) => void sockets.push(socket),
      ...(extra as object),
    }),
  );
  const { url } = await start(app, 'ws');
  return { sockets, url };
}

describe('Socket', () => {
  it('carries the upgrade data, the decoded params and the remote address', async () => {
    const app = server();
    const { sockets, url } = await withSockets(app);
    await connect(`${url}/rooms/caf%C3%A9`);
    await until(() => sockets.length === 1, 'the socket');
    const socket = sockets[0]!;
    expect(socket.data).toEqual({ n: 1 });
    expect(socket.params).toEqual({ room: 'café' });
    expect(socket.remoteAddress).toBe('127.0.0.1');
    expect(socket.closed).toBe(false);
  });

  it('sends strings as text and bytes as binary, json as text, and reports "sent"', async () => {
    const app = server();
    const { sockets, url } = await withSockets(app);
    const client = await connect(`${url}/rooms/a`);
    await until(() => sockets.length === 1, 'the socket');
    const s = sockets[0]!;
    expect(s.send('text')).toBe('sent');
    expect(s.send(Buffer.from('buffer'))).toBe('sent');
    expect(s.send(new Uint16Array([0x6968]))).toBe('sent');
    expect(s.send(new TextEncoder().encode('ab').buffer)).toBe('sent');
    expect(s.send(new DataView(new TextEncoder().encode('dv').buffer))).toBe('sent');
    expect(s.send('forced binary', true)).toBe('sent');
    expect(s.send(Buffer.from('forced text'), false)).toBe('sent');
    expect(s.json({ a: [1, 'two'] })).toBe('sent');
    await until(() => client.inbox.length === 8, 'eight messages');
    expect(client.inbox.map(({ text, binary }) => [text, binary])).toEqual([
      ['text', false],
      ['buffer', true],
      ['hi', true],
      ['ab', true],
      ['dv', true],
      ['forced binary', true],
      ['forced text', false],
      ['{"a":[1,"two"]}', false],
    ]);
  });

  it('throws VELOX_ERR_WS_INVALID_MESSAGE for something that is not text or bytes', async () => {
    const app = server();
    const { sockets, url } = await withSockets(app);
    await connect(`${url}/rooms/a`);
    await until(() => sockets.length === 1, 'the socket');
    expect(() => sockets[0]!.send({ a: 1 } as never)).toThrow(expect.objectContaining({ code: WsErrorCodes.INVALID_MESSAGE }));
    expect(() => sockets[0]!.send(42 as never)).toThrow(/use json\(\) for other values/);
    expect(() => sockets[0]!.subscribe(7 as never)).toThrow(/A topic is a string/);
  });

  it('subscribes, lists topics, unsubscribes, and publishes to the others but never to itself', async () => {
    const app = server();
    const { sockets, url } = await withSockets(app);
    const clients = [await connect(`${url}/rooms/a`), await connect(`${url}/rooms/a`), await connect(`${url}/rooms/a`)];
    await until(() => sockets.length === 3, 'three sockets');
    const [a, b, c] = sockets as [Socket<{ n: number }, { room: string }>, Socket<{ n: number }, { room: string }>, Socket<{ n: number }, { room: string }>];
    expect(a.subscribe('news')).toBe(true);
    expect(a.subscribe('news')).toBe(false);
    expect(a.subscribe('sport')).toBe(true);
    expect(b.subscribe('news')).toBe(true);
    expect(a.isSubscribed('news')).toBe(true);
    expect(c.isSubscribed('news')).toBe(false);
    expect(a.topics.sort()).toEqual(['news', 'sport']);
    expect(a.publish('news', 'from a')).toBe(1);
    expect(c.publish('news', Buffer.from('from c'))).toBe(2);
    expect(app.publish('news', 'from the app')).toBe(2);
    expect(a.unsubscribe('sport')).toBe(true);
    expect(a.unsubscribe('sport')).toBe(false);
    expect(a.topics).toEqual(['news']);
    await until(() => clients[1]!.inbox.length === 3, 'b to get three messages');
    await until(() => clients[0]!.inbox.length === 2, 'a to get two messages');
    expect(clients[0]!.inbox.map((m) => m.text)).toEqual(['from c', 'from the app']);
    expect(clients[1]!.inbox.map((m) => [m.text, m.binary])).toEqual([
      ['from a', false],
      ['from c', true],
      ['from the app', false],
    ]);
    expect(clients[2]!.inbox).toEqual([]);
  });

  it('closes with a code and reason the client sees, runs the close handler once, and terminates without a close frame', async () => {
    const app = server();
    const seen: Array<[number, string, boolean]> = [];
    const { sockets, url } = await withSockets(app, {
      close: (socket: Socket<any, any>, code: number, reason: string) => void seen.push([code, reason, socket.closed]),
    });
    const one = await connect(`${url}/rooms/a`);
    const two = await connect(`${url}/rooms/a`);
    await until(() => sockets.length === 2, 'two sockets');
    sockets[0]!.close(4001, 'signed out');
    expect(sockets[0]!.closed).toBe(true);
    sockets[1]!.terminate();
    expect(await one.closedWith).toEqual({ code: 4001, reason: 'signed out' });
    expect((await two.closedWith).code).toBe(1006);
    expect(seen).toEqual([
      [4001, 'signed out', true],
      [1006, '', true],
    ]);
  });

  it('refuses close codes a server may not send and reasons over 123 bytes', async () => {
    const app = server();
    const { sockets, url } = await withSockets(app);
    await connect(`${url}/rooms/a`);
    await until(() => sockets.length === 1, 'the socket');
    const s = sockets[0]!;
    for (const code of [999, 1004, 1005, 1006, 1015, 2000, 5000, 1000.5]) {
      expect(() => s.close(code)).toThrow(expect.objectContaining({ code: WsErrorCodes.INVALID_CLOSE }));
    }
    expect(() => s.close(1000, 'é'.repeat(62))).toThrow(/at most 123 bytes/);
    expect(() => s.close(1005)).toThrow(VeloxError);
    expect(s.closed).toBe(false);
    s.close(1000, 'x'.repeat(123));
    expect(s.closed).toBe(true);
  });

  it('reports the close code of a client-initiated close to the handler, with the reason', async () => {
    const app = server();
    const seen: Array<[number, string]> = [];
    const { url } = await withSockets(app, { close: (_s: unknown, code: number, reason: string) => void seen.push([code, reason]) });
    const client = await connect(`${url}/rooms/a`);
    client.close(4001, 'bye now');
    await until(() => seen.length === 1, 'the close handler');
    expect(seen).toEqual([[4001, 'bye now']]);
    for (const code of [1011, 4000, 4999]) {
      const client = await connect(`${url}/rooms/a`);
      const before = seen.length;
      client.close(code, 'ok');
      await until(() => seen.length === before + 1, `the close handler for ${code}`);
      expect(seen.at(-1)).toEqual([code, 'ok']);
    }
  });

  it("reports 1006 with uWS's reason when a client closes with a registered code (1012-1014, 3000-3999)", async () => {
    const app = server();
    const seen: Array<[number, string]> = [];
    const { url } = await withSockets(app, { close: (_s: unknown, code: number, reason: string) => void seen.push([code, reason]) });
    // uWS v20.51 (as v20.30) accepts 1000-1011 and 4000-4999 from a client; it cuts a connection
    // closing with a code registered for libraries and later use: the handler sees 1006 with uWS's
    // reason (v20.30 gave an empty one), and the client gets a close frame without a code (1005).
    for (const code of [1012, 1014, 3000, 3001, 3999]) {
      const client = await connect(`${url}/rooms/a`);
      const before = seen.length;
      client.close(code, 'library code');
      await until(() => seen.length === before + 1, `the close handler for ${code}`);
      expect([code, ...seen.at(-1)!]).toEqual([code, 1006, 'Received invalid close payload']);
      expect(await client.closedWith).toEqual({ code: 1005, reason: '' });
    }
  });

  it('corks several sends into one write', async () => {
    const app = server();
    const { sockets, url } = await withSockets(app);
    const client = await connect(`${url}/rooms/a`);
    await until(() => sockets.length === 1, 'the socket');
    sockets[0]!.cork(() => {
      for (let i = 0; i < 5; i++) sockets[0]!.send(`m${i}`);
    });
    await until(() => client.inbox.length === 5, 'five messages');
    expect(client.inbox.map((m) => m.text)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });
});

describe('Socket after close', () => {
  it('is a harmless no-op for every method, from timers and promises, many times over', async () => {
    const app = server();
    const { sockets, url } = await withSockets(app);
    const clients = [];
    for (let i = 0; i < 20; i++) clients.push(await connect(`${url}/rooms/r${i}`));
    await until(() => sockets.length === 20, 'twenty sockets');
    for (const s of sockets) s.subscribe('all');
    // A third cut by the client, a third closed by it, a third closed by the server.
    for (const [i, c] of clients.entries()) {
      if (i % 3 === 0) c.terminate();
      else if (i % 3 === 1) c.close();
      else sockets[i]!.close();
    }
    await until(() => sockets.every((s) => s.closed), 'every socket to close');
    const results: unknown[] = [];
    const hammer = (s: Socket<any, any>) => {
      results.push(s.send('late'), s.send(Buffer.from('late')), s.json({ late: true }));
      results.push(s.subscribe('x'), s.unsubscribe('all'), s.isSubscribed('all'), s.topics.length, s.bufferedAmount);
      results.push(s.publish('all', 'late'));
      s.close(1000, 'again');
      s.close(4000);
      s.terminate();
      s.cork(() => s.send('in cork'));
      results.push(s.closed, s.data.n > 0, s.params.room.startsWith('r'));
    };
    const rounds: Array<Promise<void>> = [];
    for (let round = 0; round < 50; round++) {
      for (const s of sockets) {
        rounds.push(new Promise<void>((resolve) => setTimeout(() => resolve(hammer(s)), round % 5)));
        rounds.push(Promise.resolve().then(() => hammer(s)));
      }
    }
    await Promise.all(rounds);
    const perCall = [
      'dropped', 'dropped', 'dropped', false, false, false, 0, 0, 0, true, true, true,
    ];
    expect(results.length).toBe(perCall.length * 20 * 100);
    for (let i = 0; i < results.length; i++) expect(results[i]).toBe(perCall[i % perCall.length]);
    // The server is still fine.
    const fresh = await connect(`${url}/rooms/fresh`);
    await until(() => sockets.length === 21, 'a new socket');
    expect(sockets[20]!.send('still here')).toBe('sent');
    await until(() => fresh.inbox.length === 1, 'the reply');
  });

  it('lets the close handler publish a goodbye to the others, but not send to itself', async () => {
    const app = server();
    const statuses: string[] = [];
    app.ws(
      '/room',
      websocket<{ name: string }>({
        upgrade: (req) => ({ name: String(req.query.name) }),
        open: (socket) => void socket.subscribe('room'),
        close(socket) {
          statuses.push(socket.send('to myself'));
          socket.publish('room', `bye from ${socket.data.name}`);
        },
      }),
    );
    const { url } = await start(app, 'ws');
    const leaving = await connect(`${url}/room?name=ann`);
    const staying = await connect(`${url}/room?name=bob`);
    leaving.close();
    await until(() => staying.inbox.length === 1, 'the goodbye');
    expect(staying.inbox[0]!.text).toBe('bye from ann');
    expect(leaving.inbox).toEqual([]);
    expect(statuses).toEqual(['dropped']);
  });
});
