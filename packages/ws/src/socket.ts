/**
 * The socket handlers get: uWS's WebSocket behind a wrapper that knows when it closed. uWS throws
 * ("Invalid access of closed uWS.WebSocket") on any call to a socket after its close event, and
 * a timer or a promise that outlives the socket makes that an uncaught exception; here every
 * method of a closed socket is a no-op instead, and `send` reports `'dropped'`.
 */
import { Buffer } from 'node:buffer';
import type { Logger, PublishOptions, Server, WebSocketMessage } from '@velox/core';
import { WsErrorCodes, wsError } from './errors.ts';

/** uWS's socket, as core's types name it. */
export type RawSocket = NonNullable<PublishOptions['exclude']>;

/**
 * What `send` did with a message:
 * - `'sent'`: handed to the network;
 * - `'queued'`: buffered under backpressure, it goes out as the client reads (`drain` fires when the buffer empties);
 * - `'dropped'`: not sent: the socket is closed, or over `maxBackpressure`.
 *
 * @example
 * ```ts
 * const status: SendStatus = socket.send(update);
 * if (status === 'dropped') metrics.count('ws.dropped');
 * ```
 */
export type SendStatus = 'sent' | 'queued' | 'dropped';

/** @internal What a socket needs from its route. */
export interface RouteState {
  server: Server | undefined;
  /** Whether messages are sent compressed (the route has `compression` on). */
  compress: boolean;
}

// What websocket.ts calls on a socket, out of reach of application code.
/** @internal uWS opened the connection. */
export const kOpen: unique symbol = Symbol('velox.ws.open');
/** @internal The connection is closing. */
export const kClosing: unique symbol = Symbol('velox.ws.closing');
/** @internal The connection closed. */
export const kClosed: unique symbol = Symbol('velox.ws.closed');
/** @internal A message went over the size limit. */
export const kTooBig: unique symbol = Symbol('velox.ws.tooBig');
/** @internal A handler failed. */
export const kFail: unique symbol = Symbol('velox.ws.fail');

const enum State {
  Pending = 0,
  Open = 1,
  /** Inside the close handler: uWS's socket is still valid, but closed to sends. */
  Closing = 2,
  Closed = 3,
}

/** uWS's send() results, by number. */
const STATUS: readonly SendStatus[] = ['queued', 'sent', 'dropped'];

/**
 * A WebSocket, as `websocket()` handlers see it. Safe to keep after it closed: every method of
 * a closed socket does nothing (`send` returns `'dropped'`, `publish` 0), so timers and promises
 * that outlive the connection cannot crash the process.
 *
 * @example
 * ```ts
 * websocket({
 *   upgrade: (req) => ({ user: req.get('x-user') ?? 'anonymous' }),
 *   open(socket) {
 *     socket.subscribe('lobby');
 *     socket.json({ hello: socket.data.user, from: socket.remoteAddress });
 *   },
 *   message(socket, message, isBinary) {
 *     if (socket.send(message, isBinary) === 'dropped') socket.close(1013, 'slow down');
 *   },
 * });
 * ```
 */
export class Socket<Data = undefined, Params extends Record<string, string> = Record<string, string>> {
  /** What the route's `upgrade` returned. */
  readonly data: Data;
  /** The route's parameters, decoded (`/chat/:room` gives `{ room }`); typed from the route's pattern. */
  readonly params: Params;
  /** The client's address, as `req.ip` gave it on the upgrade (through trusted proxies, see core's `trustProxy`). */
  readonly remoteAddress: string;

  #raw: RawSocket | null = null;
  #state = State.Pending;
  #route: RouteState;

  /** @internal Made by the route's upgrade. */
  constructor(route: RouteState, data: Data, params: Params, remoteAddress: string) {
    this.#route = route;
    this.data = data;
    this.params = params;
    this.remoteAddress = remoteAddress;
  }

  /** True once the connection closed (also inside the `close` handler). */
  get closed(): boolean {
    return this.#state !== State.Open;
  }

  /** Bytes waiting to go out under backpressure; 0 once closed. */
  get bufferedAmount(): number {
    return this.#state === State.Open ? this.#raw!.getBufferedAmount() : 0;
  }

  /** The topics this socket is subscribed to; empty once closed. */
  get topics(): string[] {
    return this.#state === State.Open ? this.#raw!.getTopics() : [];
  }

