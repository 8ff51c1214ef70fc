/** A quiet server with compress(), and an HTTP client that shows the exact bytes and decodes them itself. */
import { Buffer } from 'node:buffer';
import { type IncomingHttpHeaders, request } from 'node:http';
import * as zlib from 'node:zlib';
import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, listen } from '@velox/test-utils';
import { type CompressOptions, compress } from '../src/index.ts';

/** Whether this Node has zstd (Node ≥ 22.15): the zstd cases are skipped on Node 20. */
export const HAS_ZSTD = typeof (zlib as { zstdDecompressSync?: unknown }).zstdDecompressSync === 'function';

/** A quiet server, closed after the test. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

/** A server with `compress(options)` on every route; routes added by `routes`; resolves its base URL. */
export async function app(options: CompressOptions | undefined, routes: (app: Server) => void, serverOptions: ServerOptions = {}): Promise<string> {
  const a = server(serverOptions);
  a.use(compress(options));
  routes(a);
  return listen(a);
}

/** A JSON-ish text of about `bytes` characters that compresses well. */
export function text(bytes: number, seed = 'velox'): string {
  let out = '';
  for (let i = 0; out.length < bytes; i++) out += `${seed}-${i % 97} `;
  return out.slice(0, bytes);
}

/** A JSON value whose JSON.stringify is about `bytes` long. */
export function jsonOf(bytes: number): { items: string[] } {
  const items: string[] = [];
  while (JSON.stringify({ items }).length < bytes) items.push(`item number ${items.length}`);
  return { items };
}

/** Decodes a body by its Content-Encoding (none: as it is). */
export function decode(body: Buffer, coding: string | undefined): Buffer {
  switch (coding) {
    case undefined:
    case 'identity':
      return body;
    case 'gzip':
      return zlib.gunzipSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    case 'zstd':
      return (zlib as unknown as { zstdDecompressSync(b: Buffer): Buffer }).zstdDecompressSync(body);
    default:
      throw new Error(`unexpected content-encoding ${coding}`);
  }
}

/** One answer, as node:http's client gives it (chunked framing removed, nothing decoded), then decoded by its Content-Encoding. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes received (compressed, when they are). */
  raw: Buffer;
  /** The body decoded, as text. */
  text: string;
  /** Content-Encoding, or undefined. */
  coding: string | undefined;
}

/** A request through node:http with these headers (Accept-Encoding given as is: none by default). */
export function fetchRaw(url: string, init: { method?: string; headers?: Record<string, string | string[]> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const coding = res.headers['content-encoding'];
        try {
          resolve({ status: res.statusCode!, headers: res.headers, raw, text: decode(raw, coding).toString(), coding });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET with `Accept-Encoding: <acceptEncoding>`. */
export function getWith(url: string, acceptEncoding: string | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  return fetchRaw(url, { headers: acceptEncoding === undefined ? headers : { 'accept-encoding': acceptEncoding, ...headers } });
}

/** A promise and the function that resolves it. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Rejects after `ms` with `what` (for a wait that must not hang the test). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}
