import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, type ServerOptions } from '@velox/core';
import { afterEach } from 'vitest';

/** The shared Redis every helper uses; keys and channels get a random prefix per run. */
export const SHARED_URL = 'redis://127.0.0.1:6379';
export const prefix = `velox-redis-test:${randomBytes(6).toString('hex')}:`;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});
/** Runs `fn` after the current test. */
export function later(fn: () => Promise<unknown> | unknown): void {
  cleanups.push(fn);
}

/** A quiet server, closed after the test. */
export function server(options: ServerOptions = {}): Server {
  const app = new Server({ logger: false, ...options });
  later(() => app.close({ timeout: 1000 }));
  return app;
}

/** A TCP port nothing listens on (at the moment it is asked for). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Polls `check` every 25 ms until it returns true, for up to `ms` (generous: the machine is shared). */
export async function until(check: () => boolean | Promise<boolean>, ms = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Whether something answers PING on the port. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d;
      if (text.includes('PONG')) {
        socket.destroy();
        resolve(true);
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(text.includes('PONG')));
    socket.on('connect', () => socket.write('PING\r\n'));
  });
}

/**
 * A redis-server of the test's own, on a free port, as a child process: stop() kills it by its
 * PID, start() starts it again on the same port. Stopped after the test.
 */
export async function ownRedis(): Promise<{ url: string; port: number; stop(): Promise<void>; start(): Promise<void> }> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'velox-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    await until(() => pings(port), 15_000, `redis-server on port ${port}`);
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    process.kill(proc.pid!, 'SIGKILL');
    await exited;
  };
  await start();
  later(async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  });
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}

/** A logger that keeps its lines. */
export function memoryLogger(): { lines: string[]; error(...a: unknown[]): void; warn(...a: unknown[]): void; info(...a: unknown[]): void } {
  const lines: string[] = [];
  const push = (...a: unknown[]) => lines.push(a.map(String).join(' '));
  return { lines, error: push, warn: push, info: push };
}
