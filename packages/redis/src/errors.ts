/**
 * The error codes `@velox/redis` raises, each a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/redis`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { RedisErrorCodes } from '@velox/redis';
 * try {
 *   await redis.command('GET', 'greeting');
 * } catch (err) {
 *   if (err.code === RedisErrorCodes.UNAVAILABLE) console.warn('Redis is down; try again later');
 * }
 * ```
 */
export const RedisErrorCodes = {
  /** Start-up: a bad option (thrown at once, never an HTTP answer). */
  INVALID_OPTION: 'VELOX_ERR_REDIS_INVALID_OPTION',
  /** Start-up: no connection to Redis within `connectTimeout`; `listen()` fails with it. */
  CONNECT: 'VELOX_ERR_REDIS_CONNECT',
  /** 503: Redis is not reachable now (down, reconnecting, closed) or did not answer within `commandTimeout`. */
  UNAVAILABLE: 'VELOX_ERR_REDIS_UNAVAILABLE',
  /** 500: Redis answered the command with an error (a wrong type, a script error). */
  COMMAND: 'VELOX_ERR_REDIS_COMMAND',
} as const;

/** One of the values of {@link RedisErrorCodes}. */
export type RedisErrorCode = (typeof RedisErrorCodes)[keyof typeof RedisErrorCodes];

/** @internal */
export function redisError(code: RedisErrorCode, message: string, cause?: unknown): VeloxError {
  const status = code === RedisErrorCodes.UNAVAILABLE ? 503 : 500;
  return new VeloxError(code, message, { status, cause });
}
