/**
 * Sending one file: content type, ETag and Last-Modified, conditional requests (RFC 9110
 * §13: If-Match, If-Unmodified-Since → 412; If-None-Match, If-Modified-Since → 304), ranges
 * (one → 206, several → multipart/byteranges, none satisfiable → 416, If-Range), the response
 * head built once per file version, and streaming from disk with backpressure for files that
 * are not in memory. `res.sendFile` and `res.download` are built on {@link sendFile};
 * `@velox/static` calls {@link send} with its cached files (through `@velox/core/internal`).
 */
import { Buffer } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import { ErrorCodes, VeloxError } from './errors.ts';
import { disposition, fileType, parseDuration } from './express-libs.ts';
import { coreFileErrors, type FileErrorCodes, fileError, fileFailure, openSettled } from './file-read.ts';
import type { HeaderValue } from './headers.ts';
import { PreparedHead } from './prepared.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';

/**
 * Called for each file answer with the response, the file's real path and its stats; may set headers.
 *
 * @example
 * ```ts
 * const setHeaders: SetHeaders = (res, path, stats) => res.set('x-file-size', String(stats.size));
 * app.get('/report', (req, res) => res.sendFile('/srv/report.pdf', { setHeaders }));
 * ```
 */
export type SetHeaders = (res: Response, path: string, stats: Stats) => void;

/**
 * Called once a file answer is over: with no argument when the file was sent, with the error
 * otherwise (then nothing was answered yet, unless the client left or the error came mid-body).
 *
 * @example
 * ```ts
 * const done: SendFileCallback = (err) => {
 *   if (err) console.error(err);
 * };
 * app.get('/report', (req, res) => res.sendFile('/srv/report.pdf', done));
 * ```
 */
export type SendFileCallback = (err?: Error) => void;

/**
 * Options of `res.sendFile`, `res.download` and `@velox/static`'s `sendFile` (Express's, plus
 * `etag` and `setHeaders`).
 *
 * @example
 * ```ts
 * const options: SendFileOptions = { root: './private', maxAge: '1h', dotfiles: 'deny', headers: { 'x-sent': 'yes' } };
 * app.get('/files/:name', (req, res) => res.sendFile(req.params.name, options));
 * ```
 */
export interface SendFileOptions {
  /** Resolve a relative path against this directory, and refuse one that leads outside it. Default: none (the path must be absolute). */
  root?: string;
  /** Send an ETag and honour If-None-Match / If-Match. Default: `true`. */
  etag?: boolean;
  /** Send Last-Modified and honour If-Modified-Since / If-Unmodified-Since. Default: `true`. */
  lastModified?: boolean;
  /** Cache-Control max-age: milliseconds, or a duration such as `'1d'` or `'2 hours'`. Default: `0`. */
  maxAge?: number | string;
  /** Add `immutable` to Cache-Control. Default: `false`. */
  immutable?: boolean;
  /** Send Cache-Control at all. Default: `true`. */
  cacheControl?: boolean;
  /** Answer Range requests (and send `Accept-Ranges: bytes`). Default: `true`. */
  acceptRanges?: boolean;
  /** A dotfile (below `root`: any segment; without `root`: the file's own name): `'ignore'` (404), `'deny'` (403) or `'allow'`. Default: `'ignore'`. */
  dotfiles?: 'ignore' | 'deny' | 'allow';
  /** Headers to set when the file is answered (200, 206 or 304), over those already set. Default: none. */
  headers?: Record<string, HeaderValue | number>;
  /** Called with the response, path and stats when the file is answered; may set headers. Default: none. */
  setHeaders?: SetHeaders;
}

/**
 * The bytes of one version of a file (or of a compressed form of it): in memory, or on disk to stream.
 *
 * @example
 * ```ts
 * const body = Buffer.from(new ArrayBuffer(5));
 * const inMemory = new FileData('/srv/a.txt', 5, Date.now(), strongEtag(body), body);
 * ```
 */
export class FileData {
  /** Path to stream from when `body` is not in memory (empty for bytes that exist only in memory). */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** Quoted ETag: strong (a hash of the bytes) once read, weak (`W/"size-mtime"`) for files streamed from disk. */
  etag: string;
  /** HTTP date of mtimeMs. */
  readonly lastModified: string;
  /** The bytes, when in memory (a view of `chunk`). */
  body: Buffer | undefined;
  /** The same bytes as an ArrayBuffer of their own (uWS reads one with a single call into V8). */
  chunk: ArrayBuffer | undefined;

