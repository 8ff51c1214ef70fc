/**
 * Opening and reading files so that a file caught while it is being written is never served:
 * a file is settled when its last change is at least `settleTime` old and its size and mtime
 * are the same before and after the read. Until then, the read waits and tries again; a file
 * that never settles gives up with 503. Also the errors of file answers: each package that
 * sends files names them with codes of its own ({@link FileErrorCodes}).
 */
import { Buffer } from 'node:buffer';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { ErrorCodes, VeloxError } from './errors.ts';

/**
 * The codes a file answer's errors carry. Core's `res.sendFile` uses {@link coreFileErrors};
 * a package that sends files through this code (`@velox/static`) passes its own, so its
 * answers keep its prefix.
 *
 * @example
 * ```ts
 * const codes: FileErrorCodes = { ...coreFileErrors, notFound: 'MYPKG_NOT_FOUND' };
 * ```
 */
export interface FileErrorCodes {
  /** 404: no such file, a directory, or a dotfile with `dotfiles: 'ignore'`. */
  readonly notFound: string;
  /** 403: outside the root, a `..` segment, a dotfile with `dotfiles: 'deny'`, or not readable. */
  readonly forbidden: string;
  /** 412: If-Match or If-Unmodified-Since did not hold. */
  readonly preconditionFailed: string;
  /** 416: no range of the Range header falls inside the file. */
  readonly rangeNotSatisfiable: string;
  /** 503: the file kept changing (or changed between looking at it and opening it). */
  readonly busy: string;
  /** A programmer's mistake: a relative path without `root`, a bad option. */
  readonly invalidOption: string;
}

/**
 * Core's own codes, for `res.sendFile` and `res.download`.
 *
 * @example
 * ```ts
 * await sendFile(req, res, '/srv/a.txt', {}, coreFileErrors);
 * ```
 */
export const coreFileErrors: FileErrorCodes = Object.freeze({
  notFound: ErrorCodes.FILE_NOT_FOUND,
  forbidden: ErrorCodes.FILE_FORBIDDEN,
  preconditionFailed: ErrorCodes.PRECONDITION_FAILED,
  rangeNotSatisfiable: ErrorCodes.RANGE_NOT_SATISFIABLE,
  busy: ErrorCodes.FILE_BUSY,
  invalidOption: ErrorCodes.INVALID_OPTION,
});

/**
 * The kinds of file answer that are errors.
 *
 * @example
 * ```ts
 * const kind: FileFailure = 'notFound';
 * ```
 */
export type FileFailure = Exclude<keyof FileErrorCodes, 'invalidOption'>;

const FAILURES: Record<FileFailure, [number, string]> = {
  notFound: [404, 'Not Found'],
  forbidden: [403, 'Forbidden'],
  preconditionFailed: [412, 'Precondition Failed'],
  rangeNotSatisfiable: [416, 'Range Not Satisfiable'],
  busy: [503, 'The file is being written; try again shortly'],
};

/**
 * The VeloxError of a file answer: its status, a short reason, and the caller's code for it.
 *
 * @example
 * ```ts
 * throw fileFailure(coreFileErrors, 'forbidden'); // 403 VELOX_ERR_FILE_FORBIDDEN
 * ```
 */
export function fileFailure(codes: FileErrorCodes, kind: FileFailure, cause?: unknown, message?: string): VeloxError {
  const [status, reason] = FAILURES[kind];
  return new VeloxError(codes[kind], message ?? reason, { status, cause });
}

/** How many times a read waits for a changing file before answering 503. */
const MAX_TRIES = 20;

const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/**
 * An open, settled file.
 *
 * @example
 * ```ts
 * const { handle, stats }: OpenFile = await openSettled('/srv/a.txt', 0, coreFileErrors);
 * ```
 */
export interface OpenFile {
  handle: FileHandle;
  stats: Stats;
}

/**
 * A settled file read whole: its bytes in an ArrayBuffer of their own, and its stats.
 *
 * @example
 * ```ts
 * const read: ReadFile | undefined = await readSettled('/srv/a.txt', 200, 1 << 20, coreFileErrors);
 * ```
 */
export interface ReadFile {
  body: Buffer;
  stats: Stats;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * True when two stats describe the same version of a file.
 *
 * @example
 * ```ts
 * if (!sameVersion(before, await handle.stat())) retry();
 * ```
 */
export function sameVersion(a: Stats, b: Stats): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.ctimeMs === b.ctimeMs;
}

/**
 * Turns a file-system error into an answer: gone is 404, not allowed is 403, anything else stays as it is.
 *
 * @example
 * ```ts
 * const stats = await stat(path).catch((err) => Promise.reject(fileError(err, coreFileErrors)));
 * ```
 */
export function fileError(err: unknown, codes: FileErrorCodes): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EISDIR' || code === 'ENAMETOOLONG') {
    return fileFailure(codes, 'notFound', err);
  }
  if (code === 'EACCES' || code === 'EPERM') return fileFailure(codes, 'forbidden', err);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Opens a regular file once it has settled (its last change at least `settleTime` ago).
 * `path` must be a real path (a symlink there is refused: the caller resolved links already).
 *
 * @example
 * ```ts
 * const { handle } = await openSettled(await realpath('./a.txt'), 200, coreFileErrors);
 * await handle.close();
 * ```
 */
export async function openSettled(path: string, settleTime: number, codes: FileErrorCodes): Promise<OpenFile> {
  for (let attempt = 0; ; attempt++) {
    let handle: FileHandle;
    try {
      handle = await open(path, FLAGS);
    } catch (err) {
      throw fileError(err, codes);
    }
    let stats: Stats;
    try {
      stats = await handle.stat();
    } catch (err) {
      await handle.close();
      throw fileError(err, codes);
    }
    if (!stats.isFile()) {
      await handle.close();
      throw fileFailure(codes, 'notFound');
    }
    const age = Date.now() - Math.max(stats.mtimeMs, stats.ctimeMs);
    if (age >= settleTime || settleTime === 0) return { handle, stats };
    await handle.close();
    if (attempt >= MAX_TRIES) throw busy(path, codes);
    await sleep(Math.min(settleTime, Math.max(10, settleTime - age)));
  }
}

/**
 * Reads a settled file whole, unless it is bigger than `maxBytes` (then resolves undefined).
 *
 * @example
 * ```ts
 * const read = await readSettled(await realpath('./a.txt'), 200, 512 * 1024, coreFileErrors);
 * if (read) console.log(read.body.length, read.stats.mtime);
 * ```
 */
export async function readSettled(path: string, settleTime: number, maxBytes: number, codes: FileErrorCodes): Promise<ReadFile | undefined> {
  for (let attempt = 0; ; attempt++) {
    const { handle, stats } = await openSettled(path, settleTime, codes);
    try {
      if (stats.size > maxBytes) return undefined;
      const body = Buffer.from(new ArrayBuffer(stats.size));
      let filled = 0;
      while (filled < stats.size) {
        const { bytesRead } = await handle.read(body, filled, stats.size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      const after = await handle.stat();
      if (filled === stats.size && sameVersion(stats, after)) return { body, stats };
    } catch (err) {
      throw fileError(err, codes);
    } finally {
      await handle.close();
    }
    // It changed while we read: wait for it to settle again.
    if (attempt >= MAX_TRIES) throw busy(path, codes);
    await sleep(Math.max(10, settleTime));
  }
}

function busy(path: string, codes: FileErrorCodes): Error {
  const err = fileFailure(codes, 'busy');
  (err as Error & { path?: string }).path = path;
  return err;
}
