// State that every worker and every machine must see lives in Redis: sessions in RedisStore,
// WebSocket publishes through redisPubSub. Run it like app.ts: APP=./shared-app.ts with cluster.ts,
// or one copy per machine behind a load balancer, all with the same REDIS_URL and SESSION_SECRET.
import { Server } from '@velox/core';
import { RedisStore, session } from '@velox/session';
import { redisPubSub, websocket } from '@velox/ws';

export default async function createApp(): Promise<Server> {
  const secret = process.env.SESSION_SECRET;
  if (!secret) throw new Error('Set SESSION_SECRET (the same value on every machine)');
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = process.env.REDIS_PREFIX ?? 'app:';
  const worker = process.env.VELOX_WORKER_ID ?? '0';

  const app = new Server({ trustProxy: process.env.TRUST_PROXY ?? 'loopback' });
  await app.register(session, { secret, store: new RedisStore({ url, prefix: `${prefix}sess:` }) });
  await app.register(redisPubSub, { url, prefix: `${prefix}ws:` });

  // Any worker, on any machine, sees the visits counted by the others.
  app.get('/visits', async (req, res) => {
    await req.session.start();
    const visits = Number(req.session.get('visits') ?? 0) + 1;
    req.session.set('visits', visits);
    res.json({ visits, worker });
  });

  // A message sent to one worker reaches the subscribers connected to every other.
  app.ws(
    '/chat',
    websocket({
      open(socket) {
        socket.subscribe('chat');
        socket.send(`joined worker ${worker}`);
      },
      message(socket, message, isBinary) {
        socket.publish('chat', message, isBinary);
      },
    }),
  );
  return app;
}