  /** Bytes in memory when `body` is given (it must span its ArrayBuffer exactly), else `size` bytes on disk at `path`. */
  constructor(path: string, size: number, mtimeMs: number, etag: string, body?: Buffer) {
    this.path = path;
    this.size = body === undefined ? size : body.length;
    this.mtimeMs = mtimeMs;
    this.etag = etag;
    this.lastModified = new Date(mtimeMs).toUTCString();
    this.body = body;
    this.chunk = body === undefined ? undefined : (body.buffer as ArrayBuffer);
  }
}

/**
 * A file as sent: its bytes, how they are labelled, and its response heads built on first use.
 *
 * @example
 * ```ts
 * const rep: Representation = representation(diskData(path, stats), 'text/plain; charset=utf-8');
 * ```
 */
export interface Representation {
  readonly data: FileData;
  /** The Content-Type value. */
  readonly type: string;
  /** Content-Encoding, for a compressed form. */
  readonly coding: string | undefined;
  head200: PreparedHead | undefined;
  head304: PreparedHead | undefined;
}

/**
 * Picks the form to send for an Accept-Encoding header (@velox/static's files implement it).
 *
 * @example
 * ```ts
 * const onlyIdentity: Negotiable = { pick: () => rep };
 * ```
 */
export interface Negotiable {
  pick(acceptEncoding: string): Representation;
}

/**
 * How answers are labelled: resolved options.
 *
 * @example
 * ```ts
 * const config: SendConfig = { etag: true, lastModified: true, cacheControl: cacheControlOf(0, false), acceptRanges: true,
 *   vary: false, setHeaders: undefined, settleTime: 0, errors: coreFileErrors };
 * ```
 */
export interface SendConfig {
  etag: boolean;
  lastModified: boolean;
  /** The Cache-Control value, or undefined for none. */
  cacheControl: string | undefined;
  acceptRanges: boolean;
  /** Send `Vary: Accept-Encoding`. */
  vary: boolean;
  setHeaders: SetHeaders | undefined;
  /** Milliseconds a file must stay unchanged before it is read (see file-read.ts). */
  settleTime: number;
  /** The codes of the errors these answers raise. */
  errors: FileErrorCodes;
}

/**
 * Ranges beyond this many in one header are ignored (the whole file is sent).
 *
 * @example
 * ```ts
 * parseRange(`bytes=${'0-0,'.repeat(MAX_RANGES)}0-0`, 10); // 'ignore'
 * ```
 */
export const MAX_RANGES = 16;

/**
 * The Cache-Control value for a max-age (ms) and immutable.
 *
 * @example
 * ```ts
 * cacheControlOf(86_400_000, true); // 'public, max-age=86400, immutable'
 * ```
 */
export function cacheControlOf(maxAgeMs: number, immutable: boolean): string {
  const seconds = Math.floor(Math.max(0, maxAgeMs) / 1000);
  return `public, max-age=${seconds}${immutable ? ', immutable' : ''}`;
}

/**
 * A strong ETag for bytes.
 *
 * @example
 * ```ts
 * strongEtag(Buffer.from('hi')); // '"<sha1 in base64url>"'
 * ```
 */
export function strongEtag(body: Uint8Array): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * A weak ETag from size and mtime, for files that are streamed without being read first.
 *
 * @example
 * ```ts
 * weakEtag(21, 1_700_000_000_000); // 'W/"15-18bcfe56800"'
 * ```
 */
