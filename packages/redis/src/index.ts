/**
 * @velox/redis: the Redis connection Velox packages share (the session store, WebSocket pub/sub),
 * on node-redis.
 */
export { RedisConnection } from './connection.ts';
export { RedisErrorCodes } from './errors.ts';

export type { RedisOptions, SharedRedisOptions, RedisScript, RedisWatcher, MessageListener } from './connection.ts';
export type { NodeRedisClient as RedisClient, RedisArg } from './driver.ts';
export type { RedisErrorCode } from './errors.ts';
