/**
 * `redisPubSub`: fans publishes out to every process sharing a Redis. Its two Redis connections
 * are `@velox/redis`'s: one publishes, a `duplicate()` of it subscribes (a subscribed Redis
 * connection takes no other command).
 *
 * - Out: core's `onPublish` hook sees each publish of this process (`app.publish`,
 *   `socket.publish`) after local delivery; it goes to Redis channel `prefix + topic` with a
 *   10-byte header (format, text/binary flag, this process's random 8-byte id).
 * - In: this process subscribes in Redis only to topics its own sockets are subscribed to (the
 *   hub follows uWS's `subscription` event), and delivers what arrives with
 *   `publish(…, { local: true })`, which does not run `onPublish` again: nothing echoes back.
 *   Messages carrying this process's id are skipped (its sockets already had them), so a
 *   sender never receives its own publish.
 * - Order: one connection publishes, in call order; Redis keeps that order per channel.
 * - Redis down: local delivery goes on; publishes to other processes are dropped (counted, not
 *   queued: @velox/redis has no offline queue); @velox/redis logs the outage and reconnects, and
 *   node-redis resubscribes; when it is back, the subscriptions are reconciled with the current
 *   local topics and the number of publishes that stayed local is logged.
 * - Redis not up at start-up: the same as down (unless `failFast`): the connections keep trying in
 *   the background, and their `back` brings the subscriptions and the report.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { Plugin, Server, WebSocketMessage } from '@velox/core';
import type { RedisClient, RedisConnection, SharedRedisOptions } from '@velox/redis';
import { WsErrorCodes, wsError } from './errors.ts';
import { hubOf } from './hub.ts';

/**
 * Options of {@link redisPubSub}: where Redis is (`url`, `client` or `connection`, one of them),
 * the channel prefix, and the settings of the connections it makes, which are
 * `@velox/redis`'s (`commandTimeout`, `reconnectDelay`, `logger`, `logInterval`, `name`).
 *
 * @example
 * ```ts
 * const options: RedisPubSubOptions = { url: process.env.REDIS_URL, prefix: 'shop:ws:', connectTimeout: 5000 };
 * await app.register(redisPubSub, options);
 * ```
 */
export interface RedisPubSubOptions extends SharedRedisOptions {
  /** A Redis URL, `redis[s]://[[user][:password]@]host[:port][/db]`: redisPubSub makes its two connections to it. */
  url?: string;
  /** A node-redis client of yours (`createClient()` from `redis`): it publishes (connected if it is not), a duplicate subscribes; it is never closed. */
  client?: RedisClient;
  /** A `RedisConnection` from `@velox/redis` to share (with a `RedisStore` of @velox/session, say): it publishes, a duplicate subscribes; `app.close()` gives up this plugin's use of it. */
  connection?: RedisConnection;
  /** Prefix of the Redis channel names (`prefix + topic`). Default: `'velox:ws:'`. */
  prefix?: string;
  /**
   * Milliseconds one connection attempt may take, and so the longest the start waits for Redis:
   * for the first attempt, or with `failFast` for Redis before `listen()` rejects with
   * `VELOX_ERR_REDIS_CONNECT`. Default: 10000.
   */
  connectTimeout?: number;
  /**
   * `true`: `register` and `listen()` reject with `VELOX_ERR_REDIS_CONNECT` when Redis cannot be
   * reached within `connectTimeout`. `false`: the app starts anyway; until Redis is up, publishes
   * stay in this process (local delivery works), then delivery across processes works by itself.
   * Default: false.
   */
  failFast?: boolean;
}

const FORMAT = 1;
const HEADER = 10;
const registered = new WeakSet<Server>();

/**
 * A plugin that makes `app.publish` and `socket.publish` reach the subscribers of every process
 * sharing a Redis, in publish order per topic, each once, never back to the sender. Register it
 * before `listen()`; its connections are open when `listen()` resolves if Redis is up (if not,
 * the app starts anyway, publishes stay local until it is, unless `failFast`), and closed by
 * `app.close()`.
 *
 * @example
 * ```ts
 * import { redisPubSub } from '@velox/ws';
 * await app.register(redisPubSub, { url: 'redis://127.0.0.1:6379', prefix: 'chat:ws:' });
 * app.publish('room:lobby', 'hello, every process');
 * ```
 */
