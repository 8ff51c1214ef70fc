/**
 * WebSocket clients (the `ws` package) for tests: each is terminated when the test that opened
 * it has finished.
 */
import WebSocket from 'ws';
import { later } from './cleanup.ts';

/** A client socket that collects what it receives. */
export interface Client extends WebSocket {
  /** Every message received, in order. */
  inbox: Array<{ data: Buffer; text: string; binary: boolean }>;
  /** Resolves with the close code and reason the client saw. */
  closedWith: Promise<{ code: number; reason: string }>;
}

/** Terminates `ws` after the test. */
function track(ws: WebSocket): void {
  later(() => ws.terminate());
}

/**
 * Opens a client; resolves once it is open, rejects with `HTTP <status>` when the upgrade is
 * refused.
 * @example
 * ```ts
 * const client = await connect(`${url}/chat`);
 * client.send('hi');
 * await until(() => client.inbox.length === 1, 'the echo');
 * ```
 */
export function connect(url: string, options: WebSocket.ClientOptions = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options) as Client;
    track(ws);
    ws.inbox = [];
    ws.on('message', (data: Buffer, binary) => ws.inbox.push({ data, text: data.toString(), binary }));
    ws.closedWith = new Promise((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('open', () => resolve(ws));
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

/**
 * Tries an upgrade: resolves with the HTTP status and body of a refusal, or 101 (and closes the
 * socket) when it opened.
 * @example
 * ```ts
 * expect(await attempt(`${url}/private`)).toEqual({ status: 401, body: 'no' });
 * ```
 */
export function attempt(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    track(ws);
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

/**
 * The messages `ws` receives from now on, as text: a live list.
 * @example
 * ```ts
 * const got = received(client);
 * await until(() => got.length === 1, 'the answer');
 * expect(got).toEqual([{ data: '7', binary: false }]);
 * ```
 */
export function received(ws: WebSocket): Array<{ data: string; binary: boolean }> {
  const list: Array<{ data: string; binary: boolean }> = [];
  ws.on('message', (data, binary) => list.push({ data: String(data), binary }));
  return list;
}
