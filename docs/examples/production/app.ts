// The app as @velox/cluster wants it: a module whose default export builds the server and
// returns it without listening. Every worker process calls it once.
import { Server } from '@velox/core';

export default function createApp(): Server {
  const app = new Server({ trustProxy: process.env.TRUST_PROXY ?? 'loopback' });
  app.get('/healthz', (req, res) => res.json({ ok: true }));
  app.get('/worker', (req, res) => res.json({ worker: process.env.VELOX_WORKER_ID, pid: process.pid }));
  return app;
}
