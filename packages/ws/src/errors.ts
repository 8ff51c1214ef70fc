/**
 * The error codes `@velox/ws` raises. Start-up mistakes are thrown at once (or make `listen()`
 * reject); misuse of a socket throws at the call. Bad input from a client is never an exception:
 * it closes that connection with a close code (see the README). Each is a `VeloxError`. Redis
 * failures of `redisPubSub` carry `@velox/redis`'s codes (`VELOX_ERR_REDIS_…`).
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/ws`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { WsErrorCodes } from '@velox/ws';
 * try {
 *   websocket({ idleTimeout: 5 });
 * } catch (err) {
 *   if (err.code === WsErrorCodes.INVALID_OPTION) console.error(err.message);
 * }
 * ```
 */
export const WsErrorCodes = {
  /** Start-up: a bad option of `websocket()` or `redisPubSub` (an `idleTimeout` uWS would abort on, say). Bad Redis options are `VELOX_ERR_REDIS_INVALID_OPTION`, from `@velox/redis`. */
  INVALID_OPTION: 'VELOX_ERR_WS_INVALID_OPTION',
  /** Start-up: `compression` was asked for, but this uWebSockets.js binary does not negotiate permessage-deflate. */
  COMPRESSION_UNSUPPORTED: 'VELOX_ERR_WS_COMPRESSION_UNSUPPORTED',
  /** A socket was given something to send that is not a string, an ArrayBuffer or a typed array. */
  INVALID_MESSAGE: 'VELOX_ERR_WS_INVALID_MESSAGE',
  /** `socket.close()` was given a close code a server may not send, or a reason over 123 bytes. */
  INVALID_CLOSE: 'VELOX_ERR_WS_INVALID_CLOSE',
} as const;

/**
 * One of the values of {@link WsErrorCodes}.
 * @example
 * ```ts
 * const code: WsErrorCode = WsErrorCodes.INVALID_CLOSE;
 * ```
 */
export type WsErrorCode = (typeof WsErrorCodes)[keyof typeof WsErrorCodes];

/** @internal */
export function wsError(code: WsErrorCode, message: string, cause?: unknown): VeloxError {
  return new VeloxError(code, message, { cause });
}
