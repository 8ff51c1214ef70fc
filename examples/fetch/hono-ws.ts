// Hono's upgradeWebSocket on Velox: chat rooms on topics, through @velox/ws.
import { serve } from '@velox/fetch';
import { createVeloxWebSocket } from '@velox/fetch/hono-ws';
import { Hono } from 'hono';

const app = new Hono();
const { upgradeWebSocket, websocket } = createVeloxWebSocket({ app, idleTimeout: 60 });

app.get('/', (c) => c.text('Connect a WebSocket to /room/<name>'));
app.get(
  '/room/:name',
  upgradeWebSocket((c) => {
    const topic = `room:${c.req.param('name')}`;
    return {
      onOpen(_event, ws) {
        ws.raw?.subscribe(topic);
        ws.send(`joined ${topic}`);
      },
      onMessage(event, ws) {
        ws.raw?.publish(topic, String(event.data)); // everyone in the room but the sender
      },
    };
  }),
);

const server = await serve({
  fetch: app.fetch,
  websocket,
  port: Number(process.env.PORT ?? 3000),
  hostname: process.env.HOST ?? '127.0.0.1',
  closeOnSignals: { timeout: 5000 },
});
console.log(`Hono with WebSockets on Velox listening on http://${server.hostname}:${server.port}`);
