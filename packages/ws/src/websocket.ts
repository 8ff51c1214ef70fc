/**
 * `websocket(behavior)`: the last argument of `app.ws(pattern, ...middlewares, behavior)`. It
 * checks the options at once (uWS aborts the process on some), turns the upgrade's result into a
 * safe {@link Socket}, and wraps each handler: errors are logged and close the socket with 1011,
 * messages over `maxPayloadLength` close it with 1009, and an async `message` handler gets a copy
 * of its message (uWS reuses the memory once the handler returns).
 */
import { Buffer } from 'node:buffer';
import type { Request, Response, Server, WebSocketRoute } from '@velox/core';
import { requireCompression, sharedCompression } from './compression.ts';
import { WsErrorCodes, wsError } from './errors.ts';
import { type Hub, hubOf } from './hub.ts';
import { kClosed, kClosing, kFail, kOpen, kTooBig, type RawSocket, type RouteState, Socket } from './socket.ts';

/**
 * The handlers and options of a WebSocket route. Every option is checked when `websocket()` is
 * called; see the README for each default.
 *
 * @example
 * ```ts
 * const chat: WebSocketBehavior<{ user: string }, { room: string }> = {
 *   upgrade: (req) => ({ user: req.get('x-user') ?? 'anonymous' }),
 *   message: (socket, message) => void socket.publish(`room:${socket.params.room}`, message),
 *   idleTimeout: 60,
 * };
 * app.ws('/chat/:room', websocket(chat));
 * ```
 */
export interface WebSocketBehavior<Data = undefined, Params extends Record<string, string> = Record<string, string>> {
  /**
   * Runs on the upgrade request, after the route's middlewares; returns the socket's `data`
   * (sync or async). Throw (a `VeloxError` with a status, say) or answer through `res` to refuse:
   * the client gets that HTTP answer.
   */
  upgrade?: (req: Request<Params>, res: Response) => Data | Promise<Data>;
  /** The connection is open. */
  open?: (socket: Socket<Data, Params>) => unknown;
  /**
   * A message arrived: an ArrayBuffer (`Buffer.from(message)` views it, `.toString()` reads text).
   * A plain function must read it before it returns; an `async` function gets a copy it may keep.
   */
  message?: (socket: Socket<Data, Params>, message: ArrayBuffer, isBinary: boolean) => unknown;
  /** The backpressure buffer emptied: sending can resume. `socket.bufferedAmount` says how much is left. */
  drain?: (socket: Socket<Data, Params>) => unknown;
  /** The connection closed (the socket is already `closed`); a promise returned here is awaited by `app.close()`. */
  close?: (socket: Socket<Data, Params>, code: number, reason: string) => unknown;
  /** Largest message accepted, in bytes; a bigger one closes the connection with 1009. Default: 65536 (64 KiB). */
  maxPayloadLength?: number;
  /** Seconds without traffic before the connection closes: 0 (never) or 8 to 960. Default: 120. */
  idleTimeout?: number;
  /** Send pings so that a live client keeps the connection within `idleTimeout`. Default: true. */
  sendPingsAutomatically?: boolean;
  /** Bytes a socket may have waiting to go out; past it, messages are dropped (or the socket closed). Default: 1048576 (1 MiB). */
  maxBackpressure?: number;
  /** Past `maxBackpressure`, close the connection instead of dropping messages. Default: false. */
  closeOnBackpressureLimit?: boolean;
  /** permessage-deflate with shared windows; refused at start-up when the uWS binary cannot do it. Default: false. */
  compression?: boolean;
  /** Minutes a connection may last at most: 0 (no limit) to 240. Default: 0. */
  maxLifetime?: number;
}

/**
 * What uWS keeps on each of its sockets (uWS copies these properties onto its socket object):
 * the user data type of the core route `websocket()` returns.
 *
 * @example
 * ```ts
 * const route: WebSocketRoute<SocketHolder<{ user: string }>> = websocket({ upgrade: () => ({ user: 'ann' }) });
 * ```
 */
export interface SocketHolder<Data = any, Params extends Record<string, string> = Record<string, string>> {
  veloxSocket: Socket<Data, Params>;
}

const HANDLERS = ['upgrade', 'open', 'message', 'drain', 'close'] as const;
const OPTIONS = [
  'maxPayloadLength',
  'idleTimeout',
  'sendPingsAutomatically',
  'maxBackpressure',
  'closeOnBackpressureLimit',
  'compression',
  'maxLifetime',
] as const;
const MAX_PAYLOAD = 1024 * 1024 * 1024;
const AsyncFunction = (async () => {}).constructor;

