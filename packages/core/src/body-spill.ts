/**
 * A request body's overflow on disk, the one place that touches the file: what uWS delivers while
 * the body's consumer is paused, past the `bodyBufferSize` bytes held in memory, is appended to a
 * temporary file and read back, in order, as the consumer asks. nginx does the same with
 * `client_body_buffer_size` and `client_body_temp_path`.
 *
 * - Synchronous appends, made in uWS's data callback straight from uWS's buffer: nothing is
 *   copied or queued in memory on the way, so the file costs no memory at all, and a write that
 *   fails is known before the callback returns. The cost is the event loop's: a `write(2)` into
 *   the page cache per read of uWS (at most 512 KB); benchmarks/spill-cost.mjs measures it.
 * - Synchronous reads, as the consumer asks (`_read()`), of READ_BACK bytes at a time: what was
 *   just written, so from the page cache.
 * - The file is created with mode 0600 and `O_EXCL` under a name nobody can guess
 *   (`velox-body-<pid>-<32 hex digits from crypto>`), and its name is removed at once, as nginx
 *   does with its temporary files (`ngx_open_tempfile()`): the descriptor alone holds the data, so nothing is left in
 *   the directory whatever happens to the process afterwards, and closing the descriptor frees
 *   the disk. Only a process killed between the two system calls can leave a file behind;
 *   {@link sweepSpillFiles} removes those at `listen()`.
 */
import { randomBytes } from 'node:crypto';
import { close, constants, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bodySpillClose, bodySpillOpen, bodySpillWrite } from './diagnostics.ts';
import { ErrorCodes, VeloxError } from './errors.ts';
import type { Request } from './request.ts';

/** What a spill file's name starts with. */
const PREFIX = 'velox-body-';
/** A spill file's whole name: the prefix, the pid of the process that made it, 32 random hex digits. */
const NAME = /^velox-body-(\d+)-[0-9a-f]{32}$/;
/** Read and write, created here and nowhere else: `O_EXCL` also refuses a symbolic link put in its place. */
const FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL;
/** Bytes read back per push: uWS's own read size, so the consumer sees the chunks it would without a file. */
export const READ_BACK = 512 * 1024;

/** Files open now, and bytes written to them since the process started (all servers together). */
const stats = { files: 0, bytes: 0 };

/**
 * How much request bodies spilled to disk in this process (every server together): the spill
 * files open now, and the bytes written to such files since the process started. The same
 * figures `velox:body:spill:*` publish event by event.
 * @example
 * ```ts
 * import { bodySpillStats } from '@velox/core';
 * app.get('/metrics', (req, res) => res.json(bodySpillStats()));
 * ```
 */
export function bodySpillStats(): { files: number; bytes: number } {
  return { files: stats.files, bytes: stats.bytes };
}

/**
 * One body's file, opened on the first append and closed when what it holds has been read back,
 * or when the body ends otherwise (answered, aborted, refused, failed). A body that spills again
 * later opens a new one. `limit` is the limit its stream reader declared (`req.stream({ limit })`),
 * checked against the bytes received even while nobody reads them.
 */
export class BodySpill {
  /** The stream reader's limit in bytes, or -1 for none. */
  limit = -1;
  readonly #req: Request;
  readonly #dir: string | undefined;
  #fd = -1;
  /** Set only while the file's name could not be removed at once (tried again on close). */
  #path: string | undefined = undefined;
  #written = 0;
  #read = 0;

  /** `dir`: the `bodyTempDir` option (undefined: `os.tmpdir()`, read when a file is made). */
  constructor(req: Request, dir: string | undefined) {
    this.#req = req;
    this.#dir = dir;
  }

  /** True while a file holds bytes not yet read back. */
  get open(): boolean {
    return this.#fd >= 0;
  }

  /** Bytes in the file not yet read back. */
  get pending(): number {
    return this.#written - this.#read;
  }

