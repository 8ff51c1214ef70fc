/**
 * The error codes `@velox/rate-limit` raises, each a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/rate-limit`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { RateLimitErrorCodes } from '@velox/rate-limit';
 * app.addErrorHandler((err, req, res, next) => {
 *   if (err.code !== RateLimitErrorCodes.RATE_LIMITED) return next(err);
 *   res.status(429).json({ error: 'slow down', retryAfter: Number(res.get('retry-after')) });
 * });
 * ```
 */
export const RateLimitErrorCodes = {
  /** 429 (or `statusCode`): the client went over the limit. Exposed: its message reaches the client. */
  RATE_LIMITED: 'VELOX_ERR_RATE_LIMITED',
  /** 503, with `onStoreError: 'deny'` only: the store failed or did not answer within `storeTimeout`. */
  STORE: 'VELOX_ERR_RATE_LIMIT_STORE',
  /** 500: `keyGenerator` returned (or resolved with) something that is not a string. */
  KEY: 'VELOX_ERR_RATE_LIMIT_KEY',
  /** Start-up: a bad option, thrown by `rateLimit()` (or a store's constructor), never an HTTP answer. */
  INVALID_OPTION: 'VELOX_ERR_RATE_LIMIT_INVALID_OPTION',
} as const;

/**
 * One of the values of {@link RateLimitErrorCodes}.
 * @example
 * ```ts
 * const isRateLimit = (code: string): code is RateLimitErrorCode => Object.values(RateLimitErrorCodes).includes(code as RateLimitErrorCode);
 * ```
 */
export type RateLimitErrorCode = (typeof RateLimitErrorCodes)[keyof typeof RateLimitErrorCodes];

/** @internal A programmer error thrown at start-up. */
export function invalidOption(message: string): VeloxError {
  return new VeloxError(RateLimitErrorCodes.INVALID_OPTION, message);
}

/** @internal The answer to a client over the limit. */
export function limited(message: string, status: number): VeloxError {
  return new VeloxError(RateLimitErrorCodes.RATE_LIMITED, message, { status, expose: true });
}

/** @internal The store failed and `onStoreError` is 'deny': 503, saying nothing of the store's internals. */
export function storeError(cause: unknown): VeloxError {
  return new VeloxError(RateLimitErrorCodes.STORE, 'The rate limit cannot be checked right now; try again shortly', {
    status: 503,
    expose: true,
    cause,
  });
}

/** @internal keyGenerator gave something other than a string. */
export function keyError(got: unknown): VeloxError {
  const what = got === null ? 'null' : typeof got;
  return new VeloxError(RateLimitErrorCodes.KEY, `rateLimit keyGenerator must return a string (or a promise of one); it gave ${what}`, {
    status: 500,
  });
}
