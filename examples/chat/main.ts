/**
 * Starts the chat: one process by default, or `WORKERS` copies on @velox/cluster (sessions and
 * messages then go through Redis: `REDIS_URL`, default redis://127.0.0.1:6379 with workers).
 *
 *   pnpm start                          # http://127.0.0.1:3000, memory store, one process
 *   PORT=8080 HOST=0.0.0.0 pnpm start
 *   WORKERS=2 REDIS_URL=redis://127.0.0.1:6379 pnpm start
 */
import { cluster } from '@velox/cluster';
import createChat from './app.ts';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const workers = Number(process.env.WORKERS ?? 1);

if (workers > 1) {
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  const started = await cluster({ entry: new URL('./app.ts', import.meta.url), workers, port, host });
  console.log(`Velox chat listening on http://${host}:${started.port} (${workers} workers, Redis at ${process.env.REDIS_URL})`);
} else {
  const app = await createChat();
  const { port: bound } = await app.listen(port, host);
  app.closeOnSignals();
  console.log(`Velox chat listening on http://${host}:${bound}`);
}
