import { randomBytes } from 'node:crypto';
import { Server, type ServerOptions } from '@velox/core';
import { afterEach } from 'vitest';
import WebSocket from 'ws';

const open: Server[] = [];
const clients: WebSocket[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  await Promise.all(open.splice(0).map((app) => app.close({ timeout: 2000 })));
});

/** A server that is closed after the test. Logging goes to `logs` (errors and warnings). */
export function server(options: ServerOptions = {}): Server & { logs: string[] } {
  const logs: string[] = [];
  const record = (...args: unknown[]) => void logs.push(args.map((a) => (a instanceof Error ? `${a.message}` : String(a))).join(' '));
  const app = new Server({ logger: { error: record, warn: record, info: record }, ...options }) as Server & { logs: string[] };
  app.logs = logs;
  open.push(app);
  return app;
}

/** Listens on 127.0.0.1, port 0; returns the ws:// base URL and the port. */
export async function start(app: Server): Promise<{ url: string; port: number }> {
  const { port } = await app.listen(0, '127.0.0.1');
  return { url: `ws://127.0.0.1:${port}`, port };
}

/** A client socket that collects what it receives, terminated after the test. */
export interface Client extends WebSocket {
  inbox: Array<{ data: Buffer; text: string; binary: boolean }>;
  closedWith: Promise<{ code: number; reason: string }>;
}

/** Opens a client; resolves once open. */
export function connect(url: string, options: WebSocket.ClientOptions = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options) as Client;
    clients.push(ws);
    ws.inbox = [];
    ws.on('message', (data: Buffer, binary) => ws.inbox.push({ data, text: data.toString(), binary }));
    ws.closedWith = new Promise((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('open', () => resolve(ws));
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

/** Resolves with the HTTP answer to an upgrade that was refused (or 101 when it opened). */
export function attempt(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    clients.push(ws);
    ws.on('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', (err) => (err.message.includes('Unexpected server response') ? undefined : reject(err)));
  });
}

/** Polls until `check` holds (generous: the machine may be loaded). */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A prefix of Redis names no other test run uses (the Redis at 6379 is shared). */
export function uniquePrefix(): string {
  return `velox-ws-test:${randomBytes(6).toString('hex')}:`;
}

export const REDIS_URL = 'redis://127.0.0.1:6379';
