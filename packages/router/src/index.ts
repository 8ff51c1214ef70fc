/**
 * @velox/router: modular routers for Velox, flattened into native uWebSockets.js routes when
 * mounted, with typed params, router-scoped middlewares, error and not-found handlers.
 */
export { Router, Route } from './router.ts';
export { RouterErrorCodes } from './errors.ts';

export type { RouterOptions } from './router.ts';
export type { RouterErrorCode } from './errors.ts';
export type { RouterHandler } from './types.ts';
