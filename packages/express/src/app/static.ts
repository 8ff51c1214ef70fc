/**
 * `express.static(root, options)` of both entries: serve-static (1.x for the Express 4 entry, 2.x
 * for `@velox/express/5`), with its plain case answered from memory. serve-static (through send)
 * stats the file, opens it, reads it through a stream piped into the response and closes it: four
 * trips to libuv's thread pool and a stream per request. Here a GET or HEAD of a plain path
 * (letters, digits, `-_~.`, no dot segment, no escape, no trailing slash) with no Range and no
 * conditional header stats the file and, when the bytes of that very version (same size, mtime,
 * ctime, inode) are in memory, answers them with the headers send would write, in its order:
 * Accept-Ranges, Cache-Control, Last-Modified, ETag, Content-Type, Content-Length, after the
 * `setHeaders` option's. Every other request, a miss, a directory, a missing file, goes to
 * serve-static itself, unchanged (a miss also reads the file into memory for the next request,
 * kept only if the file did not change meanwhile). What differs between the two majors on this
 * road is the Content-Type (send 0.19: mime 1, nothing for an unknown extension; send 1:
 * mime-types 3, `application/octet-stream` for one): each entry passes its {@link StaticRules}.
 * Tests compare both roads' answers byte for byte against express@4 and express@5.
 */
import { readFile, type Stats, stat as statFile } from 'node:fs';
import { resolve, sep } from 'node:path';
import { mime, ms, type NodeMiddleware, onMimeDefine, send, serveStatic } from './libs.ts';
import type { Next, Req, Res } from './router.ts';

/** A file whose bytes are larger than this is always streamed by serve-static. */
export const STATIC_MEMORY_FILE_LIMIT = 256 * 1024;
/** What every `express.static()` of the process keeps in memory at most, in bytes. */
export const STATIC_MEMORY_LIMIT = 32 * 1024 * 1024;
/** send's upper bound for `maxAge` (a year). */
const MAX_MAXAGE = 60 * 60 * 24 * 365 * 1000;

/** A path the fast path takes: `/`-separated segments of safe characters, none starting with a dot. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9_~.-]*)+$/;

/** A file in memory. */
export interface Entry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
  body: Buffer;
  lastModified: string;
  etag: string;
  /** send 0.19's Content-Type for the path (`undefined` until first asked; cleared by mime.define). */
  type: string | undefined;
}

/**
 * What one major's `express.static` is made of: its serve-static, the send that serve-static
 * drives (its constructor checks the options as each request would), and the Content-Type that
 * send writes for a file.
 * @example
 * ```ts
 * const rules5: StaticRules = { serveStatic: serveStatic5, send: send5, type: (path) => contentType(extname(path)) || 'application/octet-stream' };
 * ```
 */
