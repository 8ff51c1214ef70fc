/**
 * The one file that knows node-redis. The rest of the package talks to Redis through the small
 * {@link Driver} interface below, so that swapping the client library touches this file only.
 */
import { createClient, type RedisClientType } from 'redis';

/** A node-redis client (`createClient()` from the `redis` package), as users may pass one in. */
export type NodeRedisClient = RedisClientType<any, any, any, any, any>;

/** A command argument: text, or bytes for binary payloads. */
export type RedisArg = string | Buffer;

/** What the driver reports about its connection. */
export interface DriverEvents {
  /** The connection failed or broke (node-redis reconnects by itself, unless it gave up). */
  error(err: Error): void;
  /** The connection is (again) ready for commands. */
  ready(): void;
}

/** Settings of a connection the driver creates. */
export interface DriverOptions {
  url: string | undefined;
  /** Milliseconds one connection attempt may take. */
  connectTimeout: number;
  /** Milliseconds to wait before reconnection attempt `retries` (0-based), or an Error to give up. */
  retryDelay(retries: number, cause: Error): number | Error;
}

/** The few things the package asks of a Redis client. */
export interface Driver {
  /** Connected, and commands can be sent. */
  readonly ready: boolean;
  /** Between connect() and close() (connected or reconnecting). */
  readonly open: boolean;
  connect(): Promise<void>;
  /** Sends one command; rejects after `timeoutMs` without an answer. */
  send(args: readonly RedisArg[], timeoutMs: number): Promise<unknown>;
  /** Subscribes (this connection then serves pub/sub only); messages arrive as Buffers. */
  subscribe(channel: string, listener: (message: Buffer, channel: string) => void): Promise<void>;
  unsubscribe(channel: string, listener?: (message: Buffer, channel: string) => void): Promise<void>;
  /** Closes gracefully (pending commands answered) within `timeoutMs`, then by force. */
  close(timeoutMs: number): Promise<void>;
  /** Stops reporting events (for a client that stays its owner's). */
  detach(): void;
}

/** Whether Redis itself answered with an error (as opposed to a connection problem). */
export function isReplyError(err: unknown): boolean {
  // node-redis's ErrorReply and its SimpleError/BlobError subclasses.
  let proto = err && typeof err === 'object' ? Object.getPrototypeOf(err) : null;
  while (proto && proto !== Error.prototype) {
    if (proto.constructor?.name === 'ErrorReply') return true;
    proto = Object.getPrototypeOf(proto);
  }
  return false;
}

/** Whether `value` looks like a node-redis client. */
export function isNodeRedisClient(value: unknown): value is NodeRedisClient {
  const client = value as Partial<NodeRedisClient> | null;
  return !!client && typeof client.sendCommand === 'function' && typeof client.duplicate === 'function' && typeof client.on === 'function';
}

/** The URL a node-redis client connects to, when it was given one. */
export function urlOf(client: NodeRedisClient): string | undefined {
  const url = client.options?.url;
  return typeof url === 'string' ? url : undefined;
}

/** A connection the driver creates and owns: no offline queue, our reconnect strategy. */
export function createDriver(options: DriverOptions, events: DriverEvents): Driver {
  const client = createClient({
    url: options.url,
    RESP: 2,
    // A command sent while Redis is away rejects at once instead of waiting in a queue.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: options.connectTimeout,
      reconnectStrategy: (retries, cause) => options.retryDelay(retries, cause),
    },
  }) as unknown as NodeRedisClient;
  return wrap(client, events, true);
}

/** A connection the user created: used as it is, never closed by us. */
export function adoptDriver(client: NodeRedisClient, events: DriverEvents): Driver {
  return wrap(client, events, false);
}

/** A second connection like `driver`'s (for pub/sub), which the driver owns. */
export function duplicateDriver(client: NodeRedisClient, options: DriverOptions, events: DriverEvents): Driver {
  const copy = client.duplicate({
    disableOfflineQueue: true,
    socket: {
      ...(client.options?.socket ?? {}),
      connectTimeout: options.connectTimeout,
      reconnectStrategy: (retries: number, cause: Error) => options.retryDelay(retries, cause),
    },
  }) as unknown as NodeRedisClient;
  return wrap(copy, events, true);
}

/** The underlying client of a driver, for duplicateDriver(). */
const clients = new WeakMap<Driver, NodeRedisClient>();

/** The node-redis client behind a driver. */
export function clientOf(driver: Driver): NodeRedisClient {
  return clients.get(driver)!;
}

function wrap(client: NodeRedisClient, events: DriverEvents, owned: boolean): Driver {
  let attached = true;
  const onError = (err: Error) => {
    if (attached) events.error(err);
  };
  const onReady = () => {
    if (attached) events.ready();
  };
  client.on('error', onError);
  client.on('ready', onReady);
  const detach = () => {
    attached = false;
    client.off('ready', onReady);
    // A client we own keeps a silent 'error' listener: one emitted while it winds down would
    // otherwise be thrown by EventEmitter and take the process down. A client the user owns
    // goes back to the listeners they gave it.
    if (!owned) client.off('error', onError);
  };
  const driver: Driver = {
    get ready() {
      return client.isReady;
    },
    get open() {
      return client.isOpen;
    },
    async connect() {
      if (client.isOpen) return;
      await client.connect();
    },
    send(args, timeoutMs) {
      return client.sendCommand(args as RedisArg[], { timeout: timeoutMs });
    },
    subscribe(channel, listener) {
      return client.subscribe(channel, listener as never, true);
    },
    unsubscribe(channel, listener) {
      return client.unsubscribe(channel, listener as never, true);
    },
    async close(timeoutMs) {
      if (!owned) return detach();
      if (client.isOpen) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        });
        await Promise.race([client.close().catch(() => {}), late]);
        clearTimeout(timer);
      }
      // Whatever is left (a socket still draining, a reconnection loop) ends now.
      client.destroy();
      detach();
    },
    detach,
  };
  clients.set(driver, client);
  return driver;
}
