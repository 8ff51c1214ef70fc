/**
 * RedisConnection: one Redis connection that Velox packages share. It connects before the app
 * listens, fails fast while Redis is away, reconnects by itself, logs through the server's
 * logger without flooding it, and closes with the app.
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
  isReplyError,
  type NodeRedisClient,
  type RedisArg,
} from './driver.ts';
import { RedisErrorCodes, redisError } from './errors.ts';

/** Options of {@link RedisConnection}. */
export interface RedisOptions {
  /** Where Redis is: `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. Default: `redis://127.0.0.1:6379`. Ignored with `client`. */
  url?: string;
  /**
   * A node-redis client you made yourself (`createClient()` from `redis`). It stays yours: the
   * connection connects it if needed, but never closes it, and its own reconnection and
   * offline-queue settings apply (commands are still bounded by `commandTimeout`).
   */
  client?: NodeRedisClient;
  /** Milliseconds `connect()` (and so `listen()`) waits for Redis before failing with `VELOX_ERR_REDIS_CONNECT`. Default: 5000. */
  connectTimeout?: number;
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
 * - Connects in `connect()` / `attach(server)`: await it in a plugin and `listen()` waits for it;
 *   if Redis cannot be reached within `connectTimeout`, it rejects with `VELOX_ERR_REDIS_CONNECT`.
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
 * await app.register((server) => redis.attach(server)); // connected before listen(); closed by app.close()
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
  readonly #logInterval: number;
  readonly #name: string;
  #logger: Logger | undefined;
  #loggerChosen: boolean;
  #users = 0;
  #connecting: Promise<void> | undefined;
  #startedAt = 0;
  #everReady = false;
  #down = false;
  #lastLog = 0;
  #unlogged = 0;
  readonly #readyWaiters = new Set<() => void>();
  readonly #channels = new Map<string, Map<MessageListener, (message: Buffer, channel: Buffer) => void>>();

  constructor(options: RedisOptions = {}, from?: NodeRedisClient) {
    if (!options || typeof options !== 'object') {
      throw redisError(RedisErrorCodes.INVALID_OPTION, 'RedisConnection takes { url } or { client }, e.g. { url: "redis://127.0.0.1:6379" }');
    }
    if (options.client !== undefined && !isNodeRedisClient(options.client)) {
      throw redisError(RedisErrorCodes.INVALID_OPTION, 'client must be a node-redis client: createClient() from the "redis" package');
    }
    if (options.url !== undefined && (typeof options.url !== 'string' || !/^rediss?:\/\//.test(options.url))) {
      throw redisError(RedisErrorCodes.INVALID_OPTION, `url must look like redis://host:6379 (or rediss:// for TLS); got ${String(options.url)}`);
    }
    this.#options = options;
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
        // Before the first success, connect() is waiting: give up once the next try would end past its deadline.
        if (!this.#everReady && Date.now() + delay - this.#startedAt >= this.#connectTimeout) {
          return new Error(`no connection within ${this.#connectTimeout} ms`);
        }
        return delay;
      },
    };
    const events: DriverEvents = { error: (err) => this.#onError(err), ready: () => this.#onReady() };
    if (from) {
      this.#owned = true;
      this.#driver = duplicateDriver(from, this.#driverOptions, events);
    } else if (options.client) {
      this.#owned = false;
      this.#driver = adoptDriver(options.client, events);
    } else {
      this.#owned = true;
      this.#driver = createDriver(this.#driverOptions, events);
    }
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
   * Connects (once; later calls wait for the same connection and count one more user). Rejects
   * with `VELOX_ERR_REDIS_CONNECT` when Redis cannot be reached within `connectTimeout`.
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
   * A new connection to the same Redis with the same settings, owned by this package (closed by
   * its `close()`), for subscriptions: a connection that subscribes serves pub/sub only.
   * Connect it with `connect()` or `attach(server)`.
   * @example
   * ```ts
   * const subscriber = redis.duplicate();
   * await subscriber.attach(app);
   * await subscriber.subscribe('chat', (message) => console.log(message.toString()));
   * ```
   */
  duplicate(): RedisConnection {
    const options: RedisOptions = { ...this.#options, client: undefined };
    if (this.#loggerChosen) options.logger = this.#logger ?? false;
    return new RedisConnection(options, clientOf(this.#driver));
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
    if (!this.#driver.ready) throw this.#unavailable('not connected');
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
    if (!this.#driver.ready) return Promise.reject(this.#unavailable(this.#users === 0 && !this.#connecting ? 'not connected' : 'connection lost'));
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
    try {
      if (!this.#owned && driver.open) await this.#whenReady();
      else if (this.#owned) await driver.connect();
      else await Promise.race([driver.connect(), this.#whenReady()]);
      if (!driver.ready) await this.#whenReady();
    } catch (cause) {
      if (this.#owned) await driver.close(0);
      const where = this.#owned ? (this.#options.url ?? DEFAULT_URL).replace(/\/\/[^@/]*@/, '//***@') : 'the given client';
      throw redisError(
        RedisErrorCodes.CONNECT,
        `Could not connect to Redis at ${where} within ${this.#connectTimeout} ms (${(cause as Error)?.message ?? cause}); is it running?`,
        cause,
      );
    }
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
    this.#everReady = true;
    for (const waiter of this.#readyWaiters) waiter();
    this.#readyWaiters.clear();
    if (this.#down) {
      this.#down = false;
      const logger = this.#logger;
      if (logger) (logger.info ?? logger.warn).call(logger, `[velox/redis] ${this.#name}: connected again`);
      this.#lastLog = 0;
    }
  }

  #onError(err: Error): void {
    // Before the first connection, connect() reports the failure itself.
    if (!this.#everReady) return;
    this.#down = true;
    const logger = this.#logger;
    if (!logger) return;
    const now = Date.now();
    if (now - this.#lastLog < this.#logInterval) {
      this.#unlogged++;
      return;
    }
    const more = this.#unlogged > 0 ? ` (${this.#unlogged} more since the last message)` : '';
    this.#lastLog = now;
    this.#unlogged = 0;
    logger.warn(`[velox/redis] ${this.#name}: ${err?.message ?? err}; reconnecting${more}`);
  }
}

function arg(value: RedisArg | number): RedisArg {
  return typeof value === 'number' ? String(value) : value;
}
