/**
 * The primary: checks the port, forks the workers, replaces those that crash (with backoff) and
 * stops them all on a signal or on close().
 */
import { type ChildProcess, fork } from 'node:child_process';
import { access } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism, constants as osConstants } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from '@velox/core';
import { ClusterErrorCodes, clusterError } from './errors.ts';
import { type FailedMessage, isMessage, type StartMessage, type ToWorker } from './protocol.ts';

/** Options of {@link cluster}. */
export interface ClusterOptions {
  /**
   * The app: a file path (relative to the current directory) or URL of a module whose default
   * export is a function returning a Server (or a promise of one) that is not yet listening.
   */
  entry: string | URL;
  /** How many worker processes. Default: `os.availableParallelism()`. */
  workers?: number;
  /** The port every worker listens on. `0` picks a free port once, in the primary. */
  port: number;
  /** The address to listen on. Default: every address. */
  host?: string;
  /** Milliseconds in-flight requests get to finish when the cluster stops. Default: 10000. */
  timeout?: number;
  /** Signals that stop the cluster and then the process; `false` installs none (call `close()`). Default: `['SIGINT', 'SIGTERM']`. */
  signals?: NodeJS.Signals[] | false;
  /** What a worker does with an uncaught exception or unhandled rejection after logging it. Default: `'shutdown'`. */
  uncaught?: 'shutdown' | 'exit' | 'log';
  /** Restart backoff: the first delay, doubled after each crash in a row, up to `max`. Default: `{ initial: 100, max: 10000 }`. */
  backoff?: { initial?: number; max?: number };
  /** Milliseconds a worker may take to load its entry and listen. Default: 30000. */
  startTimeout?: number;
  /** Extra environment variables for the workers. Default: none (they inherit the primary's). */
  env?: Record<string, string>;
  /** Where the primary logs worker exits and restarts; `false` for nowhere. Default: `console`. */
  logger?: Logger | false;
}

/** A worker as {@link Cluster.workers} lists it. */
export interface WorkerInfo {
  /** The worker's slot, 1 to `workers`; a replacement takes the slot of the worker it replaces. Also in the worker's `VELOX_WORKER_ID`. */
  id: number;
  /** The worker process's PID. */
  pid: number;
  /** How many times this slot's worker was replaced. */
  restarts: number;
}

/** What {@link cluster} resolves to once every worker listens. */
export interface Cluster {
  /** The port the workers listen on (the one picked, when `port` was 0). */
  readonly port: number;
  /** The host they listen on, or undefined for every address. */
  readonly host: string | undefined;
  /** The workers running now. */
  readonly workers: WorkerInfo[];
  /**
   * Stops every worker: each closes its listen socket, lets in-flight requests finish (up to
   * `timeout`), runs its `onClose` hooks and exits. Workers still running after `timeout` plus
   * 5 s are killed. Resolves once all have exited; does not exit the primary.
   */
  close(): Promise<void>;
}

/** Time a worker's onClose hooks get after its drain before the primary kills it. */
const GRACE = 5_000;

