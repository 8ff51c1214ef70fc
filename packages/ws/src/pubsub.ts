/**
 * `redisPubSub`: fans publishes out to every process sharing a Redis.
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
 *   queued); the loss and the recovery are logged once each; node-redis reconnects and
 *   resubscribes, and the subscriptions are reconciled with the current local topics.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { Logger, Plugin, Server, WebSocketMessage } from '@velox/core';
import { WsErrorCodes, wsError } from './errors.ts';
import { hubOf } from './hub.ts';
import type { RedisLink } from './redis.ts';

/**
 * Options of {@link redisPubSub}: `url` or `client`, not both.
 *
 * @example
 * ```ts
 * const options: RedisPubSubOptions = { url: process.env.REDIS_URL, prefix: 'shop:ws:', connectTimeout: 5000 };
 * await app.register(redisPubSub, options);
 * ```
 */
export interface RedisPubSubOptions {
  /** A Redis URL, `redis[s]://[[user][:password]@]host[:port][/db]`. */
  url?: string;
  /** An existing node-redis client (from `createClient()` of `redis`): it is duplicated, and left open on close. */
  client?: { duplicate(...args: any[]): unknown };
  /** Prefix of the Redis channel names (`prefix + topic`). Default: `'velox:ws:'`. */
  prefix?: string;
  /** Milliseconds to wait for Redis at start-up before `listen()` rejects. Default: 10000. */
  connectTimeout?: number;
}

const FORMAT = 1;
const HEADER = 10;
const registered = new WeakSet<Server>();

/**
 * A plugin that makes `app.publish` and `socket.publish` reach the subscribers of every process
 * sharing a Redis, in publish order per topic, each once, never back to the sender. Register it
 * before `listen()`; its connections are open when `listen()` resolves and closed by `app.close()`.
 *
 * @example
 * ```ts
 * import { redisPubSub } from '@velox/ws';
 * await app.register(redisPubSub, { url: 'redis://127.0.0.1:6379', prefix: 'chat:ws:' });
 * app.publish('room:lobby', 'hello, every process');
 * ```
 */
