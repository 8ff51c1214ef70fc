/**
 * What every compatibility test shares: a Velox server closed after each test (real uWS on
 * 127.0.0.1, port 0), temporary directories removed afterwards, and a console capture for
 * middlewares that log.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
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

/** Sends raw bytes to the server at `url` and resolves with everything it answers until it goes quiet. */
export function rawRequest(url: string, payload: string, quietMs = 300): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    socket.on('data', (d) => {
      text += d.toString('latin1');
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    });
    socket.on('close', finish);
    socket.on('error', reject);
    socket.on('connect', () => {
      socket.write(payload);
      timer = setTimeout(finish, quietMs * 10);
    });
  });
}

/** The first response in a raw HTTP/1.1 answer: status, headers (lower-case) and body (by Content-Length). */
export function parseHttp(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = headers['content-length'] === undefined ? 0 : Number(headers['content-length']);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4, end + 4 + length) };
}
