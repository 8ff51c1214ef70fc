/**
 * RedisConnection: one Redis connection that Velox packages share. It connects while the app
 * starts (a Redis that is not up yet does not stop the start: it keeps trying in the background,
 * unless `failFast`), fails fast while Redis is away, reconnects by itself, logs through the
 * server's logger without flooding it, and closes with the app.
 */
import { createHash } from 'node:crypto';
import { type Logger, type Server, VeloxError } from '@velox/core';
import {
  adoptDriver,
  clientOf,
  createDriver,
  type Driver,
  type DriverEvents,
  type DriverOptions,
  duplicateDriver,
  isNodeRedisClient,
  urlOf,
  isReplyError,
  type NodeRedisClient,
  type RedisArg,
} from './driver.ts';
import { RedisErrorCodes, redisError } from './errors.ts';

/** Options of {@link RedisConnection}. */
export interface RedisOptions {
  /** Where Redis is: `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. Default: `redis://127.0.0.1:6379`. Not with `client` (it has its own). */
  url?: string;
  /**
   * A node-redis client you made yourself (`createClient()` from `redis`). It stays yours: the
   * connection connects it if needed, but never closes it, and its own reconnection and
   * offline-queue settings apply (commands are still bounded by `commandTimeout`).
   */
  client?: NodeRedisClient;
  /**
   * Milliseconds one connection attempt may take. It is also the longest `connect()` (and so
   * `listen()`) waits at start-up: with `failFast`, for Redis before failing with
   * `VELOX_ERR_REDIS_CONNECT`; without, for the first attempt, before the app starts anyway and
   * the connection keeps trying in the background. Default: 5000.
   */
  connectTimeout?: number;
  /**
   * `true`: `connect()` (and so `listen()`) rejects with `VELOX_ERR_REDIS_CONNECT` when Redis
   * cannot be reached within `connectTimeout`, so that a deployment without its Redis fails to
   * start. `false`: `connect()` resolves once the first attempt succeeded or failed; if it failed,
   * the connection is down (commands reject with `VELOX_ERR_REDIS_UNAVAILABLE`, `watch()` hears
   * `lost`), keeps trying in the background, and is up by itself when Redis is (`back`). Default: false.
   */
  failFast?: boolean;
  /** Milliseconds a command may wait for its answer before failing with `VELOX_ERR_REDIS_UNAVAILABLE`. Default: 2000. */
  commandTimeout?: number;
  /** Reconnection backoff after the connection broke: the first wait, doubled at each failed attempt up to `max`, plus up to `min` of jitter. Default: `{ min: 50, max: 2000 }` (ms). */
  reconnectDelay?: { min?: number; max?: number };
  /** Where connection trouble is logged. Default: the logger of the server given to `attach()`, else `console`; `false` for nowhere. */
  logger?: Logger | false;
  /** At most one connection-error line per this many milliseconds (the others are counted in the next line). Default: 10000. */
  logInterval?: number;
  /** A name for log lines, to tell connections apart. Default: `redis`. */
  name?: string;
}

/** A message listener: the payload as bytes (call `toString()` for text), and the channel. */
export type MessageListener = (message: Buffer, channel: string) => void;

/**
 * The options a package takes for its Redis: a {@link RedisConnection} to share (`connection`),
 * or the options of a connection of its own. See {@link RedisConnection.from}.
 * @example
 * ```ts
 * const options: SharedRedisOptions = { connection: new RedisConnection({ url: process.env.REDIS_URL }) };
 * ```
 */
export interface SharedRedisOptions extends RedisOptions {
  /** A connection shared with other packages (it brings its own settings: nothing else goes with it). */
  connection?: RedisConnection;
}

/**
 * What {@link RedisConnection.watch} reports: the connection is down (it broke, or Redis was not
 * there at start-up), the connection is back.
 * @example
 * ```ts
 * const unwatch = redis.watch({ back: () => console.log('Redis is back') });
 * ```
 */
