/**
 * `express.static(root, options)`: Express 4's serve-static 1.x, with its plain case answered
 * from memory. serve-static (through send 0.19) stats the file, opens it, reads it through a
 * stream piped into the response and closes it: four trips to libuv's thread pool and a stream
 * per request. Here a GET or HEAD of a plain path (letters, digits, `-_~.`, no dot segment, no
 * escape, no trailing slash) with no Range and no conditional header stats the file and, when
 * the bytes of that very version (same size, mtime, ctime, inode) are in memory, answers them
 * with the headers send would write, in its order: Accept-Ranges, Cache-Control, Last-Modified,
 * ETag, Content-Type, Content-Length, after the `setHeaders` option's. Every other request, a
 * miss, a directory, a missing file, goes to serve-static itself, unchanged (a miss also reads
 * the file into memory for the next request, kept only if the file did not change meanwhile).
 * A test compares both paths' answers byte for byte against express@4.
 */
import { readFile, type Stats, stat as statFile } from 'node:fs';
import { resolve } from 'node:path';
import { mime, ms, onMimeDefine, serveStatic } from './libs.ts';
import type { Next, Req, Res } from './router.ts';

/** A file whose bytes are larger than this is always streamed by serve-static. */
export const STATIC_MEMORY_FILE_LIMIT = 256 * 1024;
/** What every `express.static()` of the process keeps in memory at most, in bytes. */
export const STATIC_MEMORY_LIMIT = 32 * 1024 * 1024;
/** send's upper bound for `maxAge` (a year). */
const MAX_MAXAGE = 60 * 60 * 24 * 365 * 1000;

/** A path the fast path takes: `/`-separated segments of safe characters, none starting with a dot. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9_~.-]*)+$/;

interface Entry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
  body: Buffer;
  lastModified: string;
  etag: string;
  /** send's Content-Type for the path (`undefined` until first asked; cleared by mime.define). */
  type: string | undefined;
}

/** The files in memory, by absolute path, oldest first (evicted in that order). */
const entries = new Map<string, Entry>();
let bytesHeld = 0;
/** Paths being read into memory now. */
const filling = new Set<string>();
/** Requests answered from memory since the process started. */
let hits = 0;

/**
 * @internal What the static middlewares hold: files and bytes in memory, requests answered from
 * memory (for tests and diagnostics).
 */
export function staticMemory(): { files: number; bytes: number; hits: number } {
  return { files: entries.size, bytes: bytesHeld, hits };
}

onMimeDefine.add(() => {
  for (const entry of entries.values()) entry.type = undefined;
});

function sameVersion(entry: { size: number; mtimeMs: number; ctimeMs: number; ino: number; dev: number }, stats: Stats): boolean {
  return entry.size === stats.size && entry.mtimeMs === stats.mtimeMs && entry.ctimeMs === stats.ctimeMs && entry.ino === stats.ino && entry.dev === stats.dev;
}

function drop(path: string): void {
  const entry = entries.get(path);
  if (entry === undefined) return;
  entries.delete(path);
  bytesHeld -= entry.size;
}

/** Reads `path` into memory if it still is the version `stats` describes once read. */
function fill(path: string, stats: Stats): void {
  if (filling.has(path) || stats.size > STATIC_MEMORY_FILE_LIMIT) return;
  filling.add(path);
  readFile(path, (err, body) => {
    if (err) {
      filling.delete(path);
      return;
    }
    statFile(path, (err2, after) => {
      filling.delete(path);
      if (err2 || !sameVersion(stats, after) || body.length !== after.size) return;
      drop(path);
      while (bytesHeld + body.length > STATIC_MEMORY_LIMIT && entries.size > 0) drop(entries.keys().next().value!);
      entries.set(path, {
        size: after.size,
        mtimeMs: after.mtimeMs,
        ctimeMs: after.ctimeMs,
        ino: after.ino,
        dev: after.dev,
        body,
        lastModified: after.mtime.toUTCString(),
        // The etag package's tag of a Stats: weak, size and mtime in hex.
        etag: `W/"${after.size.toString(16)}-${after.mtime.getTime().toString(16)}"`,
        type: undefined,
      });
      bytesHeld += body.length;
    });
  });
}

/** send's Content-Type: mime 1.x's type of the path and, for a text type, its charset. */
function typeOf(path: string): string | undefined {
  const type = mime.lookup(path);
  if (!type) return undefined;
  const charset = mime.charsets.lookup(type);
  return type + (charset ? `; charset=${charset}` : '');
}