interface Slot {
  id: number;
  child: ChildProcess | undefined;
  restarts: number;
  /** Crashes in a row since the slot's worker last ran long enough to count as healthy. */
  crashes: number;
  startedAt: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Starts `workers` copies of the app in worker processes that share one port (SO_REUSEPORT:
 * Linux spreads connections across them). Resolves once every worker listens; rejects, with no
 * worker left running, if the port is taken or a worker cannot start. A worker that exits on its
 * own is replaced, after a delay that doubles with each crash in a row. On SIGINT or SIGTERM
 * every worker drains and exits, then the primary exits 0; a second signal kills them at once.
 *
 * @example
 * ```ts
 * // app.ts
 * import { Server } from '@velox/core';
 * export default () => new Server().get('/', (req, res) => res.send(`Hi from ${process.pid}`));
 *
 * // main.ts
 * import { cluster } from '@velox/cluster';
 * const { port } = await cluster({ entry: new URL('./app.ts', import.meta.url), port: 3000 });
 * ```
 */
export async function cluster(options: ClusterOptions): Promise<Cluster> {
  const settings = readOptions(options);
  const entry = await resolveEntry(settings.entry);
  const port = await checkPort(settings.port, settings.host);
  const logger = settings.logger;
  const runner = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
  const slots: Slot[] = [];
  let state: 'starting' | 'running' | 'stopping' = 'starting';
  let stopped: Promise<void> | undefined;

  const label = (slot: Slot, child: ChildProcess) => `worker ${slot.id} (pid ${child.pid})`;

  /** Forks the worker of a slot; resolves when it listens, rejects with why it did not. */
  const spawn = (slot: Slot): Promise<void> => {
    const child = fork(fileURLToPath(runner), [], {
      env: { ...process.env, ...settings.env, VELOX_WORKER_ID: String(slot.id) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    slot.child = child;
    slot.startedAt = Date.now();
    let listening = false;
    const started = new Promise<void>((resolveStart, rejectStart) => {
      let failure: FailedMessage | undefined;
      let timedOut: Error | undefined;
      // Settles only once the worker has exited, so a replacement never overlaps it.
      const timer = setTimeout(() => {
        timedOut = clusterError(ClusterErrorCodes.WORKER_FAILED, `cluster(): ${label(slot, child)} did not listen within ${settings.startTimeout} ms`);
        child.kill('SIGKILL');
      }, settings.startTimeout);
      child.on('message', (message: unknown) => {
        if (isMessage(message, 'velox:listening')) {
          listening = true;
          clearTimeout(timer);
          resolveStart();
        } else if (isMessage<FailedMessage>(message, 'velox:failed')) failure = message;
      });
      child.once('error', (err) => {
        if (child.pid !== undefined) return; // a running worker's IPC error: its exit follows
        clearTimeout(timer);
        if (slot.child === child) slot.child = undefined;
        rejectStart(clusterError(ClusterErrorCodes.WORKER_FAILED, `cluster(): worker ${slot.id} could not be started: ${err.message}`, err));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!listening) rejectStart(timedOut ?? startFailure(slot, child, failure, code, signal, port, settings.host));
      });
    });
    child.once('exit', (code, signal) => {
      if (slot.child === child) slot.child = undefined;
      if (!listening || state !== 'running') return;
      // Ran long enough to count as healthy: the next crash starts the backoff over.
      if (Date.now() - slot.startedAt >= settings.backoff.max) slot.crashes = 0;
      scheduleRestart(slot, `${label(slot, child)} exited (${signal ? `signal ${signal}` : `code ${code}`})`);
    });
    child.send({ type: 'velox:start', id: slot.id, entry, port, host: settings.host, timeout: settings.timeout, uncaught: settings.uncaught } satisfies StartMessage);
    return started;
  };

  const scheduleRestart = (slot: Slot, why: string): void => {
    const delay = Math.min(settings.backoff.max, settings.backoff.initial * 2 ** slot.crashes);
    slot.crashes++;
    logger?.warn(`[velox cluster] ${why}; starting a new one in ${delay} ms`);
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      if (state !== 'running') return;
      slot.restarts++;
      spawn(slot).then(
        () => logger?.info?.(`[velox cluster] worker ${slot.id} (pid ${slot.child?.pid}) listening again`),
        (err: Error) => {
          if (state === 'running' && !slot.child && !slot.timer) scheduleRestart(slot, `worker ${slot.id} failed to start again: ${err.message}`);
        },
      );
    }, delay);
  };

  const stopAll = (): Promise<void> => {
    if (stopped) return stopped;
    state = 'stopping';
    stopped = Promise.all(
      slots.map(async (slot) => {
        clearTimeout(slot.timer);
        const child = slot.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
        const kill = setTimeout(() => {
          logger?.error(`[velox cluster] ${label(slot, child)} did not stop within ${settings.timeout + GRACE} ms; killing it`);
          child.kill('SIGKILL');
        }, settings.timeout + GRACE);
        if (child.connected) child.send({ type: 'velox:stop' } satisfies ToWorker, (err) => err && child.kill('SIGTERM'));
        else child.kill('SIGTERM');
        await exited;
        clearTimeout(kill);
      }),
    ).then(() => {
      uninstall();
    });
    return stopped;
  };

  let uninstall = () => {};
  if (settings.signals) {
    const onSignal = (signal: NodeJS.Signals) => {
      if (state === 'stopping') {
        logger?.warn(`[velox cluster] ${signal} received again: killing the workers`);
        for (const slot of slots) slot.child?.kill('SIGKILL');
        process.exit(128 + (osConstants.signals[signal] ?? 0));
      }
      logger?.info?.(`[velox cluster] ${signal} received: stopping ${slots.length} workers (in-flight requests get up to ${settings.timeout} ms)`);
      const before = new Map(slots.map((slot) => [slot.id, slot.child]));
      stopAll().then(() => {
        const clean = [...before.values()].every((child) => !child || child.exitCode === 0);
        process.exit(clean ? 0 : 1);
      });
    };
    const signals = settings.signals;
    for (const signal of signals) process.on(signal, onSignal);
    uninstall = () => {
      for (const signal of signals) process.removeListener(signal, onSignal);
    };
  }

  for (let id = 1; id <= settings.workers; id++) slots.push({ id, child: undefined, restarts: 0, crashes: 0, startedAt: 0, timer: undefined });
  const results = await Promise.allSettled(slots.map(spawn));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed || state !== 'starting') {
    await stopAll();
    throw failed ? failed.reason : clusterError(ClusterErrorCodes.WORKER_FAILED, 'the cluster was stopped while starting');
  }
  state = 'running';
  logger?.info?.(`[velox cluster] ${slots.length} workers listening on ${settings.host ?? 'every address'}, port ${port}`);