export function weakEtag(size: number, mtimeMs: number): string {
  return `W/"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;
}

/**
 * FileData for bytes on disk, not read yet (weak ETag).
 *
 * @example
 * ```ts
 * const data = diskData('/srv/a.txt', await stat('/srv/a.txt'));
 * ```
 */
export function diskData(path: string, stats: Stats): FileData {
  return new FileData(path, stats.size, stats.mtimeMs, weakEtag(stats.size, stats.mtimeMs));
}

/**
 * A representation of `data` with a content type and coding.
 *
 * @example
 * ```ts
 * const gz = representation(gzippedData, 'text/css; charset=utf-8', 'gzip');
 * ```
 */
export function representation(data: FileData, type: string, coding?: string): Representation {
  return { data, type, coding, head200: undefined, head304: undefined };
}

/**
 * True when a '/'-separated relative path has a segment starting with a dot.
 *
 * @example
 * ```ts
 * hasDotSegment('.git/config'); // true
 * hasDotSegment('a/b.txt'); // false
 * ```
 */
export function hasDotSegment(rel: string): boolean {
  return rel.charCodeAt(0) === 46 || rel.includes('/.');
}

/** The headers every answer for a representation carries. */
function baseHeaders(rep: Representation, config: SendConfig, withType: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  if (withType) h['content-type'] = rep.type;
  if (rep.coding) h['content-encoding'] = rep.coding;
  if (config.etag) h.etag = rep.data.etag;
  if (config.lastModified) h['last-modified'] = rep.data.lastModified;
  if (config.cacheControl !== undefined) h['cache-control'] = config.cacheControl;
  if (withType && config.acceptRanges && !rep.coding) h['accept-ranges'] = 'bytes';
  if (config.vary) h.vary = 'Accept-Encoding';
  return h;
}

function head200(rep: Representation, config: SendConfig): PreparedHead {
  return (rep.head200 ??= new PreparedHead(200, baseHeaders(rep, config, true)));
}

function head304(rep: Representation, config: SendConfig): PreparedHead {
  return (rep.head304 ??= new PreparedHead(304, baseHeaders(rep, config, false)));
}

/**
 * Answers a GET or HEAD for a file. `identity` is the file's own bytes; `negotiable` (optional)
 * picks a compressed form by Accept-Encoding; ranges always apply to the identity bytes.
 * Returns a promise when the file streams from disk. Throws (or rejects with) a VeloxError
 * for 412, 416, and a file that vanished (404) or may not be read (403).
 *
 * @example
 * ```ts
 * app.get('/a.txt', (req, res) => send(req, res, rep, undefined, config, stats));
 * ```
 */
export function send(
  req: Request,
  res: Response,
  identity: Representation,
  negotiable: Negotiable | undefined,
  config: SendConfig,
  stats?: Stats,
): void | Promise<void> {
  const range = config.acceptRanges ? req.firstHeader('range') : '';
  let rep = identity;
  if (range === '' && negotiable !== undefined) {
    const accept = req.firstHeader('accept-encoding');
    if (accept !== '') rep = negotiable.pick(accept);
  }
  const data = rep.data;
  // Preconditions, in RFC 9110 §13.2.2's order.
  const ifMatch = req.firstHeader('if-match');
  if (ifMatch !== '') {
    if (!matchesStrong(ifMatch, data.etag)) throw fileFailure(config.errors, 'preconditionFailed');
  } else if (config.lastModified) {
    const since = req.firstHeader('if-unmodified-since');
    if (since !== '') {
      const t = Date.parse(since);
      if (!Number.isNaN(t) && Math.floor(data.mtimeMs / 1000) * 1000 > t) throw fileFailure(config.errors, 'preconditionFailed');
    }
  }
  const ifNoneMatch = config.etag ? req.firstHeader('if-none-match') : '';
  if (ifNoneMatch !== '') {
    if (ifNoneMatch === data.etag || matchesWeak(ifNoneMatch, data.etag)) return notModified(res, rep, config, stats);
  } else if (config.lastModified) {
    const since = req.firstHeader('if-modified-since');
    if (since !== '') {
      const t = Date.parse(since);
      if (!Number.isNaN(t) && Math.floor(data.mtimeMs / 1000) * 1000 <= t) return notModified(res, rep, config, stats);
    }
  }
  if (range !== '' && rangeApplies(req, data)) return sendRanges(req, res, rep, range, config, stats);
  if (config.setHeaders && stats) config.setHeaders(res, data.path, stats);
  if (data.chunk !== undefined) {
    res.sendPrepared(head200(rep, config), data.chunk);
    return;
  }
  return streamFile(req, res, rep, config, 0, data.size - 1, 200);
}

function notModified(res: Response, rep: Representation, config: SendConfig, stats: Stats | undefined): void {
  if (config.setHeaders && stats) config.setHeaders(res, rep.data.path, stats);
  res.sendPrepared(head304(rep, config));
}

/** Strong comparison for If-Match: `*`, or a listed strong tag equal to ours (a weak one never matches). */
function matchesStrong(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  if (etag.startsWith('W/')) return false;
  for (const part of header.split(',')) if (part.trim() === etag) return true;
  return false;
}

/** Weak comparison for If-None-Match: `*`, or a listed tag equal to ours ignoring `W/`. */
function matchesWeak(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const ours = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === ours) return true;
  }
  return false;
}

/** If-Range: the range applies when it is absent, our strong ETag, or exactly our Last-Modified date. */
function rangeApplies(req: Request, data: FileData): boolean {
  const ifRange = req.firstHeader('if-range').trim();
  if (ifRange === '') return true;
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return !data.etag.startsWith('W/') && ifRange === data.etag;
  const t = Date.parse(ifRange);
  return !Number.isNaN(t) && t === Math.floor(data.mtimeMs / 1000) * 1000;
}

/**
 * A parsed Range header: ranges (inclusive, sorted, merged), 'ignore' (send the whole file) or 'unsatisfiable'.
 *
 * @example
 * ```ts
 * const parsed: ParsedRange = parseRange('bytes=0-99', 1000); // [[0, 99]]
 * ```
 */
export type ParsedRange = Array<[number, number]> | 'ignore' | 'unsatisfiable';

/**
 * Parses a `bytes=` Range header against a size (RFC 9110 §14.1.2). A header that is malformed,
 * of another unit, or holds more than {@link MAX_RANGES} ranges is ignored; overlapping and
 * adjacent ranges are merged, so the bytes sent never exceed the file's size. (Express's
 * `req.range()` keeps range-parser's own answers; this one follows the RFC, which says to ignore
 * a header with an invalid range and to send the whole file for a suffix longer than it.)
 *
 * @example
 * ```ts
 * parseRange('bytes=0-4, 2-9', 100); // [[0, 9]]
 * parseRange('bytes=5-2', 100); // 'ignore'
 * parseRange('bytes=200-', 100); // 'unsatisfiable'
 * ```
 */
export function parseRange(header: string, size: number): ParsedRange {
  const eq = header.indexOf('=');
  if (eq < 0 || header.slice(0, eq).trim().toLowerCase() !== 'bytes') return 'ignore';
  let commas = 0;
  for (let i = eq; i < header.length; i++) if (header.charCodeAt(i) === 44 && ++commas >= MAX_RANGES) return 'ignore';
  const ranges: Array<[number, number]> = [];
  for (const part of header.slice(eq + 1).split(',')) {
    const spec = part.trim();
    if (spec === '') continue;
    const dash = spec.indexOf('-');
    if (dash < 0) return 'ignore';
    const first = spec.slice(0, dash).trim();
    const last = spec.slice(dash + 1).trim();
    if ((first !== '' && !DIGITS.test(first)) || (last !== '' && !DIGITS.test(last))) return 'ignore';
    if (first === '') {
      if (last === '') return 'ignore';
      const n = Number(last);
      if (n === 0 || size === 0) continue; // unsatisfiable
      ranges.push([Math.max(0, size - n), size - 1]);
    } else {
      const start = Number(first);
      if (last !== '' && Number(last) < start) return 'ignore';
      if (start >= size) continue; // unsatisfiable
      const end = last === '' ? size - 1 : Number(last);
      ranges.push([start, Math.min(end, size - 1)]);
    }
  }
  if (ranges.length === 0) return 'unsatisfiable';
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [ranges[0]!];
  for (let i = 1; i < ranges.length; i++) {
    const top = merged[merged.length - 1]!;
    const r = ranges[i]!;
    if (r[0] <= top[1] + 1) top[1] = Math.max(top[1], r[1]);
    else merged.push(r);
  }
  return merged;
}

const DIGITS = /^\d{1,15}$/;

function sendRanges(req: Request, res: Response, rep: Representation, header: string, config: SendConfig, stats: Stats | undefined): void | Promise<void> {
  const data = rep.data;
  const parsed = parseRange(header, data.size);
  if (config.setHeaders && stats) config.setHeaders(res, data.path, stats);
  if (parsed === 'ignore' || (parsed !== 'unsatisfiable' && parsed.length > 1 && data.body === undefined)) {
    // Several ranges of a file on disk: the whole file, once (RFC 9110 allows ignoring Range).
    if (data.chunk !== undefined) {
      res.sendPrepared(head200(rep, config), data.chunk);
      return;
    }
    return streamFile(req, res, rep, config, 0, data.size - 1, 200);
  }
  const headers = baseHeaders(rep, config, true);
  if (parsed === 'unsatisfiable') {
    res.set('content-range', `bytes */${data.size}`);
    throw fileFailure(config.errors, 'rangeNotSatisfiable');
  }
  if (parsed.length === 1) {
    const [start, end] = parsed[0]!;
    headers['content-range'] = `bytes ${start}-${end}/${data.size}`;
    if (data.body !== undefined) {
      applyHeaders(res, 206, headers);
      res.end(data.body.subarray(start, end + 1));
      return;
    }
    return streamFile(req, res, rep, config, start, end, 206, headers);
  }
  const boundary = randomBytes(12).toString('hex');
  const parts: Buffer[] = [];
  for (const [start, end] of parsed) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-type: ${rep.type}\r\ncontent-range: bytes ${start}-${end}/${data.size}\r\n\r\n`));
    parts.push(data.body!.subarray(start, end + 1), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  headers['content-type'] = `multipart/byteranges; boundary=${boundary}`;
  applyHeaders(res, 206, headers);
  res.end(Buffer.concat(parts));
}