export const redisPubSub: Plugin<RedisPubSubOptions> = async (server, options = {}) => {
  const settings = check(server, options);
  registered.add(server);
  const { prefix } = settings;
  const logger: Logger | undefined = server.logger;
  const id = randomBytes(8);
  const hub = hubOf(server);

  let link: RedisLink | undefined;
  let closed = false;
  let healthy = true;
  let dropped = 0;
  let strays = 0;
  /** Topics subscribed in Redis (confirmed). */
  const subscribed = new Set<string>();
  /** Topics whose Redis subscription may be out of step with the local subscribers. */
  const changed = new Set<string>();
  let syncing = false;
  let again = false;

  const down = (err: Error) => {
    // Before the first connection, a failure is the start-up error (REDIS_CONNECT) instead.
    if (closed || !healthy || link === undefined) return;
    healthy = false;
    logger?.error(
      wsError(
        WsErrorCodes.REDIS_CONNECT,
        `redisPubSub lost Redis (${err.message}): publishes reach this process only until it is back`,
        err,
      ),
    );
  };

  const sync = async (): Promise<void> => {
    if (syncing) {
      again = true;
      return;
    }
    syncing = true;
    try {
      do {
        again = false;
        if (closed || !link?.ready || changed.size === 0) break;
        const add: string[] = [];
        const remove: string[] = [];
        for (const topic of changed) {
          const wanted = hub.topics.has(topic);
          if (wanted && !subscribed.has(topic)) add.push(topic);
          else if (!wanted && subscribed.has(topic)) remove.push(topic);
        }
        changed.clear();
        try {
          if (add.length > 0) {
            await link.subscribe(add.map((topic) => prefix + topic));
            for (const topic of add) subscribed.add(topic);
          }
          if (remove.length > 0) {
            await link.unsubscribe(remove.map((topic) => prefix + topic));
            for (const topic of remove) subscribed.delete(topic);
          }
        } catch (err) {
          // Redis went away meanwhile: these are retried when it is back.
          for (const topic of [...add, ...remove]) changed.add(topic);
          down(err as Error);
          break;
        }
      } while (again);
    } finally {
      syncing = false;
    }
  };

  const deliver = (channel: Buffer, message: Buffer) => {
    if (closed) return;
    if (message.length < HEADER || message[0] !== FORMAT) {
      if (strays++ === 0) logger?.warn(`redisPubSub: ignored a message on ${channel.toString()} that no Velox process sent`);
      return;
    }
    if (id.equals(message.subarray(2, HEADER))) return;
    const topic = channel.toString().slice(prefix.length);
    server.publish(topic, message.subarray(HEADER), (message[1]! & 1) === 1, { local: true });
  };

  // Loaded here, so that an app without redisPubSub never loads the Redis client.
  const { openRedis } = await import('./redis.ts');
  link = await openRedis(
    { url: settings.url, client: settings.client },
    {
      message: deliver,
      error: down,
      ready: () => {
        if (closed) return;
        if (!healthy) {
          healthy = true;
          const lost = dropped;
          dropped = 0;
          (logger?.info ?? logger?.warn)?.call(
            logger,
            `redisPubSub: Redis is back; ${lost} publish${lost === 1 ? '' : 'es'} made meanwhile reached this process only`,
          );
        }
        // node-redis resubscribed what it had; catch up with what changed meanwhile.
        for (const topic of hub.topics) changed.add(topic);
        for (const topic of subscribed) changed.add(topic);
        void sync();
      },
    },
    settings.connectTimeout,
  );

  let scheduled = false;
  const unwatch = hub.watch((topic) => {
    changed.add(topic);
    if (scheduled) return;
    // One sync for all the changes of this tick (a socket closing leaves all its topics at once).
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      void sync();
    });
  });

  server.addHook('onPublish', (topic, message, isBinary) => {
    if (closed) return;
    if (!link!.ready) {
      dropped++;
      return;
    }
    link!.publish(prefix + topic, envelope(id, message, isBinary)).catch((err: Error) => {
      dropped++;
      down(err);
    });
  });

  server.addHook('onClose', async () => {
    closed = true;
    unwatch();
    registered.delete(server);
    await link!.close();
  });
};

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

interface Settings {
  url: string | undefined;
  client: unknown;
  prefix: string;
  connectTimeout: number;
}

function check(server: Server, options: RedisPubSubOptions): Settings {
  const invalid = (message: string) => wsError(WsErrorCodes.INVALID_OPTION, message);
  if (!options || typeof options !== 'object') throw invalid('redisPubSub takes { url } or { client }');
  if (server.listening) throw invalid('Register redisPubSub before listen(): it must see every subscription from the first socket on');
  if (registered.has(server)) throw invalid('redisPubSub is already registered on this server');
  const { url, client } = options;
  if ((url === undefined) === (client === undefined)) {
    throw invalid("redisPubSub takes either { url: 'redis://host:6379' } or { client } (a node-redis client), not both or neither");
  }
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) {
    throw invalid(`redisPubSub url must be a redis:// or rediss:// URL, got ${JSON.stringify(url)}`);
  }
  if (client !== undefined && typeof (client as { duplicate?: unknown } | null)?.duplicate !== 'function') {
    throw invalid('redisPubSub client must be a node-redis client (createClient() from "redis")');
  }
  const prefix = options.prefix ?? 'velox:ws:';
  if (typeof prefix !== 'string') throw invalid(`redisPubSub prefix must be a string, got ${typeof prefix}`);
  const connectTimeout = options.connectTimeout ?? 10_000;
  if (!(Number.isInteger(connectTimeout) && connectTimeout > 0)) {
    throw invalid(`redisPubSub connectTimeout is a whole number of milliseconds above 0; got ${options.connectTimeout}`);
  }
  return { url, client, prefix, connectTimeout };
}
