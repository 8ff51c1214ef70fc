/**
 * RedisStore: one Redis hash per key (`<prefix><identifier>:<key>`, fields `s` window start,
 * `c` count, `p` previous count), updated by a Lua script in one atomic round trip per request,
 * on Redis's own clock (processes whose clocks differ still share one window), expiring at the
 * end of the window after the current one (at most two windows away). The connection is
 * @velox/redis's.
 */
import type { Server } from '@velox/core';
import { RedisConnection, type RedisScript, type SharedRedisOptions } from '@velox/redis';
import { invalidOption } from './errors.ts';
import type { RateLimitStore, RateLimitStoreContext, WindowCounts } from './store.ts';

/**
 * Options of {@link RedisStore}: where Redis is (`url`, `client` or a shared `connection`), the
 * key prefix, and @velox/redis's connection settings (`connectTimeout`, `commandTimeout`,
 * `failFast`, `reconnectDelay`, `logger`, `logInterval`, `name`).
 * @example
 * ```ts
 * const options: RedisStoreOptions = { url: process.env.REDIS_URL, prefix: 'rl:', commandTimeout: 1000 };
 * app.use(rateLimit({ store: new RedisStore(options) }));
 * ```
 */
export interface RedisStoreOptions extends SharedRedisOptions {
  /** Starts every key (followed by the limiter's identifier and `:`). Default: `rl:`. */
  prefix?: string;
}

// Redis's clock, in ms. TIME before a write is allowed: scripts replicate their effects (Redis ≥ 5).
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS[1]: the key. ARGV[1]: windowMs. Returns { count, previous, ms until the window ends }.
const HIT = `${NOW}
local w = tonumber(ARGV[1])
local v = redis.call('HMGET', KEYS[1], 's', 'c', 'p')
local s = tonumber(v[1])
local c = tonumber(v[2]) or 0
local p = tonumber(v[3]) or 0
if s == nil or now >= s + 2 * w then
  s = now
  c = 0
  p = 0
elseif now >= s + w then
  p = c
  c = 0
  s = s + w
end
c = c + 1
redis.call('HSET', KEYS[1], 's', s, 'c', c, 'p', p)
redis.call('PEXPIRE', KEYS[1], s + 2 * w - now)
return { c, p, s + w - now }`;

// KEYS[1]: the key. ARGV[1]: windowMs. Takes a hit back while its window is the current one.
const UNDO = `${NOW}
local w = tonumber(ARGV[1])
local v = redis.call('HMGET', KEYS[1], 's', 'c')
local s = tonumber(v[1])
local c = tonumber(v[2])
if s == nil or c == nil or c < 1 or now >= s + w then return 0 end
redis.call('HSET', KEYS[1], 'c', c - 1)
return 1`;

/**
 * A store in Redis, through @velox/redis, so that every process and machine shares one count
 * per key. One atomic round trip per request (a Lua script run with EVALSHA); keys are
 * `<prefix><identifier>:<key>` (the limiter's `identifier`, `"default"` unless given), each a
 * hash that expires at most two windows after its last hit.
 *
 * Nothing to call before or after: the limiter connects the store at its first request on a
 * server (with that server's logger; that request waits for it, within `storeTimeout`) and closes
 * it when that server closes. `await store.open(app)` connects earlier (before `listen()`, say);
 * `await store.close()` closes a store used without a server. While Redis is down, every call
 * fails at once (no offline queue) and the limiter follows `onStoreError`.
 *
 * A RedisStore serves one limiter (its keys carry that limiter's identifier). Two limiters that
 * share a prefix must have different identifiers, or they share their counts, which is what the
 * same limiter in several processes wants.
 *
 * @example
 * ```ts
 * import { rateLimit, RedisStore } from '@velox/rate-limit';
 * app.use('/api', rateLimit({
 *   limit: 100,
 *   windowMs: 60_000,
 *   store: new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'rl:' }),
 * }));
 * ```
 */
