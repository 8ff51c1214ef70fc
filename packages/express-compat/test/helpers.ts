/**
 * What every compatibility test shares: a Velox server closed after each test (real uWS on
 * 127.0.0.1, port 0), temporary directories removed afterwards, and a console capture for
 * middlewares that log.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, type ServerOptions } from '@velox/core';
import { afterEach } from 'vitest';

const open: Server[] = [];
const dirs: string[] = [];
const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((app) => app.close({ timeout: 1000 })));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A Velox server that is closed after the test. Logging is off unless asked for. */
export function server(options: ServerOptions = {}): Server {
  const app = new Server({ logger: false, ...options });
  open.push(app);
  return app;
}

/** Listens on 127.0.0.1, port 0; returns the base URL. */
export async function start(app: Server): Promise<string> {
  const { port } = await app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${port}`;
}

/** A temporary directory, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'velox-compat-'));
  dirs.push(dir);
  return dir;
}

/** Runs `fn` after the test, after the servers closed (last registered, first run). */
export function onCleanup(fn: () => unknown): void {
  cleanups.push(fn);
}

/** Polls until `check` returns a value other than undefined (for logs written after the response). */
export async function eventually<T>(check: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The Set-Cookie lines of a response, as `name=value` pairs (attributes dropped). */
export function cookiesOf(res: globalThis.Response): string[] {
  return res.headers.getSetCookie().map((line) => line.split(';')[0]!);
}

/** A random prefix, so tests sharing Redis never see each other's keys. */
export function randomPrefix(name: string): string {
  return `velox-compat:${name}:${process.pid}:${Math.random().toString(36).slice(2)}:`;
}