export const redisPubSub: Plugin<RedisPubSubOptions> = async (server, options = {}) => {
  const { prefix, redis } = check(server, options);
  registered.add(server);
  let publisher: RedisConnection;
  let subscriber: RedisConnection;
  try {
    // Loaded here, so that an app without redisPubSub never loads the Redis client.
    const { RedisConnection } = await import('@velox/redis');
    publisher = RedisConnection.from(redis, { name: 'redisPubSub', connectTimeout: 10_000 });
    subscriber = publisher.duplicate({ name: redis.name ?? 'redisPubSub' });
    await connectBoth(server, publisher, subscriber);
  } catch (err) {
    registered.delete(server);
    throw err;
  }

  const logger = server.logger;
  const id = randomBytes(8);
  const hub = hubOf(server);
  let closed = false;
  let dropped = 0;
  let strays = 0;
  /** Topics whose Redis subscription may be out of step with the local subscribers. */
  const changed = new Set<string>();
  let syncing = false;
  let again = false;

  const deliver = (message: Buffer, channel: string) => {
    if (closed) return;
    if (message.length < HEADER || message[0] !== FORMAT) {
      if (strays++ === 0) logger?.warn(`redisPubSub: ignored a message on ${channel} that no Velox process sent`);
      return;
    }
    if (id.equals(message.subarray(2, HEADER))) return;
    server.publish(channel.slice(prefix.length), message.subarray(HEADER), (message[1]! & 1) === 1, { local: true });
  };

  // Subscribing a topic twice, or unsubscribing one that is not, sends nothing (@velox/redis
  // keeps the table), so a sync only has to say what each changed topic should be now.
  const sync = async (): Promise<void> => {
    if (syncing) {
      again = true;
      return;
    }
    syncing = true;
    try {
      do {
        again = false;
        if (closed || !subscriber.ready || changed.size === 0) break;
        const topics = [...changed];
        changed.clear();
        const results = await Promise.allSettled(
          topics.map((topic) =>
            hub.topics.has(topic) ? subscriber.subscribe(prefix + topic, deliver) : subscriber.unsubscribe(prefix + topic, deliver),
          ),
        );
        let failure: unknown;
        results.forEach((result, i) => {
          if (result.status === 'fulfilled') return;
          // Tried again at the next change, or when the connection is back.
          changed.add(topics[i]!);
          failure ??= result.reason;
        });
        // A lost connection is @velox/redis's to log; a refusal while connected is ours.
        if (failure !== undefined && subscriber.ready && !closed) logger?.error(failure);
      } while (again && !closed);
    } finally {
      syncing = false;
    }
  };

  let scheduled = false;
  const unwatchHub = hub.watch((topic) => {
    changed.add(topic);
    if (scheduled) return;
    // One sync for all the changes of this tick (a socket closing leaves all its topics at once).
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      void sync();
    });
  });
  const unwatchSubscriber = subscriber.watch({
    back() {
      // node-redis resubscribed what it had; catch up with what changed meanwhile.
      for (const topic of hub.topics) changed.add(topic);
      void sync();
    },
  });

  /** Says how many publishes stayed in this process since the last one that crossed. */
  const report = () => {
    if (dropped === 0 || closed) return;
    const lost = dropped;
    dropped = 0;
    logger?.warn(`redisPubSub: ${lost} publish${lost === 1 ? '' : 'es'} could not be sent to Redis and reached this process only`);
  };
  const unwatchPublisher = publisher.watch({ back: report });
  const published = () => {
    if (dropped > 0) report();
  };
  const failed = (err: unknown) => {
    // While the connection is down, @velox/redis logs the outage; a publish refused while it is
    // up (Redis answered an error, or too late) is logged here, the first of a run.
    if (dropped++ === 0 && publisher.ready && !closed) logger?.error(err);
  };

  server.addHook('onPublish', (topic, message, isBinary) => {
    if (closed) return;
    if (!publisher.ready) {
      dropped++;
      return;
    }
    publisher.publish(prefix + topic, envelope(id, message, isBinary)).then(published, failed);
  });

  server.addHook('onClose', async () => {
    closed = true;
    unwatchHub();
    unwatchSubscriber();
    unwatchPublisher();
    registered.delete(server);
    await Promise.all([subscriber.close(), publisher.close()]);
  });
};

/**
 * Connects both before listen() resolves (without failFast, a connection that Redis did not
 * answer resolves down and keeps trying); with failFast, if either cannot, gives up the other and
 * rejects (VELOX_ERR_REDIS_CONNECT).
 */
async function connectBoth(server: Server, publisher: RedisConnection, subscriber: RedisConnection): Promise<void> {
  const both = [publisher, subscriber];
  const results = await Promise.allSettled(both.map((connection) => connection.connect({ logger: server.logger })));
  const failure = results.find((result) => result.status === 'rejected');
  if (failure === undefined) return;
  await Promise.all(both.map((connection, i) => (results[i]!.status === 'fulfilled' ? connection.close() : undefined)));
  throw failure.reason;
}

/** The bytes sent to Redis: format, flags, sender id, then the message (copied: it may be reused after the call). */
function envelope(id: Buffer, message: WebSocketMessage, isBinary: boolean): Buffer {
  let out: Buffer;
  if (typeof message === 'string') {
    out = Buffer.allocUnsafe(HEADER + Buffer.byteLength(message));
    out.write(message, HEADER);
  } else {
    const bytes = ArrayBuffer.isView(message)
      ? new Uint8Array(message.buffer, message.byteOffset, message.byteLength)
      : new Uint8Array(message);
    out = Buffer.allocUnsafe(HEADER + bytes.byteLength);
    out.set(bytes, HEADER);
  }
  out[0] = FORMAT;
  out[1] = isBinary ? 1 : 0;
  id.copy(out, 2);
  return out;
}

function check(server: Server, options: RedisPubSubOptions): { prefix: string; redis: SharedRedisOptions } {
  const invalid = (message: string) => wsError(WsErrorCodes.INVALID_OPTION, message);
  if (!options || typeof options !== 'object') throw invalid('redisPubSub takes { url }, { client } or { connection }');
  if (server.listening) throw invalid('Register redisPubSub before listen(): it must see every subscription from the first socket on');
  if (registered.has(server)) throw invalid('redisPubSub is already registered on this server');
  const { prefix = 'velox:ws:', ...redis } = options;
  // The rest of the checks (a valid url or client, not both, a connection alone) are @velox/redis's.
  if (redis.url === undefined && redis.client === undefined && redis.connection === undefined) {
    throw invalid(
      "redisPubSub needs to know where Redis is: { url: 'redis://host:6379' }, { client } (a node-redis client) or { connection } (a RedisConnection from @velox/redis)",
    );
  }
  if (typeof prefix !== 'string') throw invalid(`redisPubSub prefix must be a string, got ${typeof prefix}`);
  return { prefix, redis };
}
