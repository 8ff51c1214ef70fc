/**
 * Every error Velox raises is a {@link VeloxError}: it carries a stable `code`,
 * the HTTP `status` it answers with, and whether its message may reach the client.
 */

/** Options accepted by the {@link VeloxError} constructor. */
export interface VeloxErrorOptions {
  /** HTTP status the error answers with. Default: 500. */
  status?: number;
  /** Whether `message` may be sent to the client. Default: `status < 500`. */
  expose?: boolean;
  /** The underlying error, if any. */
  cause?: unknown;
  /** Structured details sent to the client with the message when exposed (for example validation issues). */
  details?: unknown;
}

/**
 * The base error of Velox and of every Velox package.
 *
 * @example
 * ```ts
 * import { VeloxError } from '@velox/core';
 * app.get('/admin', (req, res) => {
 *   throw new VeloxError('APP_FORBIDDEN', 'Admins only', { status: 403 });
 * });
 * ```
 */
export class VeloxError extends Error {
  /** Stable, prefixed error code, such as `VELOX_ERR_BODY_TOO_LARGE`. */
  readonly code: string;
  /** HTTP status this error answers with. */
  readonly status: number;
  /** Whether the message (and `details`) may be sent to the client. */
  readonly expose: boolean;
  /** Structured details, sent to the client when `expose` is true. */
  readonly details: unknown;

  constructor(code: string, message: string, options: VeloxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VeloxError';
    this.code = code;
    this.status = options.status ?? 500;
    this.expose = options.expose ?? this.status < 500;
    this.details = options.details;
  }
}

/**
 * The error codes raised by `@velox/core`, each with its status and meaning.
 * Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { ErrorCodes } from '@velox/core';
 * app.setErrorHandler((err, req, res) => {
 *   if (err.code === ErrorCodes.BODY_TOO_LARGE) return res.status(413).send('Too big');
 *   res.status(500).send('Oops');
 * });
 * ```
 */
export const ErrorCodes = {
  /** 400: the body is not valid JSON. */
  BAD_JSON: 'VELOX_ERR_BAD_JSON',
  /** 400: the urlencoded body or a path parameter has a malformed percent-escape. */
  BAD_ENCODING: 'VELOX_ERR_BAD_ENCODING',
  /** 413: the body is longer than `maxBodyLength`. */
  BODY_TOO_LARGE: 'VELOX_ERR_BODY_TOO_LARGE',
  /**
   * 415: `req.json()` (or `validate({ body })`) got a body whose Content-Type is not a JSON
   * media type (`application/json`, or any type ending in `+json`), or none at all. A route opts
   * out with `req.json({ anyType: true })`.
   */
  UNSUPPORTED_MEDIA_TYPE: 'VELOX_ERR_UNSUPPORTED_MEDIA_TYPE',
  /**
   * 400: the body's framing headers are unsafe to act on: two Content-Length headers with
   * different values, a Content-Length that is not a plain number, or a Transfer-Encoding other
   * than `chunked`. The connection closes after the answer (request smuggling, RFC 9112 6.3).
   */
  BAD_FRAMING: 'VELOX_ERR_BAD_FRAMING',
  /**
   * 507 or 503: a request body that had to go to a temporary file (more than `bodyBufferSize`
   * arrived while its consumer was paused) could not: 507 when the disk is full (`ENOSPC`,
   * `EDQUOT`, `EFBIG`), 503 when the directory cannot be written (`EACCES`, `ENOENT`, `ENOTDIR`,
   * `EROFS`, `EMFILE`…). `cause` is the system error. The connection closes after the answer.
   */
  BODY_SPILL: 'VELOX_ERR_BODY_SPILL',
  /** 500: the body was already consumed by another reader. */
  BODY_CONSUMED: 'VELOX_ERR_BODY_CONSUMED',
  /** 499: the client went away before the body was read (or, for a callback that reports the end of an answer, such as `res.sendFile()`'s, before it was sent). */
  ABORTED: 'VELOX_ERR_ABORTED',
  /** 500: a header name or value is invalid (for example it contains CR or LF). */
  INVALID_HEADER: 'VELOX_ERR_INVALID_HEADER',
  /** 500: the response was already sent. */
  HEADERS_SENT: 'VELOX_ERR_HEADERS_SENT',
  /**
   * Logged, never an answer: a response written with `write()` under a Content-Length it did not
   * keep to. Bytes beyond the length were dropped, or `end()` came short of it and the connection
   * was closed (the client sees the body cut short).
   */
  CONTENT_LENGTH_MISMATCH: 'VELOX_ERR_CONTENT_LENGTH_MISMATCH',
  /** 500: `next()` was called twice by one middleware. */
  NEXT_TWICE: 'VELOX_ERR_NEXT_TWICE',
  /** 500: `res.cookie(name, value, { signed: true })` without a `cookieSecret` (or cookie-parser's `req.secret`). */
  NO_COOKIE_SECRET: 'VELOX_ERR_NO_COOKIE_SECRET',
  /** Start-up: a bad option or a misuse of the API (thrown at once, never an HTTP answer). */
  INVALID_OPTION: 'VELOX_ERR_INVALID_OPTION',
  /** Start-up: a route with the same method and pattern is already registered. */
  DUPLICATE_ROUTE: 'VELOX_ERR_DUPLICATE_ROUTE',
  /**
   * Start-up: no native uWebSockets.js could be loaded (neither an installed `uWebSockets.js` nor
   * `@based/uws`); the message lists each attempt, the Node version and ABI, the platform, the
   * glibc found, and what to do.
   */
  UWS_LOAD: 'VELOX_ERR_UWS_LOAD',
  /**
   * @deprecated The old name of {@link ErrorCodes.UWS_LOAD} (its value is `VELOX_ERR_UWS_LOAD`):
   * code that compares `err.code === ErrorCodes.UWS_FALLBACK` keeps working.
   */
  UWS_FALLBACK: 'VELOX_ERR_UWS_LOAD',
  /** Start-up: a decoration's name is already taken (by core, or by another definition). */
  DECORATION_CONFLICT: 'VELOX_ERR_DECORATION_CONFLICT',
  /** Start-up: the server could not listen on the port or socket path. */
  LISTEN_FAILED: 'VELOX_ERR_LISTEN_FAILED',
  /**
   * Rejects: `inject()` on a server that was closed (`close()` was called, and `listen()` not
   * since). Never an HTTP answer.
   */
  SERVER_CLOSED: 'VELOX_ERR_SERVER_CLOSED',
  /**
   * 500: a member another package's plugin provides was used on a server without that plugin
   * (a placeholder, see `definePlaceholder`): the message names the plugin and the line that
   * registers it, such as `await app.register(nodeCompat)` from `@velox/express` for `req.pipe()`, or
   * `await app.register(sendFiles)` from `@velox/static` for `res.sendFile()`.
   * Also thrown at start-up by `use()` given an Express error middleware without `nodeCompat`.
   */
  PLUGIN_MISSING: 'VELOX_ERR_PLUGIN_MISSING',
} as const;

/** One of the values of {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** @internal Shorthand for a programmer error thrown at start-up. */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(ErrorCodes.INVALID_OPTION, message);
}

/** @internal The error of a write after the response was sent. */
export function headersSent(): VeloxError {
  return new VeloxError(ErrorCodes.HEADERS_SENT, 'The response was already sent');
}
