// The measurement behind @velox/cluster's choice of processes over worker threads (see its
// README). Not a server of the suite and not a load test: it starts four Velox servers as worker
// threads, then as processes, and reports how long they take to listen and the memory each adds;
// then it ends a worker thread that holds a listening uWS app in each way a thread can end, each
// in a child process of its own, and reports how that process ended.
//
//   pnpm build && cd benchmarks && node --conditions=built servers/cluster/threads-vs-processes.mjs
import { fork, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const self = fileURLToPath(import.meta.url);
const WORKERS = 4;
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const port = () => 40_000 + Math.floor(Math.random() * 20_000);

async function serveHere(listenPort) {
  const { Server } = await import('@velox/core');
  const app = new Server({ logger: false });
  app.get('/', (_req, res) => res.send(String(process.pid)));
  await app.listen(listenPort, '127.0.0.1', { reusePort: true });
  return app;
}

const role = process.argv[2];
if (!isMainThread) {
  // A worker thread: serve, say so, then end the way the main thread asks.
  const app = await serveHere(workerData.port);
  parentPort.postMessage('listening');
  // The clean way: close the app first, then the thread may end.
  parentPort.on('message', async () => {
    await app.close();
    process.exit(0);
  });
  if (workerData.end === 'throw') setTimeout(() => {
    throw new Error('uncaught in the worker thread');
  }, 50);
  if (workerData.end === 'exit') setTimeout(() => process.exit(3), 50);
} else if (role === 'process') {
  await serveHere(Number(process.argv[3]));
  process.send('listening');
} else if (role === 'end') {
  // One way of ending a worker thread with a uWS app open; the parent reads our exit status.
  const mode = process.argv[3];
  const worker = new Worker(self, { workerData: { port: port(), end: mode } });
  worker.on('error', () => {});
  await new Promise((resolve) => worker.once('message', resolve));
  if (mode === 'terminate') await worker.terminate();
  if (mode === 'main-exit') process.exit(0);
  await new Promise((resolve) => setTimeout(resolve, 500));
  console.log('survived');
  process.exit(0);
} else {
  const threadsBase = rssMiB(process.pid);
  let t0 = performance.now();
  const threads = Array.from({ length: WORKERS }, (_, i) => new Worker(self, { workerData: { port: port() + i, end: 'none' } }));
  await Promise.all(threads.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const threadsMs = performance.now() - t0;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const threadsPer = (rssMiB(process.pid) - threadsBase) / WORKERS;
  // Ending these threads with their apps open would abort this process (measured below): each
  // closes its app first.
  await Promise.all(threads.map((w) => new Promise((resolve) => w.once('exit', resolve) && w.postMessage('close'))));

  t0 = performance.now();
  const base = port();
  const children = Array.from({ length: WORKERS }, (_, i) => fork(self, ['process', String(base + i)], { execArgv: process.execArgv }));
  await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))));
  const processesMs = performance.now() - t0;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const processesPer = children.reduce((sum, c) => sum + rssMiB(c.pid), 0) / WORKERS;
  for (const c of children) c.kill('SIGKILL');

  console.log(`worker threads: ${WORKERS} listening in ${threadsMs.toFixed(0)} ms, +${threadsPer.toFixed(1)} MiB RSS each`);
  console.log(`processes:      ${WORKERS} listening in ${processesMs.toFixed(0)} ms, ${processesPer.toFixed(1)} MiB RSS each`);
  console.log('worker threads that close their app first: ended cleanly');
  for (const mode of ['terminate', 'throw', 'exit', 'main-exit']) {
    const r = spawnSync(process.execPath, [...process.execArgv, self, 'end', mode], { encoding: 'utf8', timeout: 30_000 });
    const how = r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
    const aborted = /uv_loop_close\(\) while having open handles/.test(r.stderr) ? ' (aborted: uv_loop_close() while having open handles)' : '';
    console.log(`a worker thread holding a uWS app ends by ${mode.padEnd(9)}: the process ${r.stdout.includes('survived') ? 'survives' : `ends, ${how}${aborted}`}`);
  }
}
