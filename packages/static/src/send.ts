/**
 * Answering with one file: content type, ETag and Last-Modified, conditional requests (RFC 9110
 * §13: If-Match, If-Unmodified-Since → 412; If-None-Match, If-Modified-Since → 304), ranges
 * (one → 206, several → multipart/byteranges, none satisfiable → 416, If-Range), the response
 * head built once per file version, and streaming from disk with backpressure for files that
 * are not in memory. `serveStatic` calls {@link send} with its cached files; `sendFile` (and so
 * `res.sendFile` and `res.download`) with a file it found on disk.
 */
import { Buffer } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { PreparedHead, type Request, type Response } from '@velox/core';
import { fileError, fileFailure, openSettled } from './file-read.ts';
import { parseRange } from './range.ts';

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
 *   vary: false, setHeaders: undefined, settleTime: 0 };
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
}

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
    if (!matchesStrong(ifMatch, data.etag)) throw fileFailure('preconditionFailed');
  } else if (config.lastModified) {
    const since = req.firstHeader('if-unmodified-since');
    if (since !== '') {
      const t = Date.parse(since);
      if (!Number.isNaN(t) && Math.floor(data.mtimeMs / 1000) * 1000 > t) throw fileFailure('preconditionFailed');
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
    throw fileFailure('rangeNotSatisfiable');
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

/** @internal Streams bytes start..end (inclusive) of a file from disk, with backpressure; HEAD sends the head only. */
export async function streamFile(
  req: Request,
  res: Response,
  rep: Representation,
  config: SendConfig,
  start: number,
  end: number,
  status: number,
  headers: Record<string, string> = baseHeaders(rep, config, true),
): Promise<void> {
  const { handle, stats } = await openSettled(rep.data.path, config.settleTime);
  let handed = false;
  try {
    if (res.aborted) return;
    if (stats.size !== rep.data.size || stats.mtimeMs !== rep.data.mtimeMs) {
      // Changed since it was looked at: describe what is on disk now.
      if (status === 206 || stats.size === 0) throw fileFailure('busy', undefined, 'The file changed; try again');
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
    throw fileError(err);
  } finally {
    if (!handed) await handle.close();
  }
}
