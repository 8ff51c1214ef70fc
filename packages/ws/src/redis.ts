/**
 * The only file of this package that knows the Redis client (node-redis, `redis` on npm). The
 * rest calls the small {@link RedisLink} interface, so the client can change, or move to a
 * shared `@velox/redis`, by editing this file alone.
 *
 * Two connections: one publishes, one subscribes (a subscribed Redis connection takes no other
 * commands). Both run without node-redis's offline queue, so while Redis is down a publish fails
 * at once instead of piling up in memory and arriving late; node-redis reconnects by itself and
 * resubscribes the channels it had, and `ready` fires each time it is back.
 */
import type { Buffer } from 'node:buffer';
import { createClient } from 'redis';
import { WsErrorCodes, wsError } from './errors.ts';

type Client = ReturnType<typeof createClient>;

/** Where to connect: a URL, or an existing node-redis client to duplicate (it is left as it is). */
export interface RedisSource {
  url?: string | undefined;
  client?: unknown;
}

/** What the connections report. */
export interface RedisEvents {
  /** A message on a subscribed channel (both are Buffers, valid after the call). */
  message(channel: Buffer, message: Buffer): void;
  /** A connection error; node-redis keeps reconnecting. */
  error(err: Error): void;
  /** Both connections are ready: after connecting, and again after each reconnection. */
  ready(): void;
}

/** The Redis side of `redisPubSub`. */
export interface RedisLink {
  /** Whether both connections are up. */
  readonly ready: boolean;
  publish(channel: string, message: Uint8Array): Promise<unknown>;
  subscribe(channels: string[]): Promise<void>;
  unsubscribe(channels: string[]): Promise<void>;
  /** Closes both connections (an existing client given as the source stays open). */
  close(): Promise<void>;
}

/**
 * Opens the two connections; resolves when both are ready, rejects with
 * `VELOX_ERR_WS_REDIS_CONNECT` after `timeout` ms.
 */
export async function openRedis(source: RedisSource, events: RedisEvents, timeout: number): Promise<RedisLink> {
  let publisher: Client;
  let subscriber: Client;
  if (source.client !== undefined) {
    const base = source.client as Client;
    publisher = base.duplicate({ disableOfflineQueue: true }) as Client;
    subscriber = base.duplicate({ disableOfflineQueue: true }) as Client;
  } else {
    publisher = createClient({ url: source.url, disableOfflineQueue: true });
    subscriber = publisher.duplicate();
  }
  const where = source.url ?? 'the given client';
  for (const client of [publisher, subscriber]) client.on('error', (err: Error) => events.error(err));
  const onReady = () => {
    if (publisher.isReady && subscriber.isReady) events.ready();
  };
  const listener = (message: Buffer, channel: Buffer) => events.message(channel, message);
  let timer: NodeJS.Timeout | undefined;
  const destroy = () => {
    for (const client of [publisher, subscriber]) if (client.isOpen) client.destroy();
  };
  try {
    await Promise.race([
      Promise.all([publisher.connect(), subscriber.connect()]),
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no connection within ${timeout} ms`)), timeout);
      }),
    ]);
  } catch (cause) {
    destroy();
    throw wsError(
      WsErrorCodes.REDIS_CONNECT,
      `redisPubSub could not connect to Redis at ${where}: ${(cause as Error).message}. Check the URL and that Redis runs, or raise connectTimeout`,
      cause,
    );
  } finally {
    clearTimeout(timer);
  }
  publisher.on('ready', onReady);
  subscriber.on('ready', onReady);

  return {
    get ready() {
      return publisher.isReady && subscriber.isReady;
    },
    publish(channel, message) {
      return publisher.publish(channel, message as Buffer);
    },
    subscribe(channels) {
      return subscriber.subscribe(channels, listener, true);
    },
    unsubscribe(channels) {
      return subscriber.unsubscribe(channels, listener, true);
    },
    async close() {
      publisher.removeAllListeners('ready');
      subscriber.removeAllListeners('ready');
      await Promise.all(
        [publisher, subscriber].map(async (client) => {
          if (!client.isOpen) return;
          if (!client.isReady) return client.destroy();
          try {
            await client.close();
          } catch {
            client.destroy();
          }
        }),
      );
    },
  };
}
