/**
 * The program each worker process runs (forked by the primary, never imported by users). It
 * waits for the primary's start message, builds the app from the entry module, listens on the
 * shared port with `reusePort`, and reports back. It leaves SIGINT and SIGTERM to the primary
 * (a terminal's Ctrl-C reaches the whole process group): the primary sends a stop message, and a
 * worker whose primary disappears stops by itself. A SIGTERM sent to this worker alone drains it
 * and it exits 0, and the primary starts a replacement.
 */
import type { Server } from '@velox/core';
import { type FailedMessage, isMessage, type StartMessage, type ToPrimary } from './protocol.ts';

/** Time the onClose hooks get after the drain before the worker gives up and exits 1 (as core's closeOnSignals does). */
const ON_CLOSE_GRACE = 5_000;

let server: Server | undefined;
let start: StartMessage | undefined;
let stopping = false;
let exitCode = 0;

const send = (message: ToPrimary): Promise<void> =>
  new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, undefined, () => resolve());
  });

const label = () => `[velox cluster] worker ${start?.id ?? '?'} (pid ${process.pid})`;

async function stop(code: number): Promise<void> {
  exitCode = Math.max(exitCode, code);
  if (stopping) return;
  stopping = true;
  const timeout = start?.timeout ?? 10_000;
  const force = setTimeout(() => {
    console.error(`${label()}: shutdown did not finish within ${timeout + ON_CLOSE_GRACE} ms (an onClose hook still runs); exiting now`);
    process.exit(exitCode || 1);
  }, timeout + ON_CLOSE_GRACE);
  try {
    await server?.close({ timeout });
  } catch (err) {
    console.error(`${label()}: closing failed:`, err);
    exitCode = exitCode || 1;
  }
  clearTimeout(force);
  process.exit(exitCode);
}

async function fail(error: unknown, entry: boolean): Promise<never> {
  const e = error as { message?: unknown; code?: unknown; stack?: unknown; cause?: { code?: unknown } };
  const report: FailedMessage['error'] = { message: String(e?.message ?? error) };
  if (typeof e?.code === 'string') report.code = e.code;
  if (typeof e?.stack === 'string') report.stack = e.stack;
  if (typeof e?.cause?.code === 'string') report.causeCode = e.cause.code;
  await send({ type: 'velox:failed', entry, error: report });
  process.exit(1);
}

function onUncaught(error: unknown, origin: string): void {
  console.error(`${label()}: ${origin === 'unhandledRejection' ? 'Unhandled promise rejection' : 'Uncaught exception'}:`, error);
  if (!server?.listening && !stopping) {
    void fail(error, false);
    return;
  }
  const policy = start?.uncaught ?? 'shutdown';
  if (policy === 'log') return;
  if (policy === 'exit') process.exit(1);
  void stop(1);
}

async function run(message: StartMessage): Promise<void> {
  start = message;
  let factory: unknown;
  try {
    factory = ((await import(message.entry)) as { default?: unknown }).default;
  } catch (err) {
    return fail(err, false);
  }
  if (typeof factory !== 'function') {
    return fail(new Error(`${message.entry} must export default a function that returns a Server (or a promise of one); its default export is ${typeof factory}`), true);
  }
  let app: unknown;
  try {
    app = await factory();
  } catch (err) {
    return fail(err, false);
  }
  if (!isServer(app)) {
    return fail(new Error(`the default export of ${message.entry} must return a Server from @velox/core (or a promise of one); it returned ${describe(app)}`), true);
  }
  if (app.listening) {
    return fail(new Error(`the default export of ${message.entry} returned a Server that already listens; return it before listen(): the cluster listens on it`), true);
  }
  server = app;
  if (stopping) return stop(0);
  try {
    await app.listen(message.port, message.host, { reusePort: true });
  } catch (err) {
    return fail(err, false);
  }
  if (stopping) return; // a stop arrived while listening: stop() closes it
  await send({ type: 'velox:listening' });
}

function isServer(value: unknown): value is Server {
  const s = value as Server | null;
  return typeof s === 'object' && s !== null && typeof s.listen === 'function' && typeof s.close === 'function' && typeof s.listening === 'boolean';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'no class'})`;
  return typeof value;
}

if (!process.send) {
  console.error('@velox/cluster: worker.js is started by cluster(), not run directly');
  process.exit(1);
}
process.on('uncaughtException', (err) => onUncaught(err, 'uncaughtException'));
process.on('unhandledRejection', (reason) => onUncaught(reason, 'unhandledRejection'));
process.on('SIGINT', () => {}); // the primary got it too, and decides
process.on('SIGTERM', () => void stop(0));
process.on('disconnect', () => void stop(0)); // the primary is gone
process.on('message', (message: unknown) => {
  if (isMessage<StartMessage>(message, 'velox:start') && !start) void run(message);
  else if (isMessage(message, 'velox:stop')) void stop(0);
});