export interface RedisWatcher {
  /**
   * The connection is down and reconnects by itself: it broke after it had been up, or (without
   * `failFast`) the first attempt of `connect()` failed. Once per outage, with the first error.
   */
  lost?(cause: Error): void;
  /**
   * The connection is ready after a loss: Redis is back, or (without `failFast`) came up after a
   * start without it. Not called for a first connection made within `connect()`.
   */
  back?(): void;
}

/**
 * What a connection shares with its duplicates: which of them are down, and the log's rate
 * limit, so that one outage of Redis is logged once rather than once per connection.
 */
class Outage {
  readonly down = new Set<RedisConnection>();
  lastLog = 0;
  unlogged = 0;
  /** A loss was logged and the "connected again" line is still owed. */
  logged = false;
  /** The logged loss began at start-up (Redis was never reached): the closing line says "connected", not "connected again". */
  startup = false;
}

/** How duplicate() makes a connection: from another's client, in its outage family. */
interface Origin {
  client: NodeRedisClient;
  outage: Outage;
}

/**
 * A Lua script, run with EVALSHA (falling back to EVAL when Redis does not know it yet, after a
 * restart for instance).
 * @example
 * ```ts
 * const incrIfExists = redis.script("if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCR', KEYS[1]) end return nil");
 * await incrIfExists.run(['counter'], []);
 * ```
 */
export interface RedisScript {
  /** The script's SHA-1, as Redis knows it. */
  readonly sha: string;
  /** Runs the script with these keys and arguments. */
  run<T = unknown>(keys: readonly string[], args: readonly (RedisArg | number)[]): Promise<T>;
}

const DEFAULT_URL = 'redis://127.0.0.1:6379';

/** The URL for messages, without its password. */
function shown(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw redisError(RedisErrorCodes.INVALID_OPTION, `${name} must be a positive number of milliseconds, e.g. ${fallback}; got ${String(value)}`);
  }
  return value;
}

/**
 * A Redis connection for Velox packages (the session store, WebSocket pub/sub) and your own code,
 * on node-redis. Made from `{ url }` (it creates and owns the client) or `{ client }` (yours).
 *
 * - Connects in `connect()` / `attach(server)`: await it in a plugin and `listen()` waits for the
 *   first attempt. If Redis is not there, the app starts anyway: the connection is down (commands
 *   reject with `VELOX_ERR_REDIS_UNAVAILABLE`, one log line says Redis is unreachable), keeps
 *   trying in the background and is up by itself when Redis is (one line says so). With
 *   `failFast: true`, `connect()` rejects with `VELOX_ERR_REDIS_CONNECT` instead when Redis cannot
 *   be reached within `connectTimeout`.
 * - While Redis is away, commands reject at once with `VELOX_ERR_REDIS_UNAVAILABLE` (no offline
 *   queue), and every command is bounded by `commandTimeout`.
 * - Reconnects by itself with backoff; subscriptions are restored on reconnect.
 * - Never crashes on a connection error: they are logged, at most one line per `logInterval`.
 * - `connect()` and `close()` are counted: shared by several users (two packages, two servers),
 *   it closes when the last one closes it. A client you passed in is never closed.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { RedisConnection } from '@velox/redis';
 *
 * const app = new Server();
 * const redis = new RedisConnection({ url: process.env.REDIS_URL });
 * await app.register((server) => redis.attach(server)); // first attempt before listen() (Redis up: connected); closed by app.close()
 * app.get('/hits', async (req, res) => res.json({ hits: await redis.command('INCR', 'hits') }));
 * await app.listen(3000);
 * ```
 */
export class RedisConnection {
  readonly #driver: Driver;
  readonly #owned: boolean;
  readonly #options: RedisOptions;
  readonly #driverOptions: DriverOptions;
  readonly #commandTimeout: number;
  readonly #connectTimeout: number;
  readonly #failFast: boolean;
  /** Where Redis is, for messages (no password). */
  readonly #where: string;
  readonly #logInterval: number;
  readonly #name: string;
  #logger: Logger | undefined;
  #loggerChosen: boolean;
  #users = 0;
  #connecting: Promise<void> | undefined;
  #startedAt = 0;
  #everReady = false;
  #down = false;
  /** Without failFast: connect() stopped waiting while Redis was away, and the outage log took over. */
  #background = false;
  /** Set while connect() waits for the first attempt (without failFast): ends the wait, with the attempt's error or none. */
  #firstAttempt: ((failure: Error | undefined) => void) | undefined;
  /** Counts close()s, so that a start-up wait that ends after a close() changes nothing. */
  #epoch = 0;
  readonly #outage: Outage;
  readonly #watchers = new Set<RedisWatcher>();
  readonly #readyWaiters = new Set<() => void>();
  readonly #channels = new Map<string, Map<MessageListener, (message: Buffer, channel: Buffer) => void>>();

