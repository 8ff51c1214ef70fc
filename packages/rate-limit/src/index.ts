/**
 * @velox/rate-limit: rate limits for Velox as a middleware: fixed or sliding windows, the IETF
 * RateLimit headers (or the legacy X-RateLimit-* set), a bounded memory store and a Redis store
 * shared by every process.
 */
export { rateLimit } from './limiter.ts';
export { MemoryStore } from './memory-store.ts';
export { RedisStore } from './redis-store.ts';
export { ipKeyGenerator } from './ip.ts';
export { RateLimitErrorCodes } from './errors.ts';

export type { RateLimitMiddleware, RateLimitInfo } from './limiter.ts';
export type { RateLimitOptions } from './options.ts';
export type { HeadersMode } from './headers.ts';
export type { RateLimitStore, RateLimitStoreContext, WindowCounts } from './store.ts';
export type { MemoryStoreOptions } from './memory-store.ts';
export type { RedisStoreOptions } from './redis-store.ts';
export type { RateLimitErrorCode } from './errors.ts';