/** The options of serve-static that shape the answer, read as send 0.19 reads them. */
interface Shape {
  root: string;
  acceptRanges: boolean;
  cacheControl: string | undefined;
  lastModified: boolean;
  etag: boolean;
  setHeaders: ((res: Res, path: string, stats: Stats) => void) | undefined;
}

function shapeOf(root: string, options: Record<string, any>): Shape {
  let maxAge: unknown = options.maxAge || options.maxage || 0;
  maxAge = typeof maxAge === 'string' ? (ms as (text: string) => number | undefined)(maxAge) : Number(maxAge);
  const age = Number.isNaN(maxAge) || maxAge === undefined ? 0 : Math.min(Math.max(0, maxAge as number), MAX_MAXAGE);
  const flag = (value: unknown) => (value !== undefined ? Boolean(value) : true);
  const immutable = options.immutable !== undefined ? Boolean(options.immutable) : false;
  return {
    root: resolve(root),
    acceptRanges: flag(options.acceptRanges),
    cacheControl: flag(options.cacheControl) ? `public, max-age=${Math.floor(age / 1000)}${immutable ? ', immutable' : ''}` : undefined,
    lastModified: flag(options.lastModified),
    etag: flag(options.etag),
    setHeaders: options.setHeaders,
  };
}

/** True when `req` needs nothing of send but a whole file: GET or HEAD, no Range, no condition. */
function wholeFileRequest(req: Req): boolean {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const h = req.headers;
  return h.range === undefined && h['if-none-match'] === undefined && h['if-modified-since'] === undefined && h['if-match'] === undefined && h['if-unmodified-since'] === undefined;
}

/** The path part of `req.url` when it is a plain path, else undefined. */
function plainPathOf(req: Req): string | undefined {
  const url: unknown = req.url;
  if (typeof url !== 'string') return undefined;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return PLAIN_PATH.test(path) ? path : undefined;
}

/** Writes the remembered file as send would have. */
function answer(req: Req, res: Res, shape: Shape, path: string, stats: Stats, entry: Entry): void {
  hits++;
  if (shape.setHeaders) shape.setHeaders(res, path, stats);
  if (shape.acceptRanges && !res.getHeader('Accept-Ranges')) res.setHeader('Accept-Ranges', 'bytes');
  if (shape.cacheControl !== undefined && !res.getHeader('Cache-Control')) res.setHeader('Cache-Control', shape.cacheControl);
  if (shape.lastModified && !res.getHeader('Last-Modified')) res.setHeader('Last-Modified', entry.lastModified);
  if (shape.etag && !res.getHeader('ETag')) res.setHeader('ETag', entry.etag);
  if (!res.getHeader('Content-Type')) {
    entry.type ??= typeOf(path);
    if (entry.type) res.setHeader('Content-Type', entry.type);
  }
  res.setHeader('Content-Length', entry.size);
  if (req.method === 'HEAD') res.end();
  else res.end(entry.body);
}

/**
 * Express 4's `express.static(root, [options])`: serve-static 1.x with every option it takes
 * (`index`, `redirect`, `fallthrough`, `dotfiles`, `extensions`, `maxAge`, `immutable`,
 * `cacheControl`, `lastModified`, `etag`, `acceptRanges`, `setHeaders`), whose plain requests
 * for a small file already read are answered from memory (see the file's comment).
 * @example
 * ```ts
 * app.use('/static', express.static('public', { maxAge: '1d' }));
 * ```
 */
export function staticFiles(root: string, options?: Record<string, unknown>): (req: Req, res: Res, next: Next) => void {
  const slow = serveStatic(root, options);
  const shape = shapeOf(root, options ?? {});
  return function serveStatic(req: Req, res: Res, next: Next): void {
    const path = wholeFileRequest(req) ? plainPathOf(req) : undefined;
    if (path === undefined) return slow(req, res, next);
    const full = shape.root + path;
    statFile(full, (err, stats) => {
      if (err || !stats.isFile() || res.headersSent) return slow(req, res, next);
      const entry = entries.get(full);
      if (entry !== undefined && sameVersion(entry, stats)) {
        // A setHeaders that throws reaches the app's error handlers (on Express it would be an
        // uncaught exception in send's stat callback).
        try {
          answer(req, res, shape, full, stats, entry);
        } catch (error) {
          next(error);
        }
        return;
      }
      if (entry !== undefined) drop(full);
      slow(req, res, next);
      fill(full, stats);
    });
  };
}
/** Express 4's MIME table, as serve-static exposes it (`express.static.mime`). */
staticFiles.mime = mime;