  constructor(options?: RedisOptions);
  constructor(options: RedisOptions = {}, origin?: Origin) {
    if (!options || typeof options !== 'object') {
      throw redisError(RedisErrorCodes.INVALID_OPTION, 'RedisConnection takes { url } or { client }, e.g. { url: "redis://127.0.0.1:6379" }');
    }
    if (options.client !== undefined && !isNodeRedisClient(options.client)) {
      throw redisError(RedisErrorCodes.INVALID_OPTION, 'client must be a node-redis client: createClient() from the "redis" package');
    }
    if (options.url !== undefined && (typeof options.url !== 'string' || !/^rediss?:\/\//.test(options.url))) {
      throw redisError(RedisErrorCodes.INVALID_OPTION, `url must look like redis://host:6379 (or rediss:// for TLS); got ${String(options.url)}`);
    }
    if (options.url !== undefined && options.client !== undefined) {
      throw redisError(RedisErrorCodes.INVALID_OPTION, 'Give url or client, not both: a client brings its own URL');
    }
    if (options.failFast !== undefined && typeof options.failFast !== 'boolean') {
      throw redisError(RedisErrorCodes.INVALID_OPTION, `failFast must be true or false; got ${String(options.failFast)}`);
    }
    this.#options = options;
    this.#failFast = options.failFast === true;
    this.#connectTimeout = positive('connectTimeout', options.connectTimeout, 5000);
    this.#commandTimeout = positive('commandTimeout', options.commandTimeout, 2000);
    this.#logInterval = positive('logInterval', options.logInterval, 10_000);
    const min = positive('reconnectDelay.min', options.reconnectDelay?.min, 50);
    const max = Math.max(min, positive('reconnectDelay.max', options.reconnectDelay?.max, 2000));
    this.#name = options.name ?? 'redis';
    this.#loggerChosen = options.logger !== undefined;
    this.#logger = options.logger === false ? undefined : (options.logger ?? console);
    this.#driverOptions = {
      url: options.url ?? DEFAULT_URL,
      connectTimeout: this.#connectTimeout,
      retryDelay: (retries) => {
        const delay = Math.min(max, min * 2 ** Math.min(retries, 20)) + Math.floor(Math.random() * min);
        // With failFast, connect() is waiting before the first success: give up once the next try
        // would end past its deadline. Without, the connection keeps trying until close().
        if (this.#failFast && !this.#everReady && Date.now() + delay - this.#startedAt >= this.#connectTimeout) {
          return new Error(`no connection within ${this.#connectTimeout} ms`);
        }
        return delay;
      },
    };
    const events: DriverEvents = { error: (err) => this.#onError(err), ready: () => this.#onReady() };
    this.#outage = origin?.outage ?? new Outage();
    const url = origin ? urlOf(origin.client) : options.client ? urlOf(options.client) : (options.url ?? DEFAULT_URL);
    this.#where = url === undefined ? 'the given client' : shown(url);
    if (origin) {
      this.#owned = true;
      this.#driver = duplicateDriver(origin.client, this.#driverOptions, events);
    } else if (options.client) {
      this.#owned = false;
      this.#driver = adoptDriver(options.client, events);
    } else {
      this.#owned = true;
      this.#driver = createDriver(this.#driverOptions, events);
    }
  }

  /**
   * The connection a package should use, from the options it was given: `options.connection`
   * itself (checked to be a `RedisConnection`; it brings its own settings, so nothing else may go
   * with it), or a new connection from the other options over `defaults`. Bad options throw
   * `VELOX_ERR_REDIS_INVALID_OPTION`. Give it only the Redis options (take your own out first).
   * @example
   * ```ts
   * const { prefix, ...redisOptions } = options;
   * const redis = RedisConnection.from(redisOptions, { name: 'my cache', connectTimeout: 10_000 });
   * ```
   */
  static from(options: SharedRedisOptions, defaults: RedisOptions = {}): RedisConnection {
    if (!options || typeof options !== 'object') {
      throw redisError(RedisErrorCodes.INVALID_OPTION, 'Redis options are { url }, { client } or { connection }, e.g. { url: "redis://127.0.0.1:6379" }');
    }
    const { connection, ...own } = options;
    const given = (Object.keys(own) as Array<keyof RedisOptions>).filter((key) => own[key] !== undefined);
    if (connection === undefined) {
      const merged: Record<string, unknown> = { ...defaults };
      for (const key of given) merged[key] = own[key];
      return new RedisConnection(merged as RedisOptions);
    }
    if (!(connection instanceof RedisConnection)) {
      throw redisError(RedisErrorCodes.INVALID_OPTION, 'connection must be a RedisConnection from @velox/redis, e.g. new RedisConnection({ url })');
    }
    if (given.length > 0) {
      throw redisError(RedisErrorCodes.INVALID_OPTION, `A connection brings its own settings: give ${given.join(', ')} to the RedisConnection you share, not alongside it`);
    }
    return connection;
  }

  /** True while connected: commands can be sent. */
  get ready(): boolean {
    return this.#driver.ready;
  }

  /** True when this connection created its client (and so closes it); false for a `{ client }` of yours. */
  get owned(): boolean {
    return this.#owned;
  }

  /**
   * Connects (once; later calls wait for the same connection and count one more user). Without
   * `failFast`, resolves once the first attempt succeeded (`ready` is true) or failed (`ready` is
   * false, and the connection keeps trying in the background); it never rejects. With `failFast`,
   * rejects with `VELOX_ERR_REDIS_CONNECT` when Redis cannot be reached within `connectTimeout`.
   * @example
   * ```ts
   * await redis.connect();
   * ```
   */
  connect(options: { logger?: Logger | undefined } = {}): Promise<void> {
    if (!this.#loggerChosen && 'logger' in options) {
      this.#logger = options.logger;
      this.#loggerChosen = true;
    }
    this.#users++;
    this.#connecting ??= this.#open().catch((err) => {
      this.#connecting = undefined;
      throw err;
    });
    return this.#connecting.catch((err) => {
      this.#users = Math.max(0, this.#users - 1);
      throw err;
    });
  }

  /**
   * Connects with the server's logger and closes when the server closes (an `onClose` hook).
   * Call it from a plugin, so that `listen()` waits for the connection.
   * @example
   * ```ts
   * await app.register((server) => redis.attach(server));
   * ```
   */
  async attach(server: Server): Promise<void> {
    await this.connect({ logger: server.logger });
    server.addHook('onClose', () => this.close());
  }

  /**
   * Gives up one use of the connection; the last one closes it: pending commands get their
   * answers (for up to `commandTimeout`), then the socket closes. A `{ client }` of yours is left
   * open. Commands after that reject with `VELOX_ERR_REDIS_UNAVAILABLE`.
   * @example
   * ```ts
   * await redis.close();
   * ```
   */
  async close(): Promise<void> {
    if (this.#users > 1) {
      this.#users--;
      return;
    }
    this.#users = 0;
    const connecting = this.#connecting;
    this.#connecting = undefined;
    this.#epoch++;
    this.#background = false;
    this.#firstAttempt?.(new Error('closed'));
    this.#leaveOutage();
    await this.#driver.close(this.#commandTimeout);
    await connecting?.catch(() => {});
    this.#channels.clear();
  }

  /**
   * Sends one command; resolves with Redis's answer (RESP2: strings, numbers, arrays, null).
   * Rejects with `VELOX_ERR_REDIS_UNAVAILABLE` (503) while Redis is away or slower than
   * `commandTimeout`, and with `VELOX_ERR_REDIS_COMMAND` when Redis answers an error.
   * @example
   * ```ts
   * await redis.command('SET', 'greeting', 'hello', 'PX', '60000');
   * const greeting = await redis.command<string | null>('GET', 'greeting');
   * ```
   */
  command<T = unknown>(...args: Array<RedisArg | number>): Promise<T> {
    return this.#send(args.map(arg)) as Promise<T>;
  }

  /**
   * Prepares a Lua script. See {@link RedisScript}.
   * @example
   * ```ts
   * const setIfExists = redis.script("if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end redis.call('SET', KEYS[1], ARGV[1]) return 1");
   * const updated = await setIfExists.run<number>(['key'], ['value']);
   * ```
   */
  script(source: string): RedisScript {
    if (typeof source !== 'string' || source.trim() === '') throw redisError(RedisErrorCodes.INVALID_OPTION, 'script() takes the Lua source text');
    const sha = createHash('sha1').update(source).digest('hex');
    return {
      sha,
      run: async <T>(keys: readonly string[], args: readonly (RedisArg | number)[]): Promise<T> => {
        const tail = [String(keys.length), ...keys, ...args.map(arg)];
        try {
          return (await this.#send(['EVALSHA', sha, ...tail])) as T;
        } catch (err) {
          if (!(err as Error).message.includes('NOSCRIPT')) throw err;
          return (await this.#send(['EVAL', source, ...tail])) as T;
        }
      },
    };
  }

  /**
   * A new connection to the same Redis with the same settings (`name` aside, if given), owned by
   * this package (closed by its `close()`), for subscriptions: a connection that subscribes
   * serves pub/sub only. Connect it with `connect()` or `attach(server)`. An outage of Redis is
   * logged once for a connection and its duplicates, not once each.
   * @example
   * ```ts
   * const subscriber = redis.duplicate({ name: 'chat subscriber' });
   * await subscriber.attach(app);
   * await subscriber.subscribe('chat', (message) => console.log(message.toString()));
   * ```
   */
  duplicate(options: { name?: string } = {}): RedisConnection {
    const copy: RedisOptions = { ...this.#options, client: undefined };
    if (options.name !== undefined) copy.name = options.name;
    if (this.#loggerChosen) copy.logger = this.#logger ?? false;
    return new Duplicate(copy, { client: clientOf(this.#driver), outage: this.#outage });
  }

  /**
   * Follows the connection's health: `lost(cause)` once when an established connection breaks,
   * `back()` when it is ready again (subscriptions are restored by then). Returns a function that
   * stops it. A watcher that throws is logged, and the others still run.
   * @example
   * ```ts
   * const unwatch = redis.watch({
   *   lost: (cause) => metrics.increment('redis.lost'),
   *   back: () => cache.clear(),
   * });
   * app.addHook('onClose', unwatch);
   * ```
   */
  watch(watcher: RedisWatcher): () => void {
    if (!watcher || typeof watcher !== 'object') throw redisError(RedisErrorCodes.INVALID_OPTION, 'watch() takes { lost(cause) {…}, back() {…} }');
    this.#watchers.add(watcher);
    return () => void this.#watchers.delete(watcher);
  }

  /**
   * Subscribes a listener to a channel; messages arrive as Buffers (binary-safe). The connection
   * then serves pub/sub only (use a `duplicate()`). Subscriptions are restored by themselves after
   * a reconnection. Rejects with `VELOX_ERR_REDIS_UNAVAILABLE` while Redis is away.
   * @example
   * ```ts
   * await subscriber.subscribe('room:1', (message, channel) => app.uws.publish(channel, message));
   * ```
   */
  async subscribe(channel: string, listener: MessageListener): Promise<void> {
    if (typeof listener !== 'function') throw redisError(RedisErrorCodes.INVALID_OPTION, 'subscribe() takes a channel and a listener (message, channel) => …');
    if (!this.#driver.ready) throw this.#unavailable(this.#notReady());
    let listeners = this.#channels.get(channel);
    if (!listeners) this.#channels.set(channel, (listeners = new Map()));
    if (listeners.has(listener)) return;
    const wrapped = (message: Buffer, from: Buffer) => listener(message, from.toString());
    listeners.set(listener, wrapped);
    try {
      await this.#bounded(this.#driver.subscribe(channel, wrapped as never));
    } catch (err) {
      listeners.delete(listener);
      if (listeners.size === 0) this.#channels.delete(channel);
      this.#driver.unsubscribe(channel, wrapped as never).catch(() => {});
      throw this.#translate(err);
    }
  }

  /**
   * Removes a listener from a channel, or every listener when none is given; the channel is
   * unsubscribed in Redis when none is left.
   * @example
   * ```ts
   * await subscriber.unsubscribe('room:1', onMessage);
   * ```
   */
  async unsubscribe(channel: string, listener?: MessageListener): Promise<void> {
    const listeners = this.#channels.get(channel);
    if (!listeners) return;
    const removed = listener ? [listeners.get(listener)].filter((w) => w !== undefined) : [...listeners.values()];
    if (listener) listeners.delete(listener);
    else listeners.clear();
    if (listeners.size === 0) this.#channels.delete(channel);
    for (const wrapped of removed) {
      try {
        await this.#bounded(this.#driver.unsubscribe(channel, wrapped as never));
      } catch (err) {
        // Gone from our table either way; Redis drops the subscription when the connection closes.
        if (this.#driver.ready) throw this.#translate(err);
      }
    }
  }

  /**
   * Publishes a message (text or bytes) to a channel; resolves with the number of subscribers
   * that got it. Use the main connection, not a subscribing one.
   * @example
   * ```ts
   * await redis.publish('room:1', Buffer.from([1, 2, 3]));
   * ```
   */
  publish(channel: string, message: string | Buffer): Promise<number> {
    return this.#send(['PUBLISH', channel, message]) as Promise<number>;
  }

  #send(args: RedisArg[]): Promise<unknown> {
    if (!this.#driver.ready) return Promise.reject(this.#unavailable(this.#notReady()));
    return this.#driver.send(args, this.#commandTimeout).then(undefined, (err: unknown) => {
      throw this.#translate(err);
    });
  }

  /** A subscribe/unsubscribe promise, bounded by commandTimeout. */
  #bounded(promise: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#commandTimeout} ms`)), this.#commandTimeout);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  #translate(err: unknown): Error {
    if (err instanceof VeloxError) return err;
    if (isReplyError(err)) return redisError(RedisErrorCodes.COMMAND, `Redis answered an error: ${(err as Error).message}`, err);
    return this.#unavailable((err as Error)?.message ?? String(err), err);
  }

  #notReady(): string {
    if (this.#users === 0 && !this.#connecting) return 'not connected';
    return this.#everReady ? 'connection lost' : 'not reached yet, retrying';
  }

  #unavailable(reason: string, cause?: unknown): Error {
    return redisError(RedisErrorCodes.UNAVAILABLE, `Redis is unavailable (${this.#name}: ${reason})`, cause);
  }

  async #open(): Promise<void> {
    const driver = this.#driver;
    if (driver.ready) {
      this.#everReady = true;
      return;
    }
    this.#startedAt = Date.now();
    if (!this.#failFast) return this.#openInBackground();
    try {
      if (!this.#owned && driver.open) await this.#whenReady();
      else if (this.#owned) await driver.connect();
      else await Promise.race([driver.connect(), this.#whenReady()]);
      if (!driver.ready) await this.#whenReady();
    } catch (cause) {
      if (this.#owned) await driver.close(0);
      const where = this.#owned ? this.#where : 'the given client';
      throw redisError(
        RedisErrorCodes.CONNECT,
        `Could not connect to Redis at ${where} within ${this.#connectTimeout} ms (${this.#name}: ${(cause as Error)?.message ?? cause}); is it running?`,
        cause,
      );
    }
  }

  /**
   * Without failFast: waits for the first attempt only (its 'ready' or its error, at most
   * connectTimeout). If Redis was not there, the connection is down from now on, keeps trying
   * (node-redis, with our backoff that never gives up) and comes up by itself; the outage is
   * logged once, with the connection's duplicates.
   */
  async #openInBackground(): Promise<void> {
    const driver = this.#driver;
    const epoch = this.#epoch;
    let timer: NodeJS.Timeout | undefined;
    const failure = await new Promise<Error | undefined>((resolve) => {
      this.#firstAttempt = resolve;
      timer = setTimeout(() => resolve(new Error(`no answer within ${this.#connectTimeout} ms`)), this.#connectTimeout);
      // A client of the user's that is already open is reconnecting by itself: wait for it.
      if (this.#owned || !driver.open) driver.connect().catch((err: unknown) => resolve(err instanceof Error ? err : new Error(String(err))));
    });
    clearTimeout(timer);
    this.#firstAttempt = undefined;
    if (failure === undefined || driver.ready || epoch !== this.#epoch) return;
    this.#background = true;
    this.#goneDown(failure);
    this.#log(failure, true);
  }

  /** Resolves on the next 'ready', or rejects after connectTimeout (a client of the user's, with its own retries). */
  #whenReady(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#readyWaiters.delete(done);
        reject(new Error(`not ready within ${this.#connectTimeout} ms`));
      }, this.#connectTimeout);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#readyWaiters.add(done);
    });
  }

  #onReady(): void {
    this.#firstAttempt?.(undefined);
    this.#everReady = true;
    for (const waiter of this.#readyWaiters) waiter();
    this.#readyWaiters.clear();
    if (!this.#down) return;
    this.#down = false;
    const outage = this.#outage;
    outage.down.delete(this);
    this.#tell('back');
    // The family's outage is over once every one of its connections is back.
    if (outage.down.size === 0 && outage.logged) {
      const startup = outage.startup;
      outage.logged = false;
      outage.startup = false;
      outage.lastLog = 0;
      const logger = this.#logger;
      const line = startup ? `connected to Redis at ${this.#where}` : 'connected again';
      if (logger) (logger.info ?? logger.warn).call(logger, `[velox/redis] ${this.#name}: ${line}`);
    }
  }

  #onError(err: Error): void {
    // The start-up wait takes the first attempt's error.
    if (this.#firstAttempt) return this.#firstAttempt(err);
    // With failFast, connect() reports the failures before the first connection itself.
    if (!this.#everReady && !this.#background) return;
    this.#goneDown(err);
    this.#log(err, false);
  }

  /** Counts this connection as down in its family, and tells the watchers (once per outage). */
  #goneDown(cause: Error): void {
    if (this.#down) return;
    this.#down = true;
    this.#outage.down.add(this);
    this.#tell('lost', cause);
  }

  /**
   * Logs a connection error, one line per logInterval for the family (the others are counted).
   * The first line of an outage that began at start-up says Redis is unreachable.
   */
  #log(err: Error, startup: boolean): void {
    const logger = this.#logger;
    if (!logger) return;
    const outage = this.#outage;
    const now = Date.now();
    if (now - outage.lastLog < this.#logInterval) {
      outage.unlogged++;
      return;
    }
    const more = outage.unlogged > 0 ? ` (${outage.unlogged} more since the last message)` : '';
    const message = err?.message ?? String(err);
    if (!outage.logged) outage.startup = startup;
    outage.lastLog = now;
    outage.unlogged = 0;
    outage.logged = true;
    logger.warn(
      startup
        ? `[velox/redis] ${this.#name}: Redis at ${this.#where} is unreachable (${message}); retrying in the background${more}`
        : `[velox/redis] ${this.#name}: ${message}; reconnecting${more}`,
    );
  }

  /** A closed connection no longer counts as down in its family. */
  #leaveOutage(): void {
    this.#down = false;
    const outage = this.#outage;
    if (outage.down.delete(this) && outage.down.size === 0) {
      outage.logged = false;
      outage.startup = false;
      outage.lastLog = 0;
    }
  }

  #tell(event: 'lost' | 'back', cause?: Error): void {
    for (const watcher of this.#watchers) {
      try {
        if (event === 'lost') watcher.lost?.(cause!);
        else watcher.back?.();
      } catch (err) {
        this.#logger?.error(err);
      }
    }
  }
}

/** The constructor with its internal second parameter, for duplicate(). */
const Duplicate = RedisConnection as unknown as new (options: RedisOptions, origin: Origin) => RedisConnection;

function arg(value: RedisArg | number): RedisArg {
  return typeof value === 'number' ? String(value) : value;
}
