/**
 * The error codes `@velox/otel` raises: only programmer mistakes, thrown by `new
 * VeloxInstrumentation(config)` or `setConfig()`. Requests are never failed by tracing.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/otel`. Every code is documented in the package README.
 * @example
 * ```ts
 * import { OtelErrorCodes } from '@velox/otel';
 * try { new VeloxInstrumentation({ requestHook: 'x' as never }); } catch (err) { if (err.code === OtelErrorCodes.INVALID_OPTION) console.error(err.message); }
 * ```
 */
export const OtelErrorCodes = {
  /** A bad option: a hook that is not a function, an `ignoreRequest` that is not a function, a `captureQuery` that is not a boolean. */
  INVALID_OPTION: 'VELOX_ERR_OTEL_INVALID_OPTION',
} as const;

/** One of the values of {@link OtelErrorCodes}. */
export type OtelErrorCode = (typeof OtelErrorCodes)[keyof typeof OtelErrorCodes];

/** @internal */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(OtelErrorCodes.INVALID_OPTION, message);
}
