import { connect, get, REDIS_URL, redisPrefix, until } from '@velox/test-utils';
import { redisPubSub } from '@velox/ws';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createVeloxWebSocket } from '../src/hono-ws.ts';
import { fetchHandler } from '../src/index.ts';
import { served, veloxServer } from './helpers.ts';

/** A Hono app with an echo socket, a room socket (topics), a guarded socket and a plain route. */
function chatApp() {
  const app = new Hono();
  const { upgradeWebSocket, websocket } = createVeloxWebSocket({ app });
  const events: string[] = [];
  app.get(
    '/echo',
    upgradeWebSocket((c) => ({
      onOpen: (_event, ws) => {
        events.push(`open ${new URL(ws.url!).pathname} ${c.req.query('who')}`);
      },
      onMessage: (event, ws) => {
        ws.send(typeof event.data === 'string' ? `echo: ${event.data}` : new Uint8Array(event.data as ArrayBuffer).reverse());
      },
      onClose: (event) => {
        events.push(`close ${(event as unknown as { code: number }).code}`);
      },
    })),
  );
  app.get(
    '/room/:name',
    upgradeWebSocket((c) => {
      const topic = `room:${c.req.param('name')}`;
      return {
        onOpen: (_event, ws) => {
          ws.raw!.subscribe(topic);
          ws.send('joined');
        },
        onMessage: (event, ws) => {
          ws.raw!.publish(topic, String(event.data));
        },
      };
    }),
  );
  app.use('/private', async (c, next) => (c.req.header('authorization') === 'yes' ? next() : c.text('no', 401)));
  app.get('/private', upgradeWebSocket(() => ({ onOpen: (_e, ws) => ws.send('welcome') })));
  app.get('/plain', (c) => c.text('plain http'));
  return { app, websocket, events };
}

function refused(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => reject(new Error('upgraded')));
    ws.on('error', () => {});
  });
}

describe('createVeloxWebSocket (Hono upgradeWebSocket on Velox)', () => {
  it('echoes text and binary, sees open and close, and plain HTTP still reaches the app', async () => {
    const { app, websocket, events } = chatApp();
    const { url, port } = await served(app.fetch, { websocket });
    const client = await connect(`ws://127.0.0.1:${port}/echo?who=ann`);
    client.send('hi');
    client.send(Buffer.from([1, 2, 3]));
    await until(() => client.inbox.length === 2, 'two answers');
    expect(client.inbox[0]).toMatchObject({ text: 'echo: hi', binary: false });
    expect([...client.inbox[1]!.data]).toEqual([3, 2, 1]);
    client.close(1000);
    await until(() => events.length === 2, 'the close event');
    expect(events).toEqual(['open /echo ann', 'close 1000']);
    expect((await get(`${url}/plain`)).text).toBe('plain http');
  });

  it("refuses the upgrade with the app's own answer (a middleware's 401, a 404)", async () => {
    const { app, websocket } = chatApp();
    const { port } = await served(app.fetch, { websocket });
    expect(await refused(`ws://127.0.0.1:${port}/private`)).toBe(401);
    expect(await refused(`ws://127.0.0.1:${port}/nowhere`)).toBe(404);
    const allowed = await connect(`ws://127.0.0.1:${port}/private`, { headers: { authorization: 'yes' } });
    await until(() => allowed.inbox.length === 1, 'the welcome');
    expect(allowed.inbox[0]!.text).toBe('welcome');
  });

  it('publishes to a topic through the @velox/ws socket (ws.raw)', async () => {
    const { app, websocket } = chatApp();
    const { port } = await served(app.fetch, { websocket });
    const a = await connect(`ws://127.0.0.1:${port}/room/x`);
    const b = await connect(`ws://127.0.0.1:${port}/room/x`);
    const other = await connect(`ws://127.0.0.1:${port}/room/y`);
    await until(() => a.inbox.length === 1 && b.inbox.length === 1 && other.inbox.length === 1, 'the joins');
    a.send('hello room');
    await until(() => b.inbox.length === 2, 'the message in the room');
    expect(b.inbox[1]!.text).toBe('hello room');
    expect(a.inbox.length).toBe(1); // not echoed to the sender
    expect(other.inbox.length).toBe(1); // nor to another room
  });

  it('fans a topic out across two servers with redisPubSub', async () => {
    const prefix = redisPrefix('velox-fetch-ws');
    const ports: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { app, websocket } = chatApp();
      const velox = veloxServer();
      await velox.register(redisPubSub, { url: REDIS_URL, prefix });
      velox.ws('/room/:name', websocket);
      velox.all('/*', fetchHandler(app.fetch));
      ports.push((await velox.listen(0, '127.0.0.1')).port);
    }
    const a = await connect(`ws://127.0.0.1:${ports[0]}/room/z`);
    const b = await connect(`ws://127.0.0.1:${ports[1]}/room/z`);
    await until(() => a.inbox.length === 1 && b.inbox.length === 1, 'the joins');
    a.send('across processes');
    await until(() => b.inbox.length === 2, 'the message on the other server');
    expect(b.inbox[1]!.text).toBe('across processes');
  });

  it('answers 426 to an upgradeWebSocket route reached without the websocket route', async () => {
    const { app } = chatApp();
    const { port } = await served(app.fetch);
    expect(await refused(`ws://127.0.0.1:${port}/echo`)).toBe(426);
  });
});
