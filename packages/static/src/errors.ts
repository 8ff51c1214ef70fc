/**
 * The error codes `@velox/static` raises. Client-side problems are HTTP answers (each a
 * `VeloxError` with its status); a bad option is thrown at start-up.
 */
import { VeloxError } from '@velox/core';
import type { FileErrorCodes } from '@velox/core/internal';

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
  /** Start-up: a bad option, or a root that is not a readable directory. */
  INVALID_OPTION: 'VELOX_ERR_STATIC_INVALID_OPTION',
  /** 404: no such file (with `fallthrough: false`, or from `sendFile`), or it vanished before it could be read. */
  NOT_FOUND: 'VELOX_ERR_STATIC_NOT_FOUND',
  /** 403: a dotfile with `dotfiles: 'deny'`, or a file the server may not read. */
  FORBIDDEN: 'VELOX_ERR_STATIC_FORBIDDEN',
  /** 412: `If-Match` or `If-Unmodified-Since` did not hold. */
  PRECONDITION_FAILED: 'VELOX_ERR_STATIC_PRECONDITION_FAILED',
  /** 416: no range of the `Range` header falls inside the file (the answer carries `Content-Range: bytes *\/size`). */
  RANGE_NOT_SATISFIABLE: 'VELOX_ERR_STATIC_RANGE_NOT_SATISFIABLE',
  /** 503: the file kept changing on disk for longer than the server waits for it to settle (it is never served half-written). */
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

/** @internal The codes of file answers, for the file-sending code @velox/static shares with core. */
export const fileErrors: FileErrorCodes = Object.freeze({
  notFound: StaticErrorCodes.NOT_FOUND,
  forbidden: StaticErrorCodes.FORBIDDEN,
  preconditionFailed: StaticErrorCodes.PRECONDITION_FAILED,
  rangeNotSatisfiable: StaticErrorCodes.RANGE_NOT_SATISFIABLE,
  busy: StaticErrorCodes.BUSY,
  invalidOption: StaticErrorCodes.INVALID_OPTION,
});

/** @internal A programmer error, thrown at start-up. */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(StaticErrorCodes.INVALID_OPTION, message);
}
