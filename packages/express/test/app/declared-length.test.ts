import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tempDir, until } from '@velox/test-utils';
import compression from 'compression';
import { describe, expect, it } from 'vitest';
import { type AnyExpress, both } from './harness.ts';

/** An answer read with `net`: the head lines as sent, and the body's bytes (framed by Content-Length, or chunked). */
interface Wire {
  status: string;
  /** Header lines by lower-case name (a name sent twice keeps both, joined by a newline). */
  headers: Record<string, string>;
  /** How many Content-Length lines the head had. */
  lengthLines: number;
  body: Buffer;
}

/** Decodes a chunked body, or returns undefined while it has not ended. */
function unchunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const size = Number.parseInt(bytes.subarray(at, eol).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    if (bytes.length < eol + 2 + size + 2) return undefined;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Sends `GET path` to `base` over a fresh connection and reads the whole answer as it came on the wire. */
function wire(base: string, path: string, headers = ''): Promise<Wire> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const check = () => {
      const bytes = Buffer.concat(chunks);
      const end = bytes.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [status, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
      const head: Record<string, string> = {};
      let lengthLines = 0;
      for (const line of lines) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).toLowerCase();
        if (name === 'content-length') lengthLines++;
        const value = line.slice(i + 1).trim();
        head[name] = head[name] === undefined ? value : `${head[name]}\n${value}`;
      }
      const rest = bytes.subarray(end + 4);
      let body: Buffer | undefined;
      if (head['transfer-encoding'] === 'chunked') body = unchunk(rest);
      else if (rest.length >= Number(head['content-length'] ?? 0)) body = rest.subarray(0, Number(head['content-length'] ?? 0));
      if (body === undefined) return;
      done = true;
      socket.destroy();
      resolve({ status: status!, headers: head, lengthLines, body });
    };
    socket.on('data', (d) => {
      chunks.push(d);
      check();
    });
    socket.on('error', reject);
    socket.on('close', () => done || reject(new Error(`closed before the whole answer to ${path}`)));
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`));
  });
}

/** `size` bytes that differ from one position to the next. */
function pattern(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 12)) & 255;
  return bytes;
}

/** Headers that only say which server answered. */
const SERVER_ONLY = ['date', 'connection', 'keep-alive', 'uwebsockets'];

function comparable(answer: Wire): Record<string, string> {
  const out = { ...answer.headers };
  for (const name of SERVER_ONLY) delete out[name];
  return out;
}

describe('express() bodies written in pieces under a declared Content-Length, compared with express@4', () => {
  it('sends a piped file over 1 MiB and res.sendFile() of a 3 MiB file with their Content-Length, not chunked', async () => {
    const dir = await tempDir();
    const big = pattern(3 * 1024 * 1024 + 11);
    const file = join(dir, 'big.bin');
    await writeFile(file, big);
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/pipe', (req: any, res: any) => {
        res.setHeader('Content-Type', 'application/octet-stream');
        res.setHeader('Content-Length', big.length);
        createReadStream(file).pipe(res);
      });
      app.get('/sendfile', (req: any, res: any) => res.sendFile(file, { lastModified: false, etag: false }));
      return app;
    });
    for (const path of ['/pipe', '/sendfile']) {
      const [theirs, ours] = await Promise.all([wire(pair.express, path), wire(pair.velox, path)]);
      expect(theirs.headers['content-length'], `express@4 ${path}`).toBe(String(big.length));
      expect(ours.status, path).toBe(theirs.status);
      expect(comparable(ours), path).toEqual(comparable(theirs));
      expect(ours.lengthLines, path).toBe(1);
      expect(ours.headers['transfer-encoding'], path).toBeUndefined();
      expect(ours.body.equals(big), path).toBe(true);
    }
  });

  it('reads headersSent true after the first write, as on Node, and sends a small body with its length', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/small', (req: any, res: any) => {
        res.setHeader('Content-Length', 9);
        res.write('ab');
        res.write(String(res.headersSent));
        res.end('abc');
      });
      return app;
    });
    const [theirs, ours] = await Promise.all([wire(pair.express, '/small'), wire(pair.velox, '/small')]);
    expect(theirs.body.toString()).toBe('abtrueabc');
    expect(ours.body.toString()).toBe('abtrueabc');
    expect(comparable(ours)).toEqual(comparable(theirs));
    expect(ours.lengthLines).toBe(1);
  });

  it('lets compression drop the length of a body it compresses, and keeps it on one it does not', async () => {
    const dir = await tempDir();
    const text = Buffer.from('velox '.repeat(400_000));
    const binary = pattern(2 * 1024 * 1024);
    await writeFile(join(dir, 'text.txt'), text);
    await writeFile(join(dir, 'image.png'), binary);
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.use(compression());
      app.get('/:name', (req: any, res: any) => res.sendFile(join(dir, req.params.name), { lastModified: false, etag: false }));
      return app;
    });
    const gzip = 'Accept-Encoding: gzip\r\n';
    const [theirText, ourText] = await Promise.all([wire(pair.express, '/text.txt', gzip), wire(pair.velox, '/text.txt', gzip)]);
    expect(ourText.headers['content-encoding']).toBe('gzip');
    expect(ourText.headers['content-length']).toBe(theirText.headers['content-length']);
    expect(ourText.headers['transfer-encoding']).toBe(theirText.headers['transfer-encoding']);
    expect(gunzipSync(ourText.body).equals(text)).toBe(true);
    const [theirBinary, ourBinary] = await Promise.all([wire(pair.express, '/image.png', gzip), wire(pair.velox, '/image.png', gzip)]);
    expect(theirBinary.headers['content-length']).toBe(String(binary.length));
    expect(comparable(ourBinary)).toEqual(comparable(theirBinary));
    expect(ourBinary.lengthLines).toBe(1);
    expect(ourBinary.body.equals(binary)).toBe(true);
  });

  it('sends the length after writeHead() too, and keeps the connection for the next request', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/head', (req: any, res: any) => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '6' });
        res.write('abc');
        setTimeout(() => res.end('def'), 10);
      });
      return app;
    });
    const [theirs, ours] = await Promise.all([wire(pair.express, '/head'), wire(pair.velox, '/head')]);
    expect(ours.body.toString()).toBe('abcdef');
    expect(comparable(ours)).toEqual(comparable(theirs));
    expect(ours.lengthLines).toBe(1);
    // Two in a row on one connection: the first answer's framing is exact.
    const { port } = new URL(pair.velox);
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (text.endsWith('\r\n\r\nabcdef') && !text.includes('\r\n\r\nabcdefHTTP')) socket.write('GET /head HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    socket.write('GET /head HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => text.split('\r\n\r\nabcdef').length === 3, 'two answers on one connection');
    socket.destroy();
  });
});