  return {
    port,
    host: settings.host,
    get workers(): WorkerInfo[] {
      return slots.flatMap((slot) => (slot.child?.pid ? [{ id: slot.id, pid: slot.child.pid, restarts: slot.restarts }] : []));
    },
    close: stopAll,
  };
}

type Settings = Required<Omit<ClusterOptions, 'host' | 'logger' | 'backoff'>> & {
  host: string | undefined;
  logger: Logger | undefined;
  backoff: { initial: number; max: number };
};

function readOptions(options: ClusterOptions): Settings {
  const invalid = (message: string) => clusterError(ClusterErrorCodes.INVALID_OPTION, `cluster(): ${message}`);
  if (options === null || typeof options !== 'object') throw invalid('takes an options object: { entry, port, workers?, host? }');
  const { entry, port, host } = options;
  if (!(typeof entry === 'string' && entry.length > 0) && !(entry instanceof URL)) {
    throw invalid("entry is the path or URL of your app's module, e.g. new URL('./app.js', import.meta.url)");
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw invalid(`port must be a whole number from 0 to 65535 (0 picks a free one), got ${String(port)}`);
  if (host !== undefined && (typeof host !== 'string' || host.length === 0)) throw invalid(`host must be an address such as "127.0.0.1" or "::", got ${String(host)}`);
  const workers = options.workers ?? availableParallelism();
  if (!Number.isInteger(workers) || workers < 1) throw invalid(`workers must be a whole number of at least 1, got ${String(options.workers)}`);
  const count = (name: string, value: unknown, fallback: number, min = 0) => {
    const n = value ?? fallback;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < min) throw invalid(`${name} must be a number of milliseconds of at least ${min}, got ${String(value)}`);
    return n;
  };
  const timeout = count('timeout', options.timeout, 10_000);
  const startTimeout = count('startTimeout', options.startTimeout, 30_000, 1);
  const backoff = { initial: count('backoff.initial', options.backoff?.initial, 100, 1), max: count('backoff.max', options.backoff?.max, 10_000, 1) };
  if (backoff.max < backoff.initial) throw invalid('backoff.max must be at least backoff.initial');
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  if (signals !== false) {
    if (!Array.isArray(signals)) throw invalid("signals is a list such as ['SIGINT', 'SIGTERM'], or false");
    for (const signal of signals) {
      if (typeof signal !== 'string' || !(signal in osConstants.signals) || signal === 'SIGKILL' || signal === 'SIGSTOP') {
        throw invalid(`${String(signal)} is not a signal that can be caught; use names such as 'SIGTERM'`);
      }
    }
  }
  const uncaught = options.uncaught ?? 'shutdown';
  if (uncaught !== 'shutdown' && uncaught !== 'exit' && uncaught !== 'log') throw invalid(`uncaught is 'shutdown', 'exit' or 'log', got ${String(uncaught)}`);
  const env = options.env ?? {};
  if (typeof env !== 'object' || env === null || Object.values(env).some((v) => typeof v !== 'string')) throw invalid('env is an object of string values');
  const logger = options.logger === false ? undefined : (options.logger ?? console);
  return { entry, port, host, workers, timeout, startTimeout, backoff, signals, uncaught, env, logger };
}