export class RedisStore implements RateLimitStore {
  /** The Redis connection this store uses (its own, or the one given as `connection`). */
  readonly connection: RedisConnection;
  readonly #prefix: string;
  #keyPrefix: string;
  #bound = false;
  readonly #hit: RedisScript;
  readonly #undo: RedisScript;
  readonly #servers = new WeakSet<Server>();
  #opens = 0;
  #closed = false;

  constructor(options: RedisStoreOptions = {}) {
    if (!options || typeof options !== 'object') throw invalidOption("RedisStore takes options such as { url: 'redis://127.0.0.1:6379', prefix: 'rl:' }");
    const { prefix = 'rl:', ...redis } = options;
    if (typeof prefix !== 'string') throw invalidOption(`RedisStore prefix must be a string, e.g. 'rl:'; got ${typeof prefix}`);
    this.#prefix = prefix;
    this.#keyPrefix = prefix;
    this.connection = RedisConnection.from(redis, { name: 'rate-limit store' });
    this.#hit = this.connection.script(HIT);
    this.#undo = this.connection.script(UNDO);
  }

  /** The prefix every key of this store starts with: `<prefix><identifier>:` once a limiter uses it. */
  get keyPrefix(): string {
    return this.#keyPrefix;
  }

  /** Called by `rateLimit()`: the limiter's identifier goes into every key. */
  init(limiter: RateLimitStoreContext): void {
    if (this.#bound) {
      throw invalidOption(
        `This RedisStore already serves another rateLimit(); give limiter "${limiter.identifier}" its own: new RedisStore({ connection }) shares the Redis connection`,
      );
    }
    this.#bound = true;
    this.#keyPrefix = `${this.#prefix}${limiter.identifier}:`;
  }

  /**
   * Connects (with the server's logger) and closes with that server (an `onClose` hook); once per
   * server. The limiter calls it at its first request on a server; call it yourself to connect
   * before `listen()`. Resolves once the first attempt succeeded or failed (Redis not up: the
   * connection keeps trying in the background, and calls fail until it is up), unless `failFast`.
   * @example
   * ```ts
   * await store.open(app);
   * ```
   */
  async open(server?: Server): Promise<void> {
    if (server !== undefined) {
      if (this.#servers.has(server)) return;
      this.#servers.add(server);
      server.addHook('onClose', () => this.close());
    }
    this.#opens++;
    this.#closed = false;
    await this.connection.connect(server ? { logger: server.logger } : {});
  }

  /**
   * Gives up one use (one `open()`); the last closes the connection (unless it is a shared
   * `connection` someone else still uses). Calls fail after it, and the limiter follows `onStoreError`.
   * @example
   * ```ts
   * await store.close();
   * ```
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#opens > 1) {
      this.#opens--;
      await this.connection.close();
      return;
    }
    this.#closed = true;
    const opened = this.#opens > 0;
    this.#opens = 0;
    if (opened) await this.connection.close();
  }

  /**
   * Counts a hit in Redis (one EVALSHA).
   * @example
   * ```ts
   * const { count, resetAt } = await store.increment('203.0.113.7', 60_000, Date.now());
   * ```
   */
  async increment(key: string, windowMs: number, now: number): Promise<WindowCounts> {
    const [count, previous, resetIn] = await this.#hit.run<[number, number, number]>([this.#keyPrefix + key], [windowMs]);
    return { count, previous, resetAt: now + resetIn };
  }

  /**
   * Takes a hit back while its window is the current one.
   * @example
   * ```ts
   * await store.decrement('203.0.113.7', 60_000, Date.now());
   * ```
   */
  async decrement(key: string, windowMs: number, now: number): Promise<void> {
    await this.#undo.run([this.#keyPrefix + key], [windowMs]);
  }

  /**
   * Forgets a key (DEL).
   * @example
   * ```ts
   * await store.reset('203.0.113.7');
   * ```
   */
  async reset(key: string): Promise<void> {
    await this.connection.command('DEL', this.#keyPrefix + key);
  }
}