  /** Appends uWS's bytes (a view of its buffer, used before the data callback returns); throws a `VELOX_ERR_BODY_SPILL` error, the file closed. */
  append(bytes: Uint8Array): void {
    if (this.#fd < 0) this.#create();
    const fd = this.#fd;
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, this.#written + done);
    } catch (err) {
      this.close();
      throw spillError(err as NodeJS.ErrnoException);
    }
    this.#written += done;
    stats.bytes += done;
    if (bodySpillWrite.hasSubscribers) bodySpillWrite.publish({ req: this.#req, bytes: done });
  }

  /** Reads the next bytes back, at most `max`; throws a `VELOX_ERR_BODY_SPILL` error, the file closed. */
  read(max: number): Buffer {
    const size = Math.min(max, this.#written - this.#read);
    const chunk = Buffer.allocUnsafe(size);
    let done = 0;
    try {
      while (done < size) {
        const n = readSync(this.#fd, chunk, done, size - done, this.#read + done);
        if (n === 0) throw Object.assign(new Error('The body file ended before what was written to it'), { code: 'EIO' });
        done += n;
      }
    } catch (err) {
      this.close();
      throw spillError(err as NodeJS.ErrnoException);
    }
    this.#read += size;
    return chunk;
  }

  /**
   * Closes the file (its name is gone already), which frees the disk it used. Off the event loop
   * (libuv's pool): the last close of a file without a name frees its pages then and there, about
   * 15 to 30 ms for 64 MiB. `files` and `velox:body:spill:close` follow when the descriptor is
   * closed. Does nothing when no file is open.
   */
  close(): void {
    const fd = this.#fd;
    if (fd < 0) return;
    this.#fd = -1;
    const bytes = this.#written;
    this.#written = this.#read = 0;
    const path = this.#path;
    this.#path = undefined;
    const req = this.#req;
    // An error (EIO from a delayed write error) changes nothing: the data is dropped either way.
    close(fd, () => {
      stats.files--;
      if (path !== undefined) removeQuietly(path);
      if (bodySpillClose.hasSubscribers) bodySpillClose.publish({ req, bytes });
    });
  }

  #create(): void {
    // Read now, not at start-up: a TMPDIR set later (or changed by a test) is honoured.
    const dir = this.#dir ?? tmpdir();
    const path = join(dir, `${PREFIX}${process.pid}-${randomBytes(16).toString('hex')}`);
    try {
      this.#fd = openSync(path, FLAGS, 0o600);
    } catch (err) {
      throw spillError(err as NodeJS.ErrnoException);
    }
    stats.files++;
    try {
      unlinkSync(path);
    } catch {
      // Kept, and removed when the file closes (a file system that refuses to unlink an open file).
      this.#path = path;
    }
    if (bodySpillOpen.hasSubscribers) bodySpillOpen.publish({ req: this.#req, bytes: 0 });
  }
}

/** The error a body fails with when its file cannot be made, written or read: 507 when the disk is full, else 503. */
function spillError(cause: NodeJS.ErrnoException): VeloxError {
  const full = cause.code === 'ENOSPC' || cause.code === 'EDQUOT' || cause.code === 'EFBIG';
  return new VeloxError(
    ErrorCodes.BODY_SPILL,
    full
      ? 'The request body could not be buffered: the server has no space left for it'
      : "The request body could not be buffered: the server's temporary directory cannot be written",
    // The message says nothing of the server's paths; the cause (logged with the 5xx) does.
    { status: full ? 507 : 503, expose: true, cause },
  );
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

/**
 * Removes the spill files a process that ended left in `dir` (undefined: `os.tmpdir()`): those
 * named by a pid that is no live process, or by this process's own pid (a previous process that
 * had it, in a container where pids repeat: this one has made none yet, since its files lose
 * their names as they are made). Errors are ignored: a directory that does not exist holds none.
 * Resolves with the names it removed.
 * @internal
 */
export async function sweepSpillFiles(dir: string | undefined): Promise<string[]> {
  const where = resolve(dir ?? tmpdir());
  let names: string[];
  try {
    names = await readdir(where);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const match = NAME.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid !== process.pid && alive(pid)) continue;
    try {
      await unlink(join(where, name));
      removed.push(name);
    } catch {
      // removed by another process meanwhile, or not ours to remove
    }
  }
  return removed;
}

/** Whether a process with this pid exists (one of another user counts: EPERM). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
