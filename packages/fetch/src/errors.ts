/**
 * The error codes `@velox/fetch` raises. A client's bad request is an HTTP answer (a `VeloxError`
 * with its status, through the server's error handler); a bad option throws at start-up. A body
 * over the limit answers with core's own `VELOX_ERR_BODY_TOO_LARGE` (413).
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/fetch`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { FetchErrorCodes } from '@velox/fetch';
 * app.setErrorHandler((err, req, res) => {
 *   if (err.code === FetchErrorCodes.TIMEOUT) return res.status(503).set('retry-after', '5').send('Busy');
 *   res.status(err.status ?? 500).json({ error: err.message });
 * });
 * ```
 */
export const FetchErrorCodes = {
  /** Start-up: a bad option to `serve()` or `fetchHandler()` (no `fetch` function, a negative timeout, a server that already listens). */
  INVALID_OPTION: 'VELOX_ERR_FETCH_INVALID_OPTION',
  /** 400: the `Host` header and the request target do not make a valid URL (an empty or malformed `Host`, a target the URL parser refuses), or a header value the Fetch `Headers` class refuses. The app never runs. */
  BAD_REQUEST: 'VELOX_ERR_FETCH_BAD_REQUEST',
  /** 503: the app did not answer within `timeout` ms; `request.signal` is aborted with a `TimeoutError`. */
  TIMEOUT: 'VELOX_ERR_FETCH_TIMEOUT',
  /** 500: the app's fetch returned (or resolved with) something that is not a `Response`. */
  BAD_RESPONSE: 'VELOX_ERR_FETCH_BAD_RESPONSE',
  /** Logged, never sent: the `ReadableStream` of a response failed after its head went out; the connection is cut so the client sees a truncated answer. */
  STREAM_FAILED: 'VELOX_ERR_FETCH_STREAM_FAILED',
} as const;

/** One of the values of {@link FetchErrorCodes}. */
export type FetchErrorCode = (typeof FetchErrorCodes)[keyof typeof FetchErrorCodes];

/** @internal */
export function fetchError(code: FetchErrorCode, message: string, status = 500, cause?: unknown, expose?: boolean): VeloxError {
  return new VeloxError(code, message, expose === undefined ? { status, cause } : { status, cause, expose });
}

/** @internal A programmer error, thrown at start-up. */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(FetchErrorCodes.INVALID_OPTION, message);
}
