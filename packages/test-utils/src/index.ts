/**
 * @velox/test-utils: the helpers Velox's own tests share (private, not published). One module a
 * concern; everything that opens something closes it when the test that opened it has finished.
 */
export type { Closable } from './cleanup.ts';
export type { ErrorCodesOptions } from './errors.ts';
export type { Listener } from './http.ts';
export type { RawConnection, RawOptions, RawResponse } from './net.ts';
export type { OwnRedis, OwnRedisOptions } from './own-redis.ts';
export type { Exit, Program, RunOptions, Running, SpawnOptions } from './processes.ts';
export type { Digest, HashingSink, PostAfterWarmOptions, SlowSinkOptions, Upload, UploadOptions } from './spill.ts';
export type { Client } from './ws.ts';

export { closeAfter, later } from './cleanup.ts';
export { describeErrorCodes, thrownBy } from './errors.ts';
export { tempDir } from './fs.ts';
export { get, listen, start } from './http.ts';
export { accepts, freePort, parseResponses, raw, rawConnection } from './net.ts';
export { ownRedis } from './own-redis.ts';
export { alive, childrenOf, commandLine, descendants, exitCode, killLater, processesWithEnv, run, runServer, spawnProcess } from './processes.ts';
export { dropKeys, pings, REDIS_URL, redisPrefix } from './redis.ts';
export { digest, postAfterWarm, rss, sampleRss, slowSink, upload, uploadDigest } from './spill.ts';
export { eventually, sleep, until } from './wait.ts';
export { attempt, connect, received } from './ws.ts';
