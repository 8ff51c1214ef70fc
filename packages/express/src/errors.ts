/**
 * The error codes `@velox/express` raises. Each is a `VeloxError` from `@velox/core`; a member of
 * the Node.js/Express surface used on a server without `nodeCompat` throws core's
 * `VELOX_ERR_PLUGIN_MISSING` instead (core keeps placeholders for those members).
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/express`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { ExpressErrorCodes } from '@velox/express';
 * app.setErrorHandler((err, req, res) => {
 *   if (err.code === ExpressErrorCodes.NOT_ACCEPTABLE) return res.status(406).send('Ask for JSON');
 *   res.status(500).send('Oops');
 * });
 * ```
 */
export const ExpressErrorCodes = {
  /** 406: `res.format()` found no type the client accepts and has no `default` handler. */
  NOT_ACCEPTABLE: 'VELOX_ERR_EXPRESS_NOT_ACCEPTABLE',
  /**
   * Thrown: `req.app.set()` of a setting that describes what the server does (`trust proxy`,
   * `etag`, `strict routing`…); the message names the server option to use instead.
   */
  FIXED_SETTING: 'VELOX_ERR_EXPRESS_FIXED_SETTING',
  /**
   * @deprecated No longer raised: an `express()` app called with Node's request and response
   * (`http.createServer(app)`, supertest) now answers them, through the Velox server it runs on.
   * Kept so that code comparing against it still compiles.
   */
  NODE_SERVER: 'VELOX_ERR_EXPRESS_NODE_SERVER',
} as const;

/** One of the values of {@link ExpressErrorCodes}. */
export type ExpressErrorCode = (typeof ExpressErrorCodes)[keyof typeof ExpressErrorCodes];

/** @internal */
export function expressError(code: ExpressErrorCode, message: string, status?: number, details?: unknown): VeloxError {
  return new VeloxError(code, message, status === undefined ? {} : { status, details });
}
