/**
 * @velox/cors: cross-origin resource sharing for Velox. One middleware factory whose headers are
 * prepared once; preflights answered even without an OPTIONS route; CORS headers on error answers.
 */
export { cors } from './cors.ts';
export { CorsErrorCodes } from './errors.ts';

export type { CorsOptions, StaticOrigin, OriginResult, OriginFunction } from './options.ts';
export type { CorsErrorCode } from './errors.ts';