/**
 * Makes a WebSocket route's behavior, for `app.ws(pattern, ...middlewares, websocket({...}))`.
 * Handlers get a {@link Socket} that is safe to use after it closed.
 *
 * @example
 * ```ts
 * import { websocket } from '@velox/ws';
 *
 * app.ws('/chat/:room', requireUser, websocket({
 *   upgrade: async (req) => ({ user: req.user.name }),
 *   open(socket) { socket.subscribe(`room:${socket.params.room}`); },
 *   message(socket, message, isBinary) { socket.publish(`room:${socket.params.room}`, message, isBinary); },
 *   close(socket, code, reason) { console.log(socket.data.user, 'left', code, reason); },
 *   maxPayloadLength: 64 * 1024, idleTimeout: 120, maxBackpressure: 1024 * 1024,
 * }));
 * ```
 */
export function websocket<Data = undefined, Params extends Record<string, string> = Record<string, string>>(
  behavior: WebSocketBehavior<Data, Params> = {},
): WebSocketRoute<SocketHolder<Data, Params>, Params> {
  const options = check(behavior);
  const { upgrade: onUpgrade, open: onOpen, message: onMessage, drain: onDrain, close: onClose } = behavior;
  const limit = options.maxPayloadLength;
  const copy = onMessage instanceof AsyncFunction;
  const route: RouteState = { server: undefined, compress: options.compression };
  let hub: Hub | undefined;
  let logger: Server['logger'];

  const hold = (data: Data, req: Request<Params>, res: Response): SocketHolder<Data, Params> | undefined => {
    if (res.finished || res.aborted) return undefined;
    return { veloxSocket: new Socket<Data, Params>(route, data, req.params, req.ip) };
  };
  const fail = (socket: Socket<any, any>, err: unknown) => socket[kFail](err, logger);
  /** Calls a handler; a throw or a rejection is logged and closes the socket with 1011. */
  const call = (socket: Socket<any, any>, result: () => unknown): unknown => {
    let value: unknown;
    try {
      value = result();
    } catch (err) {
      fail(socket, err);
      return undefined;
    }
    if (value !== undefined && value !== null && typeof (value as Promise<unknown>).then === 'function') {
      return (value as Promise<unknown>).then(undefined, (err: unknown) => fail(socket, err));
    }
    return undefined;
  };

  const uwsOptions = {
    // uWS closes a bigger message without a close frame (the client sees 1006), so its own limit
    // sits above ours as a backstop: up to it, the client gets 1009 from us.
    maxPayloadLength: Math.max(limit * 2, limit + 64 * 1024),
    idleTimeout: options.idleTimeout,
    sendPingsAutomatically: options.sendPingsAutomatically,
    maxBackpressure: options.maxBackpressure,
    closeOnBackpressureLimit: options.closeOnBackpressureLimit,
    maxLifetime: options.maxLifetime,
    ...(options.compression ? { compression: sharedCompression() } : {}),
  };

  return {
    ...uwsOptions,
    setup(server: Server) {
      if (route.server !== undefined && route.server !== server) {
        throw wsError(WsErrorCodes.INVALID_OPTION, 'A websocket() behavior belongs to one server: call websocket() again for another server');
      }
      route.server = server;
      hub = hubOf(server);
      logger = server.logger;
      return options.compression ? requireCompression() : undefined;
    },
    upgrade(req: Request<any>, res: Response) {
      if (onUpgrade === undefined) return hold(undefined as Data, req, res) as SocketHolder<Data, Params>;
      const data = onUpgrade(req, res);
      if (data !== null && typeof (data as Promise<Data> | undefined)?.then === 'function') {
        return (data as Promise<Data>).then((value) => hold(value, req, res)) as Promise<SocketHolder<Data, Params>>;
      }
      return hold(data as Data, req, res) as SocketHolder<Data, Params>;
    },
    open(raw) {
      const socket = (raw as unknown as SocketHolder<Data, Params>).veloxSocket;
      socket[kOpen](raw as unknown as RawSocket);
      if (onOpen !== undefined) call(socket, () => onOpen(socket));
    },
    // The hot path: no allocation but the copy an async handler needs.
    message(raw, message, isBinary) {
      const socket = (raw as unknown as SocketHolder<Data, Params>).veloxSocket;
      if (message.byteLength > limit) return socket[kTooBig](limit);
      if (onMessage === undefined) return;
      let result: unknown;
      try {
        result = onMessage(socket, copy ? message.slice(0) : message, isBinary);
      } catch (err) {
        return fail(socket, err);
      }
      if (result !== undefined && result !== null && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(undefined, (err: unknown) => fail(socket, err));
      }
    },
    drain(raw) {
      const socket = (raw as unknown as SocketHolder<Data, Params>).veloxSocket;
      if (onDrain !== undefined) call(socket, () => onDrain(socket));
    },
    close(raw, code, message) {
      const socket = (raw as unknown as SocketHolder<Data, Params>).veloxSocket;
      socket[kClosing]();
      let result: unknown;
      try {
        if (onClose !== undefined) {
          const reason = message.byteLength === 0 ? '' : Buffer.from(message).toString();
          result = call(socket, () => onClose(socket, code, reason));
        }
      } finally {
        socket[kClosed]();
      }
      // core's close() waits for it.
      return result as undefined;
    },
    subscription(_raw, topic, newCount, oldCount) {
      if (hub?.watched && (newCount === 0 || oldCount === 0)) hub.changed(Buffer.from(topic).toString(), newCount);
    },
  };
}

