/**
 * RedisStore: one Redis hash per session (`<prefix><id>`), with the meta fields `c` (created) and
 * `s` (seen) and one field `d:<key>` per value (JSON text), expiring with PEXPIRE. A request's
 * changes are written by a Lua script that runs only while the hash exists and touches only the
 * changed fields: concurrent changes to different keys are all kept, and a destroyed session is
 * never written back. The connection is @velox/redis's.
 */
import type { Server } from '@velox/core';
import { RedisConnection, type RedisOptions, type RedisScript } from '@velox/redis';
import { invalidOption } from './errors.ts';
import type { SessionChange, SessionRecord, SessionStore } from './store.ts';

/**
 * Options of {@link RedisStore}: where Redis is (`url`, `client` or `connection`), the key prefix,
 * and the settings of the connection it makes, which are `@velox/redis`'s (`failFast`,
 * `connectTimeout`, `commandTimeout`, `reconnectDelay`, `logger`, `logInterval`, `name`).
 */
export interface RedisStoreOptions extends RedisOptions {
  /** Prepended to every session id to make its key. Default: `sess:`. */
  prefix?: string;
  /** A `RedisConnection` from `@velox/redis` to share with other packages (WebSocket pub/sub, say). */
  connection?: RedisConnection;
}

// KEYS[1]: the session's key. ARGV: ttl, then field/value pairs.
const SET = `
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

// KEYS[1]: the session's key. ARGV: ttl, the number n of fields to delete, those n fields, then
// field/value pairs to write (at least the seen time). Nothing happens when the hash is gone.
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[2])
for i = 3, 2 + n do redis.call('HDEL', KEYS[1], ARGV[i]) end
for i = 3 + n, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/**
 * A session store on Redis, for sessions shared by several processes and kept across restarts,
 * on @velox/redis (node-redis). Give it `{ url }` (it makes, connects and closes its connection),
 * `{ client }` (your node-redis client, never closed by it) or `{ connection }` (a
 * `RedisConnection` shared with other packages). The session plugin connects it while it is
 * registered, so with Redis up it is connected by the time `listen()` resolves, and closes it on
 * `app.close()`.
 *
 * Redis not up at start-up: the app starts anyway (a deploy where Redis restarts at the same
 * moment still serves its health check and every route without a session). Until Redis is up,
 * sessions answer 503 `VELOX_ERR_SESSION_STORE`, as during any outage; then they work, with no
 * restart. The log says once that Redis is unreachable and once that it is up. With
 * `failFast: true`, `register` and `listen()` reject with `VELOX_ERR_REDIS_CONNECT` instead.
 *
 * Round trips: `start()` of a known session is one (HGETALL); a response that changed or touched
 * the session is one more (EVALSHA); a request that only reads, between touches, none more.
 *
 * @example
 * ```ts
 * import { session, RedisStore } from '@velox/session';
 * await app.register(session, {
 *   secret: process.env.SESSION_SECRET,
 *   store: new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'sess:' }),
 * });
 * ```
 */
export class RedisStore implements SessionStore {
  /** The Redis connection this store uses. */
  readonly connection: RedisConnection;
  readonly #prefix: string;
  readonly #set: RedisScript;
  readonly #update: RedisScript;

  constructor(options: RedisStoreOptions = {}) {
    const { prefix = 'sess:', connection, ...redis } = options;
    if (typeof prefix !== 'string') throw invalidOption(`RedisStore prefix must be a string, e.g. "sess:"; got ${typeof prefix}`);
    if (connection !== undefined && !(connection instanceof RedisConnection)) {
      throw invalidOption('RedisStore connection must be a RedisConnection from @velox/redis');
    }
    this.#prefix = prefix;
    this.connection = connection ?? new RedisConnection({ name: 'session store', ...redis });
    this.#set = this.connection.script(SET);
    this.#update = this.connection.script(UPDATE);
  }

  /**
   * Connects, logging through the server's logger; the session plugin calls it when registered.
   * Resolves without Redis too (the connection keeps trying), unless `failFast`.
   */
  async open(server?: Server): Promise<void> {
    await this.connection.connect(server ? { logger: server.logger } : {});
  }

  /** False while the Redis connection is down (not reached yet, or lost): `start()` answers 503 then. */
  available(): boolean {
    return this.connection.ready;
  }

  /** Gives up the connection (closed unless shared with someone still using it, or a client of yours). */
  async close(): Promise<void> {
    await this.connection.close();
  }

  /** @example const record = await store.get(id); */
  async get(id: string): Promise<SessionRecord | undefined> {
    const fields = await this.connection.command<string[]>('HGETALL', this.#prefix + id);
    if (!Array.isArray(fields) || fields.length === 0) return undefined;
    let created = Number.NaN;
    let seen = Number.NaN;
    const data: Record<string, unknown> = Object.create(null);
    for (let i = 0; i < fields.length; i += 2) {
      const field = fields[i]!;
      const value = fields[i + 1]!;
      if (field.startsWith('d:')) data[field.slice(2)] = JSON.parse(value);
      else if (field === 'c') created = Number(value);
      else if (field === 's') seen = Number(value);
    }
    if (!Number.isFinite(created) || !Number.isFinite(seen)) return undefined;
    return { created, seen, data };
  }

  /** @example await store.set(id, { created: Date.now(), seen: Date.now(), data: { visits: 1 } }, 60_000); */
  async set(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    const args: string[] = [ttl(ttlMs), 'c', String(record.created), 's', String(record.seen)];
    for (const key in record.data) args.push(`d:${key}`, JSON.stringify(record.data[key]));
    await this.#set.run([this.#prefix + id], args);
  }

  /** @example const stillThere = await store.update(id, { set: { visits: 2 }, delete: [], seen: Date.now() }, 60_000); */
  async update(id: string, change: SessionChange, ttlMs: number): Promise<boolean> {
    const args: string[] = [ttl(ttlMs), String(change.delete.length)];
    for (const key of change.delete) args.push(`d:${key}`);
    args.push('s', String(change.seen));
    for (const key in change.set) args.push(`d:${key}`, JSON.stringify(change.set[key]));
    return (await this.#update.run<number>([this.#prefix + id], args)) === 1;
  }

  /** @example await store.touch(id, 60_000); */
  async touch(id: string, ttlMs: number): Promise<boolean> {
    return (await this.#update.run<number>([this.#prefix + id], [ttl(ttlMs), '0', 's', String(Date.now())])) === 1;
  }

  /** @example await store.destroy(id); */
  async destroy(id: string): Promise<void> {
    await this.connection.command('DEL', this.#prefix + id);
  }
}

/** PEXPIRE wants a whole, positive number of milliseconds. */
function ttl(ms: number): string {
  return String(Math.max(1, Math.ceil(ms)));
}
