// Every core: one worker process per core, all on the same port. SIGTERM drains every worker.
import { cluster } from '@velox/cluster';

const running = await cluster({
  entry: new URL(process.env.APP ?? './app.ts', import.meta.url), // './app.js' once compiled
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  workers: process.env.WORKERS ? Number(process.env.WORKERS) : undefined, // default: every core
  timeout: 10_000,
});
console.log(`${running.workers.length} workers listening on port ${running.port}`);