/** Sets status and headers; headers set before (by a middleware or setHeaders) win. */
function applyHeaders(res: Response, status: number, headers: Record<string, string>): void {
  res.status(status);
  for (const name in headers) if (!res.hasHeader(name)) res.set(name, headers[name]!);
}

/** Streams bytes start..end (inclusive) of a file from disk, with backpressure; HEAD sends the head only. */
async function streamFile(
  req: Request,
  res: Response,
  rep: Representation,
  config: SendConfig,
  start: number,
  end: number,
  status: number,
  headers: Record<string, string> = baseHeaders(rep, config, true),
): Promise<void> {
  const { handle, stats } = await openSettled(rep.data.path, config.settleTime, config.errors);
  let handed = false;
  try {
    if (res.aborted) return;
    if (stats.size !== rep.data.size || stats.mtimeMs !== rep.data.mtimeMs) {
      // Changed since it was looked at: describe what is on disk now.
      if (status === 206 || stats.size === 0) throw fileFailure(config.errors, 'busy', undefined, 'The file changed; try again');
      const fresh = representation(diskData(rep.data.path, stats), rep.type, rep.coding);
      headers = baseHeaders(fresh, config, true);
      end = stats.size - 1;
    }
    applyHeaders(res, status, headers);
    const length = Math.max(0, end - start + 1);
    // Set as Express's send sets it: a middleware that replaced write (compression's threshold, a
    // logger) reads it. uWS writes the framing itself, so it never goes out twice.
    res.set('content-length', String(length));
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    const stream = handle.createReadStream({ start, end, highWaterMark: 64 * 1024, autoClose: true });
    handed = true;
    await res.stream(stream, { size: length });
  } catch (err) {
    throw fileError(err, config.errors);
  } finally {
    if (!handed) await handle.close();
  }
}

