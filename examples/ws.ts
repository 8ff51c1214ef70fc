// WebSockets with @velox/ws: an echo route and a broadcast room, plus an HTTP route that
// publishes to the room. Set REDIS_URL to fan out across every process sharing that Redis.
//
//   pnpm exec tsx examples/ws.ts
//   then, with any WebSocket client (here the `wscat` CLI):
//   wscat -c ws://127.0.0.1:3000/echo
//   wscat -c 'ws://127.0.0.1:3000/rooms/lobby?name=ann'
//   curl -d 'restarting soon' http://127.0.0.1:3000/rooms/lobby/notice
import { Server, VeloxError } from '@velox/core';
import { redisPubSub, websocket } from '@velox/ws';

const app = new Server();
if (process.env.REDIS_URL) await app.register(redisPubSub, { url: process.env.REDIS_URL, prefix: 'example:ws:' });

// Echo: every message comes back as it was sent, text or binary.
app.ws(
  '/echo',
  websocket({
    message(socket, message, isBinary) {
      if (socket.send(message, isBinary) === 'dropped') socket.close(1013, 'Read your messages first');
    },
    maxPayloadLength: 16 * 1024,
  }),
);

// A room: what one member sends, the others get, in every process.
const room = (name: string) => `room:${name}`;
app.ws(
  '/rooms/:room',
  websocket({
    upgrade(req) {
      const name = String(req.query.name ?? '').trim();
      if (!/^[\w-]{1,20}$/.test(name)) throw new VeloxError('EXAMPLE_NAME', 'Add ?name= (letters, digits, - or _)', { status: 400 });
      return { name };
    },
    open(socket) {
      socket.subscribe(room(socket.params.room));
      socket.publish(room(socket.params.room), JSON.stringify({ type: 'joined', name: socket.data.name }));
      socket.json({ type: 'welcome', room: socket.params.room });
    },
    message(socket, message) {
      const text = Buffer.from(message).toString();
      socket.publish(room(socket.params.room), JSON.stringify({ type: 'message', name: socket.data.name, text }));
    },
    close(socket) {
      socket.publish(room(socket.params.room), JSON.stringify({ type: 'left', name: socket.data.name }));
    },
    maxPayloadLength: 4 * 1024,
    idleTimeout: 60,
  }),
);

// HTTP publishes too.
app.post('/rooms/:room/notice', async (req, res) => {
  const reached = app.publish(room(req.params.room), JSON.stringify({ type: 'notice', text: await req.text() }));
  res.json({ reached });
});

// SIGINT/SIGTERM: stop accepting, finish in-flight requests (up to 5 s), run onClose hooks, exit 0.
app.closeOnSignals({ timeout: 5000 });

const { port } = await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
console.log(`Velox WebSockets on ws://127.0.0.1:${port}/echo and ws://127.0.0.1:${port}/rooms/:room?name=you`);
