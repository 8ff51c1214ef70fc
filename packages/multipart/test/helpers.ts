import { Buffer } from 'node:buffer';
import { readdirSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server, type ServerOptions } from '@velox/core';
import { afterEach } from 'vitest';
import { type MultipartOptions, multipart } from '../src/index.ts';

const servers: Server[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((app) => app.close({ timeout: 1000 })));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A quiet server with the multipart plugin, closed after the test. */
export async function server(options: MultipartOptions | undefined = undefined, serverOptions: ServerOptions = {}): Promise<Server> {
  const app = new Server({ logger: false, ...serverOptions });
  servers.push(app);
  await app.register(multipart, options);
  return app;
}

/** Listens on 127.0.0.1, port 0. */
export async function start(app: Server): Promise<{ url: string; port: number }> {
  const { port } = await app.listen(0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, port };
}

/** A temporary directory, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'velox-multipart-'));
  dirs.push(dir);
  return dir;
}

export async function listDir(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** Open file descriptors of this process. */
export function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

export const BOUNDARY = 'VeloxBoundary7MA4YWxkTrZu0gW';

export interface RawPart {
  /** The whole Content-Disposition value; default `form-data; name="<name>"` (+ filename). */
  disposition?: string;
  name?: string;
  filename?: string;
  type?: string;
  /** Extra header lines, written as given. */
  headers?: string[];
  body?: string | Buffer;
}

/** A multipart body, byte for byte; `close: false` leaves out the closing boundary. */
export function formBody(parts: RawPart[], { boundary = BOUNDARY, close = true }: { boundary?: string; close?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition =
      part.disposition ?? `form-data; name="${part.name ?? 'field'}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    let head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n`;
    if (part.type) head += `Content-Type: ${part.type}\r\n`;
    for (const line of part.headers ?? []) head += `${line}\r\n`;
    head += '\r\n';
    chunks.push(Buffer.from(head, 'utf8'), Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body ?? '', 'utf8'), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Posts a body built by hand with fetch; returns status and parsed JSON (or text). */
export async function post(
  url: string,
  body: Buffer | string,
  contentType: string | undefined = `multipart/form-data; boundary=${BOUNDARY}`,
): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  const r = await fetch(url, { method: 'POST', body, headers });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, json, text, headers: r.headers };
}

/** A raw connection: write bytes, read what comes back, see when it closes. */
export interface RawConnection {
  socket: Socket;
  text(): string;
  closed: Promise<void>;
  /** Resolves once the received text satisfies `check` (polling), or rejects after `timeoutMs`. */
  until(check: (text: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  write(data: string | Buffer): Promise<void>;
}

export function rawConnection(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', () => {});
    socket.once('error', reject);
    socket.once('connect', () =>
      resolve({
        socket,
        text: () => text,
        closed,
        async until(check, what, timeoutMs = 10_000) {
          const start = Date.now();
          while (!check(text)) {
            if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(text.slice(0, 300))}`);
            if (socket.destroyed && !check(text)) throw new Error(`connection closed before ${what}; got ${JSON.stringify(text.slice(0, 300))}`);
            await sleep(10);
          }
          return text;
        },
        write: (data) => new Promise<void>((done, fail) => socket.write(data, (err) => (err ? fail(err) : done()))),
      }),
    );
  });
}

/** Splits raw HTTP/1.1 responses (Content-Length or chunked bodies). */
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
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        if (lineEnd < 0) return out;
        const size = Number.parseInt(rest.slice(0, lineEnd), 16);
        if (size === 0) {
          rest = rest.slice(lineEnd + 4);
          break;
        }
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        rest = rest.slice(lineEnd + 2 + size + 2);
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
  }
  return out;
}

/** The head of a POST with a multipart body of `length` bytes. */
export function postHead(path: string, length: number, { boundary = BOUNDARY, extra = '' }: { boundary?: string; extra?: string } = {}): string {
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n${extra}\r\n`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it is true (every 20 ms), failing after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