/** A path with a `..` segment (Express refuses those outright when there is no root). */
const UP_SEGMENT = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

const DOTFILES = ['ignore', 'deny', 'allow'];

/** One file to send: the checked arguments of {@link sendFile}. */
interface FileTarget {
  readonly path: string;
  /** The resolved root, when given. */
  readonly root: string | undefined;
  readonly dotfiles: 'ignore' | 'deny' | 'allow';
  readonly config: SendConfig;
}

/** Checks the arguments of a file answer; a mistake of the program's throws at once (`codes.invalidOption`). */
function fileTarget(path: unknown, options: SendFileOptions | undefined, codes: FileErrorCodes): FileTarget {
  const invalid = (message: string) => new VeloxError(codes.invalidOption, message);
  if (typeof path !== 'string' || path === '') throw invalid(`sendFile needs the file's path as a non-empty string; got ${describe(path)}`);
  const o = options ?? {};
  if (typeof o !== 'object' || o === null) throw invalid(`sendFile options must be an object; got ${describe(options)}`);
  if (o.root !== undefined && typeof o.root !== 'string') throw invalid(`root must be a directory path (a string); got ${describe(o.root)}`);
  // As in Express, an empty root is no root.
  const root = o.root ? resolve(o.root) : undefined;
  if (root === undefined && !isAbsolute(path)) {
    throw invalid(`sendFile needs an absolute path or the root option: res.sendFile(${JSON.stringify(path)}, { root: dir }); got ${path}`);
  }
  const dotfiles = o.dotfiles ?? 'ignore';
  if (!DOTFILES.includes(dotfiles)) throw invalid(`dotfiles must be 'ignore', 'deny' or 'allow'; got ${describe(dotfiles)}`);
  let maxAge = o.maxAge ?? 0;
  if (typeof maxAge === 'string') maxAge = parseDuration(maxAge) ?? Number.NaN;
  if (typeof maxAge !== 'number' || !(maxAge >= 0)) {
    throw invalid(`maxAge is milliseconds (a number >= 0) or a duration such as '1d' or '2 hours'; got ${describe(o.maxAge)}`);
  }
  const { headers, setHeaders } = o;
  if (headers !== undefined && (typeof headers !== 'object' || headers === null)) throw invalid(`headers must be an object of header values; got ${describe(headers)}`);
  if (setHeaders !== undefined && typeof setHeaders !== 'function') throw invalid('setHeaders must be a function (res, path, stats) => void');
  return {
    path,
    root,
    dotfiles,
    config: {
      etag: o.etag ?? true,
      lastModified: o.lastModified ?? true,
      cacheControl: o.cacheControl === false ? undefined : cacheControlOf(maxAge, o.immutable ?? false),
      acceptRanges: o.acceptRanges ?? true,
      vary: false,
      // The headers go out with the file's answer only, not with an error's (as in Express).
      setHeaders:
        headers === undefined
          ? setHeaders
          : (res, real, stats) => {
              for (const name in headers) res.set(name, headers[name]!);
              setHeaders?.(res, real, stats);
            },
      settleTime: 0,
      errors: codes,
    },
  };
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** `base` with one trailing separator, so that a prefix test cannot match `/rootother`. */
function withSep(dir: string): string {
  return dir.endsWith(sep) ? dir : dir + sep;
}

/** Finds the file (refusing what it must), then answers with it. */
async function sendTarget(req: Request, res: Response, target: FileTarget): Promise<void> {
  const { path, root, dotfiles, config } = target;
  const codes = config.errors;
  const refuse = () => fileFailure(codes, dotfiles === 'deny' ? 'forbidden' : 'notFound');
  if (path.includes('\0')) throw fileFailure(codes, 'notFound');
  let full: string;
  let real: string;
  if (root !== undefined) {
    full = resolve(root, path.replace(/^[/\\]+/, ''));
    if (!full.startsWith(withSep(root))) throw fileFailure(codes, 'forbidden');
    if (dotfiles !== 'allow' && hasDotSegment(full.slice(withSep(root).length).split(sep).join('/'))) throw refuse();
    real = await realpath(full).catch((err) => Promise.reject(fileError(err, codes)));
    const realRoot = await realpath(root).catch((err) => Promise.reject(fileError(err, codes)));
    // A symlink under the root may point anywhere: only what really is inside it is sent.
    if (!real.startsWith(withSep(realRoot))) throw fileFailure(codes, 'forbidden');
  } else {
    if (UP_SEGMENT.test(path)) throw fileFailure(codes, 'forbidden');
    full = path;
    if (dotfiles !== 'allow' && basename(full).startsWith('.')) throw refuse();
    real = await realpath(full).catch((err) => Promise.reject(fileError(err, codes)));
  }
  const stats = await stat(real).catch((err) => Promise.reject(fileError(err, codes)));
  if (!stats.isFile()) throw fileFailure(codes, 'notFound');
  if (res.aborted) return;
  const rep = representation(diskData(real, stats), fileType(full));
  const status = res.statusCode;
  if (status !== 200) {
    // `res.status(404).sendFile('404.html')`, as in Express: the whole file with the status set,
    // as the answer to this request rather than a representation to revalidate or cut in ranges.
    config.setHeaders?.(res, real, stats);
    return streamFile(req, res, rep, config, 0, stats.size - 1, status);
  }
  await send(req, res, rep, undefined, config, stats);
}

/**
 * Sends one file from disk with the headers, conditional requests and ranges of `send`,
 * without a cache (weak ETag). Relative paths need `root`, and never leave it. Rejects with a
 * VeloxError carrying `codes` (404, 403, 412, 416, 503; a bad argument: `codes.invalidOption`).
 *
 * @example
 * ```ts
 * import { coreFileErrors, sendFile } from '@velox/core/internal';
 * app.get('/report', (req, res) => sendFile(req, res, 'report.pdf', { root: './private' }, coreFileErrors));
 * ```
 */
export async function sendFile(req: Request, res: Response, path: string, options: SendFileOptions | undefined, codes: FileErrorCodes): Promise<void> {
  await sendTarget(req, res, fileTarget(path, options, codes));
}

/** @internal `res.sendFile(path, options?, callback?)`, Express's argument forms. Bad arguments throw at once. */
export function respondWithFile(
  res: Response,
  path: string,
  options: SendFileOptions | SendFileCallback | undefined,
  callback: SendFileCallback | undefined,
): Promise<void> {
  let done = callback;
  let opts = options;
  if (typeof options === 'function') {
    done = options;
    opts = undefined;
  }
  if (done !== undefined && typeof done !== 'function') throw new VeloxError(ErrorCodes.INVALID_OPTION, 'The callback of res.sendFile must be a function (err) => …');
  const target = fileTarget(path, opts as SendFileOptions | undefined, coreFileErrors);
  return sendTarget(res.req, res, target).then(
    () => {
      if (done) report(res, done, res.aborted ? aborted() : undefined);
    },
    (err: unknown) => {
      const error = err instanceof Error ? err : new Error(String(err));
      if (done) report(res, done, error);
      else res.server._fail(error, res.req, res);
    },
  );
}

/** @internal `res.download(path, filename?, options?, callback?)`, Express's argument forms. */
export function respondWithDownload(
  res: Response,
  path: string,
  filename: string | null | SendFileOptions | SendFileCallback | undefined,
  options: SendFileOptions | SendFileCallback | undefined,
  callback: SendFileCallback | undefined,
): Promise<void> {
  let done = callback;
  let name: unknown = filename;
  let opts: SendFileOptions | undefined = options as SendFileOptions | undefined;
  if (typeof filename === 'function') {
    done = filename;
    name = undefined;
    opts = undefined;
  } else if (typeof options === 'function') {
    done = options;
    opts = undefined;
  }
  // download(path, options) and download(path, options, callback).
  if (typeof filename === 'object' && filename !== null && (typeof options === 'function' || options === undefined)) {
    name = undefined;
    opts = filename;
  }
  if (typeof path !== 'string' || path === '') {
    throw new VeloxError(ErrorCodes.INVALID_OPTION, `res.download needs the file's path as a non-empty string; got ${describe(path)}`);
  }
  if (name !== undefined && name !== null && typeof name !== 'string') {
    throw new VeloxError(ErrorCodes.INVALID_OPTION, `res.download's file name must be a string; got ${describe(name)}`);
  }
  const headers: Record<string, HeaderValue | number> = {
    'content-disposition': disposition(((name as string | null | undefined) || path).replace(/^.*[\\/]/, '')),
  };
  const given = opts?.headers;
  if (given) for (const key in given) if (key.toLowerCase() !== 'content-disposition') headers[key] = given[key]!;
  // Without root, a relative path is taken from the working directory, as Express does.
  const full = opts?.root ? path : resolve(path);
  return respondWithFile(res, full, { ...opts, headers }, done);
}

/** Hands the outcome to the callback; a callback that throws goes to the error handler. */
function report(res: Response, done: SendFileCallback, err: Error | undefined): void {
  try {
    if (err === undefined) done();
    else done(err);
  } catch (thrown) {
    res.server._fail(thrown, res.req, res);
  }
}

function aborted(): VeloxError {
  return new VeloxError(ErrorCodes.ABORTED, 'The client closed the connection before the file was sent', { status: 499 });
}
