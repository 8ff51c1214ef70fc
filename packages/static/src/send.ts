/**
 * Serving one file: content type, ETag and Last-Modified, conditional requests (RFC 9110
 * §13: If-Match, If-Unmodified-Since → 412; If-None-Match, If-Modified-Since → 304), ranges
 * (one → 206, several → multipart/byteranges, none satisfiable → 416, If-Range), the response
 * head built once per file version, and streaming from disk with backpressure for files that
 * are not in memory. `serveStatic` calls {@link send} with its cached files; {@link sendFile}
 * serves any path, and is what `res.sendFile`-style helpers build on.
 */
import { Buffer } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import { PreparedHead, type Request, type Response } from '@velox/core';
import type { Coding } from './compress.ts';
import { hasDotSegment } from './directory.ts';
import { StaticErrorCodes, staticError } from './errors.ts';
import { contentTypeOf } from './mime.ts';
import { fileError, openSettled } from './read.ts';

/** Called for each response with the file's absolute path and stats; may set headers. */
export type SetHeaders = (res: Response, path: string, stats: Stats) => void;

/** The bytes of one version of a file (or of a compressed form of it). */
export interface FileData {
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
}

/** A file as sent: its bytes, how they are labelled, and its response heads built on first use. */
export interface Representation {
  readonly data: FileData;
  /** The Content-Type value. */
  readonly type: string;
  /** Content-Encoding, for a compressed form. */
  readonly coding: Coding | undefined;
  head200: PreparedHead | undefined;
  head304: PreparedHead | undefined;
}

/** Picks the form to send for an Accept-Encoding header (serveStatic's files implement it). */
export interface Negotiable {
  pick(acceptEncoding: string): Representation;
}

/** How responses are labelled: resolved options. */
export interface SendConfig {
  etag: boolean;
  lastModified: boolean;
  /** The Cache-Control value, or undefined for none. */
  cacheControl: string | undefined;
  acceptRanges: boolean;
  /** Send `Vary: Accept-Encoding`. */
  vary: boolean;
  setHeaders: SetHeaders | undefined;
  /** Milliseconds a file must stay unchanged before it is read (see read.ts). */
  settleTime: number;
}

/** Options of {@link sendFile}. */
export interface SendFileOptions {
  /** Resolve a relative path against this directory, and refuse one that leads outside it. Default: none (the path must be absolute). */
  root?: string;
  /** Send an ETag and honour If-None-Match / If-Match. Default: `true`. */
  etag?: boolean;
  /** Send Last-Modified and honour If-Modified-Since / If-Unmodified-Since. Default: `true`. */
  lastModified?: boolean;
  /** Cache-Control max-age, in milliseconds. Default: `0`. */
  maxAge?: number;
  /** Add `immutable` to Cache-Control. Default: `false`. */
  immutable?: boolean;
  /** Send Cache-Control at all. Default: `true`. */
  cacheControl?: boolean;
  /** Answer Range requests (and send `Accept-Ranges: bytes`). Default: `true`. */
  acceptRanges?: boolean;
  /** A path with a dot segment: `'ignore'` (404), `'deny'` (403) or `'allow'`. Default: `'ignore'`. */
  dotfiles?: 'ignore' | 'deny' | 'allow';
  /** Extra headers. Default: none. */
  headers?: Record<string, string>;
  /** Called with the response, path and stats; may set headers. Default: none. */
  setHeaders?: SetHeaders;
}

/** Ranges beyond this many in one header are ignored (the whole file is sent). */
export const MAX_RANGES = 16;

/** The Cache-Control value for a max-age (ms) and immutable. */
export function cacheControlOf(maxAgeMs: number, immutable: boolean): string {
  const seconds = Math.floor(Math.max(0, maxAgeMs) / 1000);
  return `public, max-age=${seconds}${immutable ? ', immutable' : ''}`;
}

