/**
 * The error codes `@velox/cors` raises, each a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/cors`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { CorsErrorCodes } from '@velox/cors';
 * app.setErrorHandler((err, req, res) => {
 *   if (err.code === CorsErrorCodes.BAD_PREFLIGHT) return res.status(400).send('Bad preflight');
 *   res.status(err.status ?? 500).send('Oops');
 * });
 * ```
 */
export const CorsErrorCodes = {
  /** Start-up: a bad option given to `cors()` (thrown by the factory, never an HTTP answer). */
  INVALID_OPTION: 'VELOX_ERR_CORS_INVALID_OPTION',
  /**
   * 400: a malformed preflight, with `strictPreflight` on (the default): an
   * Access-Control-Request-Method that is not a method name, or an Access-Control-Request-Headers
   * to reflect that is not a list of header names or is longer than 4,096 characters.
   */
  BAD_PREFLIGHT: 'VELOX_ERR_CORS_BAD_PREFLIGHT',
  /** 500: an `origin` function returned (or resolved to) something that is not an origin setting. */
  BAD_ORIGIN_RESULT: 'VELOX_ERR_CORS_BAD_ORIGIN_RESULT',
} as const;

/**
 * One of the values of {@link CorsErrorCodes}.
 *
 * @example
 * ```ts
 * import type { CorsErrorCode } from '@velox/cors';
 * const clientSide: CorsErrorCode[] = ['VELOX_ERR_CORS_BAD_PREFLIGHT'];
 * ```
 */
export type CorsErrorCode = (typeof CorsErrorCodes)[keyof typeof CorsErrorCodes];

/** @internal A programmer error thrown by the factory. */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(CorsErrorCodes.INVALID_OPTION, message);
}

/** @internal A preflight whose request headers are malformed: 400, the reason shown. */
export function badPreflight(reason: string): VeloxError {
  return new VeloxError(CorsErrorCodes.BAD_PREFLIGHT, `Invalid CORS preflight: ${reason}`, { status: 400, expose: true });
}

/** @internal The origin function's result cannot be read as an origin setting: a bug of the app, 500. */
export function badOriginResult(value: unknown): VeloxError {
  const got = value instanceof Object ? (Array.isArray(value) ? 'an array with something else than strings and RegExps' : 'an object') : String(value);
  return new VeloxError(
    CorsErrorCodes.BAD_ORIGIN_RESULT,
    `The cors origin function returned ${got}; return true, false, '*', an origin string, a RegExp or an array of strings and RegExps`,
    { status: 500 },
  );
}
