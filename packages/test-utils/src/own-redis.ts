/**
 * A redis-server of a test's own, for tests that stop Redis on purpose (the shared one at 6379
 * is never stopped): on a free port, stopped and started again by its PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { later } from './cleanup.ts';
import { freePort } from './net.ts';
import { pings } from './redis.ts';
import { until } from './wait.ts';

/** A redis-server child process of the test's own. */
export interface OwnRedis {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Sends `signal` (default SIGKILL) to its PID and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port; resolves once it answers PING. */
  start(): Promise<void>;
}

/** Options of {@link ownRedis}. */
export interface OwnRedisOptions {
  /** The port on 127.0.0.1 (one from `freePort()`, say). Default: a free one. */
  port?: number;
  /** Start it now (resolve once it answers PING); `false` leaves the port empty until `start()`, for a Redis that comes up after the app. Default: true. */
  started?: boolean;
}

/**
 * Starts a redis-server on a free port of 127.0.0.1 (no persistence, its files in a temporary
 * directory); resolves once it answers PING. Stopped, and its directory removed, after the test.
 * With `{ started: false }` nothing listens on the port until `start()`.
 * @example
 * ```ts
 * const own = await ownRedis();
 * const redis = new RedisConnection({ url: own.url });
 * await own.stop();  // Redis goes away
 * await own.start(); // and comes back on the same port
 *
 * const late = await ownRedis({ started: false }); // a Redis that is not up yet
 * ```
 */
export async function ownRedis(options: OwnRedisOptions = {}): Promise<OwnRedis> {
  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), 'velox-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    child = proc;
    let exited = false;
    proc.once('exit', () => {
      exited = true;
    });
    await until(
      async () => {
        if (exited) throw new Error(`redis-server on port ${port} exited (${proc.exitCode ?? proc.signalCode}) before it answered`);
        return pings(port);
      },
      `redis-server on port ${port}`,
      15_000,
    );
  };
  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(proc.pid!, signal);
    await exited;
  };
  later(async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  });
  if (options.started !== false) await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}
