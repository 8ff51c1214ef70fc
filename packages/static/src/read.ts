/**
 * Opening and reading files so that a file caught while it is being written is never served:
 * a file is settled when its last change is at least `settleTime` old and its size and mtime
 * are the same before and after the read. Until then, the read waits and tries again; a file
 * that never settles gives up with 503.
 */
import { Buffer } from 'node:buffer';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { StaticErrorCodes, staticError } from './errors.ts';

/** How many times a read waits for a changing file before answering 503. */
const MAX_TRIES = 20;

const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** An open, settled file. */
export interface OpenFile {
  handle: FileHandle;
  stats: Stats;
}

/** A settled file read whole: its bytes in an ArrayBuffer of their own, and its stats. */
export interface ReadFile {
  body: Buffer;
  stats: Stats;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function sameVersion(a: Stats, b: Stats): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.ctimeMs === b.ctimeMs;
}

/** Turns a file-system error into an answer: gone is 404, not allowed is 403. */
export function fileError(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EISDIR') {
    return staticError(StaticErrorCodes.NOT_FOUND, 'Not Found', 404, err);
  }
  if (code === 'EACCES' || code === 'EPERM') return staticError(StaticErrorCodes.FORBIDDEN, 'Forbidden', 403, err);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Opens a regular file once it has settled (its last change at least `settleTime` ago).
 * `path` must be a real path (a symlink there is refused: the index resolved links already).
 */
export async function openSettled(path: string, settleTime: number): Promise<OpenFile> {
  for (let attempt = 0; ; attempt++) {
    let handle: FileHandle;
    try {
      handle = await open(path, FLAGS);
    } catch (err) {
      throw fileError(err, path);
    }
    let stats: Stats;
    try {
      stats = await handle.stat();
    } catch (err) {
      await handle.close();
      throw fileError(err, path);
    }
    if (!stats.isFile()) {
      await handle.close();
      throw staticError(StaticErrorCodes.NOT_FOUND, 'Not Found', 404);
    }
    const age = Date.now() - Math.max(stats.mtimeMs, stats.ctimeMs);
    if (age >= settleTime || settleTime === 0) return { handle, stats };
    await handle.close();
    if (attempt >= MAX_TRIES) throw busy(path);
    await sleep(Math.min(settleTime, Math.max(10, settleTime - age)));
  }
}

/** Reads a settled file whole, unless it is bigger than `maxBytes` (then resolves undefined). */
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
      throw fileError(err, path);
    } finally {
      await handle.close();
    }
    // It changed while we read: wait for it to settle again.
    if (attempt >= MAX_TRIES) throw busy(path);
    await sleep(Math.max(10, settleTime));
  }
}

function busy(path: string): Error {
  const err = staticError(StaticErrorCodes.BUSY, 'The file is being written; try again shortly', 503);
  (err as Error & { path?: string }).path = path;
  return err;
}