/** The entry as a file: URL the workers can import; a file that is not there is refused here, before any fork. */
async function resolveEntry(entry: string | URL): Promise<string> {
  let url: URL;
  if (entry instanceof URL) url = entry;
  else if (/^[a-z][a-z0-9+.-]+:/i.test(entry) && !isAbsolute(entry)) url = new URL(entry);
  else url = pathToFileURL(resolve(entry));
  if (url.protocol === 'file:') {
    try {
      await access(fileURLToPath(url));
    } catch {
      throw clusterError(ClusterErrorCodes.INVALID_ENTRY, `cluster(): entry ${fileURLToPath(url)} does not exist`);
    }
  }
  return url.href;
}

/**
 * Takes the port exclusively for a moment: a port in use (by any program, shared or not) fails
 * the whole start here, before any worker runs. Port 0 becomes the free port the kernel picks.
 * The probe is released before the workers listen on the port together.
 */
function checkPort(port: number, host: string | undefined): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${host ?? 'every address'}, port ${port}`;
      const why =
        err.code === 'EADDRINUSE'
          ? 'the port is already in use by another program (or another copy of this app); stop it or choose another port'
          : err.code === 'EACCES'
            ? 'permission denied (ports below 1024 need privileges)'
            : err.code === 'EADDRNOTAVAIL'
              ? `${host} is not an address of this machine`
              : err.message;
      reject(clusterError(ClusterErrorCodes.LISTEN_FAILED, `cluster(): could not listen on ${where}: ${why}`, err));
    });
    probe.listen({ port, host, exclusive: true }, () => {
      const { port: picked } = probe.address() as { port: number };
      probe.close(() => resolvePort(picked));
    });
  });
}

function startFailure(
  slot: Slot,
  child: ChildProcess,
  failure: FailedMessage | undefined,
  code: number | null,
  signal: NodeJS.Signals | null,
  port: number,
  host: string | undefined,
) {
  const who = `worker ${slot.id} (pid ${child.pid})`;
  if (!failure) return clusterError(ClusterErrorCodes.WORKER_FAILED, `cluster(): ${who} exited while starting (${signal ? `signal ${signal}` : `code ${code}`})`);
  const cause = Object.assign(new Error(failure.error.message), { code: failure.error.code, stack: failure.error.stack });
  if (failure.error.code === 'VELOX_ERR_LISTEN_FAILED') {
    return clusterError(ClusterErrorCodes.LISTEN_FAILED, `cluster(): ${who} could not listen on ${host ?? 'every address'}, port ${port}: ${failure.error.message}`, cause);
  }
  if (failure.entry) return clusterError(ClusterErrorCodes.INVALID_ENTRY, `cluster(): ${failure.error.message}`, cause);
  return clusterError(ClusterErrorCodes.WORKER_FAILED, `cluster(): ${who} failed to start: ${failure.error.message}`, cause);
}
