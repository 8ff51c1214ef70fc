import { connect } from 'node:net';
import { afterEach } from 'vitest';
import { Server, type ServerOptions } from '../src/index.ts';

const open: Server[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((app) => app.close({ timeout: 1000 })));
});

/** A server that is closed after the test. Logging is off unless asked for. */
export function server(options: ServerOptions = {}): Server {
  const app = new Server({ logger: false, ...options });
  open.push(app);
  return app;
}

/** Listens on 127.0.0.1, port 0; returns the base URL and port. */
export async function start(app: Server): Promise<{ url: string; port: number }> {
  const { port } = await app.listen(0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, port };
}

/**
 * Sends raw bytes and collects what comes back until the server closes the connection or
 * `quietMs` pass without data. Resolves with the text and whether the server closed.
 */
export function raw(
  port: number,
  payload: string | Buffer | Array<string | Buffer>,
  { quietMs = 300, gapMs = 0 }: { quietMs?: number; gapMs?: number } = {},
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), quietMs);
    };
    socket.on('data', (d) => {
      text += d.toString('latin1');
      arm();
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? finish(true) : reject(err)));
    socket.on('connect', async () => {
      const parts = Array.isArray(payload) ? payload : [payload];
      for (const part of parts) {
        socket.write(part);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
      arm();
    });
  });
}

/** Splits a raw HTTP/1.1 stream into responses (status line, headers, body by Content-Length). */
export function parseResponses(text: string): Array<{ status: number; headers: Record<string, string>; body: string }> {
  const out: Array<{ status: number; headers: Record<string, string>; body: string }> = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
