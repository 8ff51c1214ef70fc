/**
 * @velox/session: sessions on signed cookies for Velox, lazy, written before the response
 * leaves, with a memory store by default and a Redis store across processes.
 */
export { session } from './plugin.ts';
export { MemoryStore } from './memory-store.ts';
export { RedisStore } from './redis-store.ts';
export { SessionErrorCodes } from './errors.ts';

export type { Session, SessionData, SessionValue, SessionValues, RegenerateOptions } from './session.ts';
export type { SessionOptions, SessionCookieOptions } from './options.ts';
export type { SessionStore, SessionRecord, SessionChange } from './store.ts';
export type { MemoryStoreOptions } from './memory-store.ts';
export type { RedisStoreOptions } from './redis-store.ts';
export type { SessionErrorCode } from './errors.ts';
