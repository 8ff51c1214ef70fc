import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, tempDir } from '@velox/test-utils';
import { type ServeStatic, type ServeStaticOptions, serveStatic } from '../src/index.ts';

/** A real temporary directory with these files (path → content), removed after the test. */
export async function tree(files: Record<string, string | Buffer> = {}): Promise<string> {
  const dir = await tempDir('velox-static-');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

export { symlink };

/** A quiet server, closed after the test. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

/**
 * A server serving `root` under `prefix`, listening; settleTime 0 unless given (files written by
 * the test before the server starts are complete).
 */
export async function serve(
  root: string,
  options: ServeStaticOptions = {},
  prefix = '/assets',
  setup?: (app: Server) => void,
): Promise<{ url: string; port: number; app: Server; files: ServeStatic }> {
  // Registered first, closed last: the server closes before its files stop watching.
  const files = closeAfter(serveStatic(root, { settleTime: 0, ...options }));
  const app = server();
  setup?.(app);
  app.use(prefix, files);
  await files.ready();
  const { port } = await app.listen(0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, port, app, files };
}

/** Fetches without following redirects; returns status, headers and the body bytes. */
export async function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Headers; body: Buffer; text: string }> {
  const r = await fetch(url, { redirect: 'manual', headers: { 'accept-encoding': 'identity', ...headers }, method });
  const body = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, body, text: body.toString() };
}

/** Parsed answer of a raw request. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  closed: boolean;
}

/**
 * Sends one request exactly as written (no URL normalisation, unlike fetch) and reads the
 * answer whole (by Content-Length), or until the server closes the connection.
 */
export function rawGet(port: number, target: string | Buffer, extra = '', waitMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let done = false;
    const timer = setTimeout(() => finish(false), waitMs);
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const end = buf.indexOf('\r\n\r\n');
      const head = (end < 0 ? buf : buf.subarray(0, end)).toString('latin1').split('\r\n');
      const status = Number(head[0]?.split(' ')[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: end < 0 ? Buffer.alloc(0) : buf.subarray(end + 4), closed });
    };
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /\r\ncontent-length: *(\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
      if (m && buf.length - end - 4 >= Number(m[1])) finish(false);
      if (!m && /^HTTP\/1\.1 (304|204)/.test(buf.toString('latin1', 0, 12))) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? finish(true) : reject(err)));
    socket.on('connect', () => {
      socket.write(Buffer.concat([Buffer.from('GET '), Buffer.from(target), Buffer.from(` HTTP/1.1\r\nHost: x\r\n${extra}\r\n`)]));
    });
  });
}
