/**
 * The error codes `@velox/router` raises. All of them are programmer errors, thrown at once when
 * the router is built or mounted, never HTTP answers. Each is a `VeloxError` from `@velox/core`.
 */
import { VeloxError } from '@velox/core';

/**
 * The error codes raised by `@velox/router`. Every code is documented in the package README.
 *
 * @example
 * ```ts
 * import { RouterErrorCodes } from '@velox/router';
 * try {
 *   router.get('/a', handler).get('/a', handler);
 * } catch (err) {
 *   if (err.code === RouterErrorCodes.DUPLICATE_ROUTE) console.error(err.message);
 * }
 * ```
 */
export const RouterErrorCodes = {
  /** A bad option, pattern, prefix or argument (for example a pattern that does not start with `/`). */
  INVALID_OPTION: 'VELOX_ERR_ROUTER_INVALID_OPTION',
  /** The router already has a route for this method and path (after its `strict` and `caseSensitive` rules). */
  DUPLICATE_ROUTE: 'VELOX_ERR_ROUTER_DUPLICATE_ROUTE',
  /** Middlewares, error or not-found handlers were changed after the router was mounted. */
  MOUNTED: 'VELOX_ERR_ROUTER_MOUNTED',
  /** A router was nested inside itself, directly or through other routers. */
  CYCLE: 'VELOX_ERR_ROUTER_CYCLE',
  /**
   * A router that needs a catch-all route (not-found handler, `caseSensitive: false`) reached the
   * root when core could not take its `ANY /*`: after `listen()`, or with another catch-all there.
   */
  ROOT_CATCH_ALL: 'VELOX_ERR_ROUTER_ROOT_CATCH_ALL',
} as const;

/** One of the values of {@link RouterErrorCodes}. */
export type RouterErrorCode = (typeof RouterErrorCodes)[keyof typeof RouterErrorCodes];

/** @internal */
export function routerError(code: RouterErrorCode, message: string, cause?: unknown): VeloxError {
  return new VeloxError(code, message, { cause });
}
