/**
 * The error codes `@velox/validate` raises, each carried by a `VeloxError` from `@velox/core`.
 */

/**
 * The error codes raised by `@velox/validate`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { ValidateErrorCodes } from '@velox/validate';
 * app.setErrorHandler((err, req, res) => {
 *   if (err.code === ValidateErrorCodes.VALIDATION) return res.status(422).json({ problems: err.details.issues });
 *   res.status(err.status ?? 500).json({ error: err.message });
 * });
 * ```
 */
export const ValidateErrorCodes = {
  /** 400: some part of the request failed its schema (or the body is not JSON); `details.issues` lists every problem. */
  VALIDATION: 'VELOX_ERR_VALIDATION',
  /** Start-up: `validate()` was given something other than Standard Schemas for params, query, headers, cookies, body and response. */
  INVALID_OPTION: 'VELOX_ERR_VALIDATE_INVALID_OPTION',
  /** Logged, never thrown: with `checkResponses`, a body the route sent failed the response schema for its status. */
  RESPONSE_MISMATCH: 'VELOX_ERR_VALIDATE_RESPONSE_MISMATCH',
} as const;

/** One of the values of {@link ValidateErrorCodes}. */
export type ValidateErrorCode = (typeof ValidateErrorCodes)[keyof typeof ValidateErrorCodes];
