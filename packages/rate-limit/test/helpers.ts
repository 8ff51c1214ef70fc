import { connect } from 'node:net';
import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, dropKeys, later, listen, REDIS_URL, redisPrefix } from '@velox/test-utils';
import { afterAll } from 'vitest';
import { MemoryStore, type RateLimitStore, RedisStore } from '../src/index.ts';

/** Keys in the shared Redis get a random prefix per run (other packages' tests use it too). */
export const runPrefix = redisPrefix('velox-rate-limit-test');

// Leave nothing behind in the shared Redis: every key this run made starts with runPrefix.
afterAll(() => dropKeys(runPrefix));

/** A quiet server (or one with the given logger), closed after the test. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

/** A logger that keeps its lines. */
export function memoryLogger(): { lines: string[]; error(...a: unknown[]): void; warn(...a: unknown[]): void; info(...a: unknown[]): void } {
  const lines: string[] = [];
  const push = (...a: unknown[]) => lines.push(a.map((x) => (x instanceof Error ? x.message : String(x))).join(' '));
  return { lines, error: push, warn: push, info: push };
}

let stores = 0;
/** A prefix of its own in the shared Redis for one store. */
export function storePrefix(): string {
  return `${runPrefix}${++stores}:`;
}

/** A RedisStore on the shared Redis with a prefix of its own, closed after the test. */
export function redisStore(options: ConstructorParameters<typeof RedisStore>[0] = {}): RedisStore {
  const store = new RedisStore({ url: REDIS_URL, prefix: storePrefix(), logger: false, ...options });
  later(() => store.close());
  return store;
}

/** The two stores every shared behaviour is tested with. */
export const storeKinds = [
  { kind: 'MemoryStore', make: (): RateLimitStore => new MemoryStore() },
  { kind: 'RedisStore', make: (): RateLimitStore => redisStore() },
] as const;

/** One answer: status, headers, and the body as JSON when it is JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** Fetches and reads the body (JSON when it parses). */
export async function hit(url: string, init: RequestInit = {}): Promise<Answer> {
  const r = await fetch(url, init);
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: r.status, headers: r.headers, body };
}

/** `n` requests one after the other; their answers. */
export async function hits(url: string, n: number, init: RequestInit = {}): Promise<Answer[]> {
  const out: Answer[] = [];
  for (let i = 0; i < n; i++) out.push(await hit(url, init));
  return out;
}

/** A server with `routes` set up, listening; resolves with its base URL. */
export async function serve(setup: (app: Server) => void, options: ServerOptions = {}): Promise<{ app: Server; url: string }> {
  const app = server(options);
  setup(app);
  return { app, url: await listen(app) };
}

/**
 * Sends `paths.length` GET requests pipelined on one connection (written as fast as the socket
 * takes them) and resolves with the status of each answer, in order: a flood over a real socket,
 * without a client's per-request overhead.
 */
export function pipelined(port: number, paths: readonly string[], headers = ''): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const statuses: number[] = [];
    let pending = '';
    socket.setEncoding('latin1');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      pending += chunk;
      // Answers are small and whole (Content-Length bodies): find each status line.
      let at = pending.indexOf('HTTP/1.1 ');
      let last = -1;
      while (at !== -1) {
        if (pending.length < at + 12) break;
        statuses.push(Number(pending.slice(at + 9, at + 12)));
        last = at + 12;
        at = pending.indexOf('HTTP/1.1 ', last);
      }
      if (last !== -1) pending = pending.slice(last);
      if (statuses.length === paths.length) {
        socket.destroy();
        resolve(statuses);
      }
    });
    socket.on('close', () => {
      if (statuses.length !== paths.length) reject(new Error(`connection closed after ${statuses.length} of ${paths.length} answers`));
    });
    socket.on('connect', () => {
      let i = 0;
      const pump = () => {
        while (i < paths.length) {
          let batch = '';
          for (const end = Math.min(paths.length, i + 500); i < end; i++) batch += `GET ${paths[i]} HTTP/1.1\r\nHost: t\r\n${headers}\r\n`;
          if (!socket.write(batch)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
  });
}

/** Waits until `at` (a time in ms since the epoch) has passed. */
export function waitUntil(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}