/** A strong ETag for bytes. */
export function strongEtag(body: Uint8Array): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** A weak ETag from size and mtime, for files that are streamed without being read first. */
export function weakEtag(size: number, mtimeMs: number): string {
  return `W/"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;
}

/** FileData for bytes on disk, not read yet (weak ETag). */
export function diskData(path: string, stats: Stats): FileData {
  return {
    path,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    etag: weakEtag(stats.size, stats.mtimeMs),
    lastModified: new Date(stats.mtimeMs).toUTCString(),
    body: undefined,
    chunk: undefined,
  };
}

/** FileData for bytes in memory (strong ETag). `body` must span its ArrayBuffer exactly, or it is copied. */
export function memoryData(path: string, body: Buffer, mtimeMs: number, etag = strongEtag(body)): FileData {
  let own = body;
  if (body.byteOffset !== 0 || body.byteLength !== body.buffer.byteLength) {
    own = Buffer.from(new ArrayBuffer(body.length));
    body.copy(own);
  }
  return {
    path,
    size: own.length,
    mtimeMs,
    etag,
    lastModified: new Date(mtimeMs).toUTCString(),
    body: own,
    chunk: own.buffer as ArrayBuffer,
  };
}

/** A representation of `data` with a content type and coding. */
export function representation(data: FileData, type: string, coding?: Coding): Representation {
  return { data, type, coding, head200: undefined, head304: undefined };
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
    if (!matchesStrong(ifMatch, data.etag)) throw preconditionFailed();
  } else if (config.lastModified) {
    const since = req.firstHeader('if-unmodified-since');
    if (since !== '') {
      const t = Date.parse(since);
      if (!Number.isNaN(t) && Math.floor(data.mtimeMs / 1000) * 1000 > t) throw preconditionFailed();
    }
  }
  const ifNoneMatch = config.etag ? req.firstHeader('if-none-match') : '';
  if (ifNoneMatch !== '') {
    if (ifNoneMatch === data.etag || matchesWeak(ifNoneMatch, data.etag)) return notModified(req, res, rep, config, stats);
  } else if (config.lastModified) {
    const since = req.firstHeader('if-modified-since');
    if (since !== '') {
      const t = Date.parse(since);
      if (!Number.isNaN(t) && Math.floor(data.mtimeMs / 1000) * 1000 <= t) return notModified(req, res, rep, config, stats);
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

function notModified(req: Request, res: Response, rep: Representation, config: SendConfig, stats: Stats | undefined): void {
  if (config.setHeaders && stats) config.setHeaders(res, rep.data.path, stats);
  res.sendPrepared(head304(rep, config));
}

function preconditionFailed(): Error {
  return staticError(StaticErrorCodes.PRECONDITION_FAILED, 'Precondition Failed', 412);
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

/** A parsed Range header: ranges (inclusive, sorted, merged), 'ignore' (send the whole file) or 'unsatisfiable'. */
export type ParsedRange = Array<[number, number]> | 'ignore' | 'unsatisfiable';

/**
 * Parses a `bytes=` Range header against a size (RFC 9110 §14.1.2). A header that is malformed,
 * of another unit, or holds more than {@link MAX_RANGES} ranges is ignored; overlapping and
 * adjacent ranges are merged, so the bytes sent never exceed the file's size.
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
  if (parsed === 'ignore' || (parsed.length > 1 && data.body === undefined)) {
    // Several ranges of a file on disk: the whole file, once (RFC 9110 allows ignoring Range).
    if (data.chunk !== undefined) {
      res.sendPrepared(head200(rep, config), data.chunk);
      return;
    }
    return streamFile(req, res, rep, config, 0, data.size - 1, 200);
  }
  const headers = baseHeaders(rep, config, true);
  if (parsed === 'unsatisfiable') {
    res.setHeader('content-range', `bytes */${data.size}`);
    throw staticError(StaticErrorCodes.RANGE_NOT_SATISFIABLE, 'Range Not Satisfiable', 416);
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
  for (const name in headers) if (!res.hasHeader(name)) res.setHeader(name, headers[name]!);
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
  const { handle, stats } = await openSettled(rep.data.path, config.settleTime);
  let handed = false;
  try {
    if (res.aborted) return;
    if (stats.size !== rep.data.size || stats.mtimeMs !== rep.data.mtimeMs) {
      // Changed since it was indexed: describe what is on disk now.
      if (status === 206 || stats.size === 0) throw staticError(StaticErrorCodes.BUSY, 'The file changed; try again', 503);
      const fresh = representation(diskData(rep.data.path, stats), rep.type, rep.coding);
      headers = baseHeaders(fresh, config, true);
      end = stats.size - 1;
    }
    applyHeaders(res, status, headers);
    const length = end - start + 1;
    if (req.method === 'HEAD' || length <= 0) {
      res.setHeader('content-length', String(Math.max(0, length)));
      res.end();
      return;
    }
    const stream = handle.createReadStream({ start, end, highWaterMark: 64 * 1024, autoClose: true });
    handed = true;
    await res.stream(stream, { size: length });
  } catch (err) {
    throw fileError(err, rep.data.path);
  } finally {
    if (!handed) await handle.close();
  }
}

/**
 * Sends one file from disk, for routes of your own (`res.sendFile` / `res.download` style): the
 * same headers, conditional requests and ranges as `serveStatic`, without a cache. Relative
 * paths need `root`, and never leave it. Rejects with a VeloxError (404, 403, 412, 416, 503)
 * that the error handler turns into the answer.
 *
 * @example
 * ```ts
 * import { sendFile } from '@velox/static';
 * app.get('/report', (req, res) => sendFile(req, res, 'report.pdf', { root: './private', maxAge: 60_000 }));
 * app.get('/download', async (req, res) => {
 *   res.set('content-disposition', 'attachment; filename="data.csv"');
 *   await sendFile(req, res, '/srv/exports/data.csv');
 * });
 * ```
 */
export async function sendFile(req: Request, res: Response, path: string, options: SendFileOptions = {}): Promise<void> {
  const dotfiles = options.dotfiles ?? 'ignore';
  const refuse = () =>
    dotfiles === 'deny' ? staticError(StaticErrorCodes.FORBIDDEN, 'Forbidden', 403) : staticError(StaticErrorCodes.NOT_FOUND, 'Not Found', 404);
  if (typeof path !== 'string' || path.includes('\0')) throw staticError(StaticErrorCodes.NOT_FOUND, 'Not Found', 404);
  let full: string;
  let real: string;
  if (options.root !== undefined) {
    const root = resolve(options.root);
    full = resolve(root, path.replace(/^[/\\]+/, ''));
    if (!full.startsWith(root + sep)) throw staticError(StaticErrorCodes.FORBIDDEN, 'Forbidden', 403);
    if (dotfiles !== 'allow' && hasDotSegment(full.slice(root.length + 1).split(sep).join('/'))) throw refuse();
    real = await realpath(full).catch((err) => Promise.reject(fileError(err, full)));
    const realRoot = await realpath(root).catch((err) => Promise.reject(fileError(err, root)));
    // A symlink under the root may point anywhere: only what really is inside it is sent.
    if (!real.startsWith(realRoot + sep)) throw staticError(StaticErrorCodes.FORBIDDEN, 'Forbidden', 403);
  } else {
    if (!isAbsolute(path)) throw staticError(StaticErrorCodes.INVALID_OPTION, `sendFile needs an absolute path or the root option; got ${path}`);
    full = path;
    if (dotfiles !== 'allow' && basename(full).startsWith('.')) throw refuse();
    real = await realpath(full).catch((err) => Promise.reject(fileError(err, full)));
  }
  const config: SendConfig = {
    etag: options.etag ?? true,
    lastModified: options.lastModified ?? true,
    cacheControl: options.cacheControl === false ? undefined : cacheControlOf(options.maxAge ?? 0, options.immutable ?? false),
    acceptRanges: options.acceptRanges ?? true,
    vary: false,
    setHeaders: options.setHeaders,
    settleTime: 0,
  };
  const stats = await stat(real).catch((err) => Promise.reject(fileError(err, real)));
  if (!stats.isFile()) throw staticError(StaticErrorCodes.NOT_FOUND, 'Not Found', 404);
  if (options.headers) for (const name in options.headers) res.setHeader(name, options.headers[name]!);
  const rep = representation(diskData(real, stats), contentTypeOf(full));
  await send(req, res, rep, undefined, config, stats);
}