  /**
   * Sends a message: a string goes as text, bytes (a Buffer, any typed array, an ArrayBuffer)
   * as binary, unless `isBinary` says otherwise. Returns what happened to it (see {@link SendStatus}).
   * @example
   * ```ts
   * const status = socket.send('hello'); // 'sent', 'queued' or 'dropped'
   * socket.send(new Uint8Array([1, 2, 3]));
   * ```
   */
  send(message: WebSocketMessage, isBinary?: boolean): SendStatus {
    if (this.#state !== State.Open) return 'dropped';
    let status: number;
    try {
      status = this.#raw!.send(message as ArrayBuffer, isBinary ?? typeof message !== 'string', this.#route.compress);
    } catch (err) {
      status = this.#raw!.send(checkMessage(message, err), isBinary ?? typeof message !== 'string', this.#route.compress);
    }
    return STATUS[status] ?? 'dropped';
  }

  /**
   * Sends a value as JSON text.
   * @example
   * ```ts
   * socket.json({ type: 'welcome', users: 3 });
   * ```
   */
  json(value: unknown): SendStatus {
    return this.send(JSON.stringify(value) ?? 'null', false);
  }

  /**
   * Subscribes to a topic; `app.publish(topic, …)` and other sockets' `publish` reach it.
   * Returns false when it was already subscribed, or is closed.
   * @example
   * ```ts
   * socket.subscribe(`room:${socket.params.room}`);
   * ```
   */
  subscribe(topic: string): boolean {
    checkTopic(topic);
    if (this.#state !== State.Open) return false;
    const raw = this.#raw!;
    if (raw.isSubscribed(topic)) return false;
    raw.subscribe(topic);
    return true;
  }

  /**
   * Unsubscribes from a topic. Returns false when it was not subscribed, or is closed.
   * @example
   * ```ts
   * socket.unsubscribe('room:lobby');
   * ```
   */
  unsubscribe(topic: string): boolean {
    checkTopic(topic);
    if (this.#state !== State.Open) return false;
    return this.#raw!.unsubscribe(topic);
  }

  /**
   * Whether this socket is subscribed to a topic (false once closed).
   * @example
   * ```ts
   * if (!socket.isSubscribed('news')) socket.subscribe('news');
   * ```
   */
  isSubscribed(topic: string): boolean {
    checkTopic(topic);
    return this.#state === State.Open && this.#raw!.isSubscribed(topic);
  }

  /**
   * Sends a message to every socket subscribed to `topic` except this one, in this process and,
   * with `redisPubSub`, in every other. Returns how many sockets it reached in this process.
   * Works inside the `close` handler, to say goodbye (the count may then include this socket,
   * which receives nothing); after that it does nothing and returns 0.
   * @example
   * ```ts
   * socket.publish(`room:${socket.params.room}`, message, isBinary);
   * ```
   */
  publish(topic: string, message: WebSocketMessage, isBinary?: boolean): number {
    const state = this.#state;
    if (state === State.Open) {
      return this.#route.server!.publish(topic, message, isBinary, { exclude: this.#raw!, compress: this.#route.compress });
    }
    // uWS's socket cannot be asked anything in its close handler; a closed socket receives nothing anyway.
    if (state === State.Closing) return this.#route.server!.publish(topic, message, isBinary, { compress: this.#route.compress });
    return 0;
  }

  /**
   * Closes the connection with a close frame: `code` (default 1000) and a short `reason`
   * (at most 123 bytes). The `close` handler runs at once.
   * @example
   * ```ts
   * socket.close(4001, 'signed out');
   * ```
   */
  close(code = 1000, reason = ''): void {
    if (this.#state !== State.Open) return;
    checkClose(code, reason);
    this.#raw!.end(code, reason);
  }

  /**
   * Cuts the connection at once, without a close frame (the client sees 1006).
   * @example
   * ```ts
   * if (abusive) socket.terminate();
   * ```
   */
  terminate(): void {
    if (this.#state === State.Open) this.#raw!.close();
  }

  /**
   * Runs `fn` with the socket corked: the sends it makes go out in one write.
   * @example
   * ```ts
   * socket.cork(() => {
   *   for (const m of backlog) socket.send(m);
   * });
   * ```
   */
  cork(fn: () => void): void {
    if (this.#state === State.Open) this.#raw!.cork(fn);
    else fn();
  }

  /** @internal uWS opened the connection. */
  [kOpen](raw: RawSocket): void {
    this.#raw = raw;
    this.#state = State.Open;
  }

  /** @internal uWS is closing the connection: its close handler runs now. */
  [kClosing](): void {
    this.#state = State.Closing;
  }

  /** @internal The close handler returned: uWS's socket is gone. */
  [kClosed](): void {
    this.#state = State.Closed;
    this.#raw = null;
  }

  /** @internal A message over the route's limit: close with 1009 (message too big). */
  [kTooBig](limit: number): void {
    if (this.#state === State.Open) this.#raw!.end(1009, `Message over ${limit} bytes`);
  }

  /** @internal A handler threw or rejected: log it, and close with 1011 (internal error). */
  [kFail](err: unknown, logger: Logger | undefined): void {
    logger?.error(err);
    if (this.#state === State.Open) this.#raw!.end(1011, 'Internal error');
  }
}

function checkTopic(topic: string): void {
  if (typeof topic !== 'string') {
    throw wsError(WsErrorCodes.INVALID_MESSAGE, `A topic is a string, got ${topic === null ? 'null' : typeof topic}`);
  }
}

/** A message uWS refused: a DataView becomes its bytes; anything else is an error. */
function checkMessage(message: unknown, cause: unknown): Uint8Array {
  if (message instanceof DataView) return new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
  throw wsError(
    WsErrorCodes.INVALID_MESSAGE,
    `send() takes a string, an ArrayBuffer or a Buffer (any typed array), got ${message === null ? 'null' : typeof message}; use json() for other values`,
    cause,
  );
}

function checkClose(code: number, reason: string): void {
  const valid =
    Number.isInteger(code) && ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999));
  if (!valid) {
    throw wsError(
      WsErrorCodes.INVALID_CLOSE,
      `close() got code ${code}: use 1000 (normal), 1001, 1002, 1003, 1007 to 1014, or 3000 to 4999 for your own (1004, 1005, 1006 and 1015 are reserved)`,
    );
  }
  if (typeof reason !== 'string' || Buffer.byteLength(reason) > 123) {
    throw wsError(WsErrorCodes.INVALID_CLOSE, 'close() takes a reason string of at most 123 bytes (UTF-8): a close frame holds no more');
  }
}
