/**
 * `sendFile`: one file from disk, found safely (relative paths under `root` never leave it,
 * symlinks out of it and dotfiles are refused), then answered by send.ts without a cache (weak
 * ETag). `res.sendFile` and `res.download` (the `sendFiles` plugin) and your own routes run it.
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, resolve, sep } from 'node:path';
import { fileContentType, type Request, type Response } from '@velox/core';
import { invalidOption } from './errors.ts';
import { fileError, fileFailure } from './file-read.ts';
import { parseDuration } from './libs.ts';
import { cacheControlOf, diskData, hasDotSegment, representation, type SendConfig, type SetHeaders, send, streamFile } from './send.ts';

/** One header's value: a string, or a list for a header sent on several lines. */
type HeaderValue = string | string[];

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

/** A path with a `..` segment (Express refuses those outright when there is no root). */
const UP_SEGMENT = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

const DOTFILES = ['ignore', 'deny', 'allow'];

/** @internal One file to send: the checked arguments of {@link sendFile}. */
export interface FileTarget {
  readonly path: string;
  /** The resolved root, when given. */
  readonly root: string | undefined;
  readonly dotfiles: 'ignore' | 'deny' | 'allow';
  readonly config: SendConfig;
}

/** @internal Checks the arguments of a file answer; a mistake of the program's throws at once (`VELOX_ERR_STATIC_INVALID_OPTION`). */
export function fileTarget(path: unknown, options: SendFileOptions | undefined): FileTarget {
  if (typeof path !== 'string' || path === '') throw invalidOption(`sendFile needs the file's path as a non-empty string; got ${describe(path)}`);
  const o = options ?? {};
  if (typeof o !== 'object' || o === null) throw invalidOption(`sendFile options must be an object; got ${describe(options)}`);
  if (o.root !== undefined && typeof o.root !== 'string') throw invalidOption(`root must be a directory path (a string); got ${describe(o.root)}`);
  // As in Express, an empty root is no root.
  const root = o.root ? resolve(o.root) : undefined;
  if (root === undefined && !isAbsolute(path)) {
    throw invalidOption(`sendFile needs an absolute path or the root option: res.sendFile(${JSON.stringify(path)}, { root: dir }); got ${path}`);
  }
  const dotfiles = o.dotfiles ?? 'ignore';
  if (!DOTFILES.includes(dotfiles)) throw invalidOption(`dotfiles must be 'ignore', 'deny' or 'allow'; got ${describe(dotfiles)}`);
  let maxAge = o.maxAge ?? 0;
  if (typeof maxAge === 'string') maxAge = parseDuration(maxAge) ?? Number.NaN;
  if (typeof maxAge !== 'number' || !(maxAge >= 0)) {
    throw invalidOption(`maxAge is milliseconds (a number >= 0) or a duration such as '1d' or '2 hours'; got ${describe(o.maxAge)}`);
  }
  const { headers, setHeaders } = o;
  if (headers !== undefined && (typeof headers !== 'object' || headers === null)) throw invalidOption(`headers must be an object of header values; got ${describe(headers)}`);
  if (setHeaders !== undefined && typeof setHeaders !== 'function') throw invalidOption('setHeaders must be a function (res, path, stats) => void');
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
    },
  };
}

/** @internal A value as an error message shows it. */
export function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** `base` with one trailing separator, so that a prefix test cannot match `/rootother`. */
function withSep(dir: string): string {
  return dir.endsWith(sep) ? dir : dir + sep;
}

/** @internal Finds the file (refusing what it must), then answers with it. */
export async function sendTarget(req: Request, res: Response, target: FileTarget): Promise<void> {
  const { path, root, dotfiles, config } = target;
  const refuse = () => fileFailure(dotfiles === 'deny' ? 'forbidden' : 'notFound');
  if (path.includes('\0')) throw fileFailure('notFound');
  let full: string;
  let real: string;
  if (root !== undefined) {
    full = resolve(root, path.replace(/^[/\\]+/, ''));
    if (!full.startsWith(withSep(root))) throw fileFailure('forbidden');
    if (dotfiles !== 'allow' && hasDotSegment(full.slice(withSep(root).length).split(sep).join('/'))) throw refuse();
    real = await realpath(full).catch((err) => Promise.reject(fileError(err)));
    const realRoot = await realpath(root).catch((err) => Promise.reject(fileError(err)));
    // A symlink under the root may point anywhere: only what really is inside it is sent.
    if (!real.startsWith(withSep(realRoot))) throw fileFailure('forbidden');
  } else {
    if (UP_SEGMENT.test(path)) throw fileFailure('forbidden');
    full = path;
    if (dotfiles !== 'allow' && basename(full).startsWith('.')) throw refuse();
    real = await realpath(full).catch((err) => Promise.reject(fileError(err)));
  }
  const stats = await stat(real).catch((err) => Promise.reject(fileError(err)));
  if (!stats.isFile()) throw fileFailure('notFound');
  if (res.aborted) return;
  const rep = representation(diskData(real, stats), fileContentType(full) ?? 'application/octet-stream');
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
 * Sends one file from disk, for routes of your own: the same headers, conditional requests and
 * ranges as `serveStatic`, without a cache (weak ETag). Relative paths need `root`, and never
 * leave it. Rejects with a VeloxError (404, 403, 412, 416, 503) that the error handler turns into
 * the answer; a bad argument (a relative path without `root`, a bad option) rejects with
 * `VELOX_ERR_STATIC_INVALID_OPTION`. `res.sendFile` and `res.download` (the `sendFiles` plugin)
 * run the same code, with Express's argument forms and callback.
 *
 * @example
 * ```ts
 * import { sendFile } from '@velox/static';
 * app.get('/report', (req, res) => sendFile(req, res, 'report.pdf', { root: './private', maxAge: 60_000 }));
 * app.get('/download', (req, res) => sendFile(req, res.set('content-disposition', 'attachment; filename="data.csv"'), '/srv/exports/data.csv'));
 * ```
 */
export async function sendFile(req: Request<unknown, unknown>, res: Response, path: string, options: SendFileOptions = {}): Promise<void> {
  // Any route's request: sendFile reads neither params nor query, so their types don't matter.
  await sendTarget(req as Request, res, fileTarget(path, options));
}
