/**
 * The error codes `@velox/openapi` raises, each carried by a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/openapi`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { OpenApiErrorCodes } from '@velox/openapi';
 *
 * const app = new Server({
 *   logger: { error: console.error, warn: (w) => (w?.code === OpenApiErrorCodes.SCHEMA ? reportSchema(w) : console.warn(w)) },
 * });
 * ```
 */
export const OpenApiErrorCodes = {
  /** Start-up: the plugin's or `describeRoute()`'s options are not what they should be. */
  INVALID_OPTION: 'VELOX_ERR_OPENAPI_INVALID_OPTION',
  /** Start-up: two documented routes were given the same `operationId`; the message names both. */
  DUPLICATE_OPERATION_ID: 'VELOX_ERR_OPENAPI_DUPLICATE_OPERATION_ID',
  /** Start-up: the document's `path` or the `ui` path is already a route of the server. */
  PATH_TAKEN: 'VELOX_ERR_OPENAPI_PATH_TAKEN',
  /** Start-up: a route's `security` names a scheme the plugin's `securitySchemes` does not declare. */
  UNKNOWN_SECURITY: 'VELOX_ERR_OPENAPI_UNKNOWN_SECURITY',
  /** Logged, never thrown: a route's schema could not be converted to JSON Schema; the document is built without it. */
  SCHEMA: 'VELOX_ERR_OPENAPI_SCHEMA',
} as const;

/**
 * One of the values of {@link OpenApiErrorCodes}.
 *
 * @example
 * ```ts
 * const code: OpenApiErrorCode = OpenApiErrorCodes.DUPLICATE_OPERATION_ID;
 * ```
 */
export type OpenApiErrorCode = (typeof OpenApiErrorCodes)[keyof typeof OpenApiErrorCodes];

/** A start-up error for a bad option. */
export function invalid(message: string): VeloxError {
  return new VeloxError(OpenApiErrorCodes.INVALID_OPTION, message);
}
