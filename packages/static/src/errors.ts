/**
 * The error codes `@velox/static` raises, for `serveStatic`, `sendFile`, and `res.sendFile` /
 * `res.download` (the `sendFiles` plugin): client-side problems are HTTP answers (each a
 * `VeloxError` with its status); a bad option is thrown at start-up, a bad argument at once.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/static`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { StaticErrorCodes } from '@velox/static';
 * app.setErrorHandler((err, req, res) => {
 *   if (err.code === StaticErrorCodes.NOT_FOUND) return res.status(404).html('<h1>No such file</h1>');
 *   res.status(err.status ?? 500).json({ error: err.message });
 * });
 * ```
 */
export const StaticErrorCodes = {
  /** Start-up: a bad option, or a root that is not a readable directory. At once: a bad argument to `sendFile`, `res.sendFile` or `res.download` (a relative path without `root`, a path that is not a string, a bad option or callback). */
  INVALID_OPTION: 'VELOX_ERR_STATIC_INVALID_OPTION',
  /** 404: no such file (with `fallthrough: false`, or from `sendFile`, `res.sendFile`, `res.download`: also a directory, or a dotfile with `dotfiles: 'ignore'`), or it vanished before it could be read. */
  NOT_FOUND: 'VELOX_ERR_STATIC_NOT_FOUND',
  /** 403: a dotfile with `dotfiles: 'deny'`, a file the server may not read, or (`sendFile`, `res.sendFile`, `res.download`) a path outside `root`, a `..` segment or a symlink out of the root. */
  FORBIDDEN: 'VELOX_ERR_STATIC_FORBIDDEN',
  /** 412: `If-Match` or `If-Unmodified-Since` did not hold. */
  PRECONDITION_FAILED: 'VELOX_ERR_STATIC_PRECONDITION_FAILED',
  /** 416: no range of the `Range` header falls inside the file (the answer carries `Content-Range: bytes *\/size`). */
  RANGE_NOT_SATISFIABLE: 'VELOX_ERR_STATIC_RANGE_NOT_SATISFIABLE',
  /** 503: the file kept changing on disk for longer than the server waits for it to settle (it is never served half-written), or it changed between being looked at and being opened in the middle of a ranged answer; the client may try again. */
  BUSY: 'VELOX_ERR_STATIC_BUSY',
  /** Emitted (never thrown): the watcher failed (for example the system's limit on watched files was reached). */
  WATCH_FAILED: 'VELOX_ERR_STATIC_WATCH_FAILED',
} as const;

/** One of the values of {@link StaticErrorCodes}. */
export type StaticErrorCode = (typeof StaticErrorCodes)[keyof typeof StaticErrorCodes];

/** @internal */
export function staticError(code: StaticErrorCode, message: string, status = 500, cause?: unknown): VeloxError {
  return new VeloxError(code, message, { status, cause });
}

/** @internal A programmer error, thrown at start-up. */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(StaticErrorCodes.INVALID_OPTION, message);
}