interface Checked {
  maxPayloadLength: number;
  idleTimeout: number;
  sendPingsAutomatically: boolean;
  maxBackpressure: number;
  closeOnBackpressureLimit: boolean;
  compression: boolean;
  maxLifetime: number;
}

/** Checks every option now: uWS aborts the process on some bad values, and ignores others. */
function check(behavior: WebSocketBehavior<any, any>): Checked {
  if (!behavior || typeof behavior !== 'object') throw invalid('websocket() takes an object of handlers and options');
  for (const key of Object.keys(behavior)) {
    if (!(HANDLERS as readonly string[]).includes(key) && !(OPTIONS as readonly string[]).includes(key)) {
      throw invalid(`websocket() has no option "${key}"; handlers are ${HANDLERS.join(', ')} and options ${OPTIONS.join(', ')}`);
    }
  }
  for (const name of HANDLERS) {
    const fn = behavior[name];
    if (fn !== undefined && typeof fn !== 'function') throw invalid(`websocket(): ${name} must be a function, got ${typeof fn}`);
  }
  const maxPayloadLength = behavior.maxPayloadLength ?? 64 * 1024;
  if (!(Number.isInteger(maxPayloadLength) && maxPayloadLength >= 1 && maxPayloadLength <= MAX_PAYLOAD)) {
    throw invalid(`maxPayloadLength is a whole number of bytes from 1 to ${MAX_PAYLOAD} (1 GiB), e.g. 65536 for 64 KiB; got ${behavior.maxPayloadLength}`);
  }
  const idleTimeout = behavior.idleTimeout ?? 120;
  if (!(Number.isInteger(idleTimeout) && (idleTimeout === 0 || (idleTimeout >= 8 && idleTimeout <= 960)))) {
    throw invalid(
      `idleTimeout is 0 (never) or a whole number of seconds from 8 to 960 (uWS aborts the process on other values); got ${behavior.idleTimeout}`,
    );
  }
  const maxBackpressure = behavior.maxBackpressure ?? 1024 * 1024;
  if (!(Number.isInteger(maxBackpressure) && maxBackpressure >= 1 && maxBackpressure <= 2 ** 31 - 1)) {
    throw invalid(
      `maxBackpressure is a whole number of bytes from 1 to ${2 ** 31 - 1}, e.g. 1048576 for 1 MiB (a limit is what keeps a client that never reads from growing memory); got ${behavior.maxBackpressure}`,
    );
  }
  const maxLifetime = behavior.maxLifetime ?? 0;
  if (!(Number.isInteger(maxLifetime) && maxLifetime >= 0 && maxLifetime <= 240)) {
    throw invalid(`maxLifetime is 0 (no limit) or a whole number of minutes up to 240 (uWS aborts the process on more); got ${behavior.maxLifetime}`);
  }
  const flags = {
    sendPingsAutomatically: behavior.sendPingsAutomatically ?? true,
    closeOnBackpressureLimit: behavior.closeOnBackpressureLimit ?? false,
    compression: behavior.compression ?? false,
  };
  for (const [name, value] of Object.entries(flags)) {
    if (typeof value !== 'boolean') throw invalid(`${name} is true or false, got ${JSON.stringify(value)}`);
  }
  return { maxPayloadLength, idleTimeout, maxBackpressure, maxLifetime, ...flags };
}

function invalid(message: string): Error {
  return wsError(WsErrorCodes.INVALID_OPTION, message);
}
