/**
 * Opening and reading files so that a file caught while it is being written is never served:
 * a file is settled when its last change is at least `settleTime` old and its size and mtime
 * are the same before and after the read. Until then, the read waits and tries again; a file
 * that never settles gives up with 503. Also the errors of file answers, with the codes of
 * errors.ts (`res.sendFile`, `sendFile` and `serveStatic` answer with the same ones).
 */
import { Buffer } from 'node:buffer';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { VeloxError } from '@velox/core';
import { StaticErrorCodes, staticError } from './errors.ts';

/**
 * The kinds of file answer that are errors (each has its code in StaticErrorCodes).
 *
 * @example
 * ```ts
 * const kind: FileFailure = 'notFound';
 * ```
 */
export type FileFailure = 'notFound' | 'forbidden' | 'preconditionFailed' | 'rangeNotSatisfiable' | 'busy';

const FAILURES = {
  notFound: [StaticErrorCodes.NOT_FOUND, 404, 'Not Found'],
  forbidden: [StaticErrorCodes.FORBIDDEN, 403, 'Forbidden'],
  preconditionFailed: [StaticErrorCodes.PRECONDITION_FAILED, 412, 'Precondition Failed'],
  rangeNotSatisfiable: [StaticErrorCodes.RANGE_NOT_SATISFIABLE, 416, 'Range Not Satisfiable'],
  busy: [StaticErrorCodes.BUSY, 503, 'The file is being written; try again shortly'],
} as const satisfies Record<FileFailure, readonly [string, number, string]>;

/**
 * The VeloxError of a file answer: its code, its status and a short reason.
 *
 * @example
 * ```ts
 * throw fileFailure('forbidden'); // 403 VELOX_ERR_STATIC_FORBIDDEN
 * ```
 */
export function fileFailure(kind: FileFailure, cause?: unknown, message?: string): VeloxError {
  const [code, status, reason] = FAILURES[kind];
  return staticError(code, message ?? reason, status, cause);
}

/** How many times a read waits for a changing file before answering 503. */
const MAX_TRIES = 20;

const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/**
 * An open, settled file.
 *
 * @example
 * ```ts
 * const { handle, stats }: OpenFile = await openSettled('/srv/a.txt', 0);
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
 * const read: ReadFile | undefined = await readSettled('/srv/a.txt', 200, 1 << 20);
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
 * const stats = await stat(path).catch((err) => Promise.reject(fileError(err)));
 * ```
 */
export function fileError(err: unknown): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EISDIR' || code === 'ENAMETOOLONG') {
    return fileFailure('notFound', err);
  }
  if (code === 'EACCES' || code === 'EPERM') return fileFailure('forbidden', err);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Opens a regular file once it has settled (its last change at least `settleTime` ago).
 * `path` must be a real path (a symlink there is refused: the caller resolved links already).
 *
 * @example
 * ```ts
 * const { handle } = await openSettled(await realpath('./a.txt'), 200);
 * await handle.close();
 * ```
 */
export async function openSettled(path: string, settleTime: number): Promise<OpenFile> {
  for (let attempt = 0; ; attempt++) {
    let handle: FileHandle;
    try {
      handle = await open(path, FLAGS);
    } catch (err) {
      throw fileError(err);
    }
    let stats: Stats;
    try {
      stats = await handle.stat();
    } catch (err) {
      await handle.close();
      throw fileError(err);
    }
    if (!stats.isFile()) {
      await handle.close();
      throw fileFailure('notFound');
    }
    const age = Date.now() - Math.max(stats.mtimeMs, stats.ctimeMs);
    if (age >= settleTime || settleTime === 0) return { handle, stats };
    await handle.close();
    if (attempt >= MAX_TRIES) throw busy(path);
    await sleep(Math.min(settleTime, Math.max(10, settleTime - age)));
  }
}

/**
 * Reads a settled file whole, unless it is bigger than `maxBytes` (then resolves undefined).
 *
 * @example
 * ```ts
 * const read = await readSettled(await realpath('./a.txt'), 200, 512 * 1024);
 * if (read) console.log(read.body.length, read.stats.mtime);
 * ```
 */
export async function readSettled(path: string, settleTime: number, maxBytes: number): Promise<ReadFile | undefined> {
  for (let attempt = 0; ; attempt++) {
    const { handle, stats } = await openSettled(path, settleTime);
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
      throw fileError(err);
    } finally {
      await handle.close();
    }
    // It changed while we read: wait for it to settle again.
    if (attempt >= MAX_TRIES) throw busy(path);
    await sleep(Math.max(10, settleTime));
  }
}

function busy(path: string): Error {
  const err = fileFailure('busy');
  (err as Error & { path?: string }).path = path;
  return err;
}
