/**
 * @velox/fetch: web-standards apps (`fetch(request, env) => Response`: Hono, H3, itty-router,
 * Elysia) on Velox's uWebSockets.js server, on their own (`serve`) or beside Velox routes
 * (`fetchHandler`).
 */
export type { FetchFunction, FetchHandlerOptions } from './handler.ts';
export type { ServeOptions, FetchServer } from './serve.ts';
export type { VeloxBindings, Incoming, IncomingSocket } from './env.ts';
export type { FetchErrorCode } from './errors.ts';
export type { ConnInfo } from './conninfo.ts';

export { serve } from './serve.ts';
export { fetchHandler } from './handler.ts';
export { FetchRequest, veloxRequest } from './request.ts';
export { getConnInfo } from './conninfo.ts';
export { FetchErrorCodes } from './errors.ts';
export { LightResponse, installLightResponse } from './light-response.ts';
export { LightHeaders } from './light-headers.ts';