export interface StaticRules {
  /** serve-static's factory: every request the memory does not answer goes to its middleware. */
  serveStatic: (root: string, options?: Record<string, unknown>) => NodeMiddleware;
  /** send's factory, `send(req, path, options)`: made once with the options, to see whether it throws. */
  send: (req: unknown, path: string, options?: Record<string, unknown>) => unknown;
  /** The Content-Type send writes for the file at `path` (undefined: none). */
  type(path: string, entry: Entry): string | undefined;
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

/** send 0.19's Content-Type: mime 1.x's type of the path and, for a text type, its charset. */
function typeOf(path: string): string | undefined {
  const type = mime.lookup(path);
  if (!type) return undefined;
  const charset = mime.charsets.lookup(type);
  return type + (charset ? `; charset=${charset}` : '');
}

/** The Express 4 entry's rules: serve-static 1.x, send 0.19, mime 1.x (looked up once a file, forgotten by mime.define). */
const RULES_4: StaticRules = {
  serveStatic,
  send,
  type: (path, entry) => (entry.type ??= typeOf(path)),
};

/** The options of serve-static that shape the answer, read as send 0.19 reads them. */
interface Shape {
  root: string;
  acceptRanges: boolean;
  cacheControl: string | undefined;
  lastModified: boolean;
  etag: boolean;
  setHeaders: ((res: Res, path: string, stats: Stats) => void) | undefined;
}

/**
 * Whether send takes these options: serve-static hands them to send on every request, and send's
 * constructor throws on some (`dotfiles: 'nope'`, an `index` or `extensions` that is not a list
 * of strings). Then every request goes to serve-static, whose throw reaches the app's error
 * handlers as on Express; the memory never answers for it.
 */
function sendTakes(rules: StaticRules, root: string, options: Record<string, unknown>): boolean {
  // The options object serve-static builds for send.
  const opts = Object.create(options) as Record<string, unknown>;
  opts.maxage = opts.maxage || opts.maxAge || 0;
  opts.root = resolve(root);
  try {
    rules.send({ headers: {} }, '', opts);
    return true;
  } catch {
    return false;
  }
}

function shapeOf(root: string, options: Record<string, any>): Shape {
  let maxAge: unknown = options.maxAge || options.maxage || 0;
  maxAge = typeof maxAge === 'string' ? (ms as (text: string) => number | undefined)(maxAge) : Number(maxAge);
  const age = Number.isNaN(maxAge) || maxAge === undefined ? 0 : Math.min(Math.max(0, maxAge as number), MAX_MAXAGE);
  const flag = (value: unknown) => (value !== undefined ? Boolean(value) : true);
  const immutable = options.immutable !== undefined ? Boolean(options.immutable) : false;
  const absolute = resolve(root);
  return {
    // send joins and normalizes: the root `/` and a plain path give `/path`, not `//path`.
    root: absolute.endsWith(sep) ? absolute.slice(0, -1) : absolute,
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
function answer(req: Req, res: Res, shape: Shape, rules: StaticRules, path: string, stats: Stats, entry: Entry): void {
  hits++;
  if (shape.setHeaders) shape.setHeaders(res, path, stats);
  if (shape.acceptRanges && !res.getHeader('Accept-Ranges')) res.setHeader('Accept-Ranges', 'bytes');
  if (shape.cacheControl !== undefined && !res.getHeader('Cache-Control')) res.setHeader('Cache-Control', shape.cacheControl);
  if (shape.lastModified && !res.getHeader('Last-Modified')) res.setHeader('Last-Modified', entry.lastModified);
  if (shape.etag && !res.getHeader('ETag')) res.setHeader('ETag', entry.etag);
  if (!res.getHeader('Content-Type')) {
    const type = rules.type(path, entry);
    if (type) res.setHeader('Content-Type', type);
  }
  res.setHeader('Content-Length', entry.size);
  if (req.method === 'HEAD') res.end();
  else res.end(entry.body);
}

/**
 * An `express.static(root, options)` made of `rules`: serve-static's middleware, with the plain
 * requests for a small file already read answered from memory (see the file's comment). Options
 * send refuses give serve-static's middleware alone.
 * @example
 * ```ts
 * app.use('/static', memoryStatic(rules5, 'public', { maxAge: '1d' })); // what express.static of the 5 entry returns
 * ```
 */
export function memoryStatic(rules: StaticRules, root: string, options?: Record<string, unknown>): (req: Req, res: Res, next: Next) => void {
  const slow = rules.serveStatic(root, options);
  if (!sendTakes(rules, root, options ?? {})) return slow;
  const shape = shapeOf(root, options ?? {});
  // serve-static, called from the stat callback: a throw there reaches next(), as the router
  // passes on a middleware's throw.
  const handOver = (req: Req, res: Res, next: Next): boolean => {
    try {
      slow(req, res, next);
      return true;
    } catch (error) {
      next(error);
      return false;
    }
  };
  return function serveStatic(req: Req, res: Res, next: Next): void {
    const path = wholeFileRequest(req) ? plainPathOf(req) : undefined;
    if (path === undefined) return slow(req, res, next);
    const full = shape.root + path;
    statFile(full, (err, stats) => {
      if (err || !stats.isFile() || res.headersSent) {
        handOver(req, res, next);
        return;
      }
      const entry = entries.get(full);
      if (entry !== undefined && sameVersion(entry, stats)) {
        // A setHeaders that throws reaches the app's error handlers (on Express it would be an
        // uncaught exception in send's stat callback).
        try {
          answer(req, res, shape, rules, full, stats, entry);
        } catch (error) {
          next(error);
        }
        return;
      }
      if (entry !== undefined) drop(full);
      if (handOver(req, res, next)) fill(full, stats);
    });
  };
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
  return memoryStatic(RULES_4, root, options);
}
/** Express 4's MIME table, as serve-static exposes it (`express.static.mime`). */
staticFiles.mime = mime;
