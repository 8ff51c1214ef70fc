/**
 * The error codes `@velox/session` raises, each a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/session`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { SessionErrorCodes } from '@velox/session';
 * app.setErrorHandler((err, req, res) => {
 *   if (err.code === SessionErrorCodes.STORE) return res.status(503).send('Please try again in a moment');
 *   res.status(err.status ?? 500).send('Oops');
 * });
 * ```
 */
export const SessionErrorCodes = {
  /** Start-up: a bad option, such as a secret shorter than 32 characters (thrown by `register`, never an HTTP answer). */
  INVALID_OPTION: 'VELOX_ERR_SESSION_INVALID_OPTION',
  /** 503: the store failed (down, timed out) while loading, writing or destroying a session. */
  STORE: 'VELOX_ERR_SESSION_STORE',
  /** 500: the session was used before `await req.session.start()`. */
  NOT_STARTED: 'VELOX_ERR_SESSION_NOT_STARTED',
  /** 500: `set()` got a key that is not a non-empty string, or a value JSON cannot hold (a BigInt, a cycle). */
  INVALID_VALUE: 'VELOX_ERR_SESSION_INVALID_VALUE',
  /** 500: `req.session` was read on a server where the session plugin is not registered. */
  NOT_REGISTERED: 'VELOX_ERR_SESSION_NOT_REGISTERED',
} as const;

/** One of the values of {@link SessionErrorCodes}. */
export type SessionErrorCode = (typeof SessionErrorCodes)[keyof typeof SessionErrorCodes];

/** @internal A programmer error thrown at start-up. */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(SessionErrorCodes.INVALID_OPTION, message);
}

/** @internal The store failed: 503, with a message that says nothing of the store's internals. */
export function storeError(cause: unknown, what: string): VeloxError {
  return new VeloxError(SessionErrorCodes.STORE, `The session store is unavailable (${what}); try again shortly`, {
    status: 503,
    expose: true,
    cause,
  });
}

/** @internal A misuse of the session API while answering a request. */
export function usageError(code: SessionErrorCode, message: string): VeloxError {
  return new VeloxError(code, message, { status: 500 });
}
