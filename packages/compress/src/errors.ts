/**
 * The error codes `@velox/compress` raises, each a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/compress`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { CompressErrorCodes, compress } from '@velox/compress';
 * try {
 *   app.use(compress({ threshold: -1 }));
 * } catch (err) {
 *   if (err.code === CompressErrorCodes.INVALID_OPTION) console.error(err.message); // says what to write instead
 * }
 * ```
 */
export const CompressErrorCodes = {
  /** Start-up: a bad option given to `compress()` (thrown by the factory, never an HTTP answer). */
  INVALID_OPTION: 'VELOX_ERR_COMPRESS_INVALID_OPTION',
  /** Logged: zlib failed while compressing a streamed body, after the head went out; the connection is cut. */
  STREAM: 'VELOX_ERR_COMPRESS_STREAM',
} as const;

/**
 * One of the values of {@link CompressErrorCodes}.
 * @example
 * ```ts
 * function isCompressError(err: { code?: string }): err is { code: CompressErrorCode } {
 *   return Object.values(CompressErrorCodes).includes(err.code as CompressErrorCode);
 * }
 * ```
 */
export type CompressErrorCode = (typeof CompressErrorCodes)[keyof typeof CompressErrorCodes];

/** @internal A programmer error thrown by the factory. */
export function invalidOption(message: string, cause?: unknown): VeloxError {
  return new VeloxError(CompressErrorCodes.INVALID_OPTION, message, cause === undefined ? {} : { cause });
}

/** @internal zlib failed in the middle of a body: what the sink logs before it cuts the connection. */
export function streamError(coding: string, cause: unknown): VeloxError {
  return new VeloxError(CompressErrorCodes.STREAM, `${coding} compression failed in the middle of a response; the connection was cut`, { status: 500, cause });
}
