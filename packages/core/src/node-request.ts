/**
 * The Node.js `IncomingMessage` surface of a Request, for Express middlewares (body-parser,
 * multer, on-finished, morgan, http-proxy…): the body as a readable stream and event emitter,
 * `socket`/`connection`, `httpVersion`, `complete`, `originalUrl`, `baseUrl`, `app`.
 *
 * Everything here is defined on `Request.prototype` and made on first use: a request that never
 * touches it allocates nothing and runs no code from this file. State lives under symbols, added
 * to the request only when used.
 */
import { Readable } from 'node:stream';
import { LazyEmitter } from './emitter.ts';
import { ErrorCodes, type VeloxError } from './errors.ts';
import { expressApp } from './express-app.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import { kBaseUrl, kConfig, kOriginalUrl } from './symbols.ts';

type Listener = (...args: any[]) => void;


/**
 * Events that belong to the body stream; the others (`close`, `aborted`, `timeout`, custom ones)
 * stay on the request and leave the body alone. `close` is the request's, as in Node since v16:
 * it fires when the response is done or the client left (SSE handlers stop their timers on it).
 */
const BODY_EVENTS = new Set<string | symbol>(['data', 'end', 'readable', 'error', 'pause', 'resume']);

const kStream = Symbol('velox.nodeStream');
const kEvents = Symbol('velox.requestEvents');
const kSocket = Symbol('velox.socket');

interface NodeState {
  [kStream]?: Readable;
  [kEvents]?: LazyEmitter;
  [kSocket]?: NodeSocket;
  [kOriginalUrl]?: string;
  [kBaseUrl]?: string;
}

type R = Request & NodeState;

/**
 * The body as one Readable, the same one for every caller: `req.stream()`'s (made once by the
 * body), or for a request without a body (or whose body was already read with `json()` and the
 * like), an empty stream that ends as soon as it is read.
 */
function bodyStream(req: R): Readable {
  let stream = req[kStream];
  if (stream) return stream;
  const body = req._nodeBody();
  if (body === null) stream = Readable.from([]);
  else {
    try {
      stream = req.stream();
    } catch (err) {
      if ((err as VeloxError).code !== ErrorCodes.BODY_CONSUMED) throw err;
      stream = Readable.from([]);
    }
  }
  // As Node's IncomingMessage does, a body error with nobody listening (raw-body stops listening
  // once it saw 'aborted') must not become an uncaught exception: listeners still receive it.
  stream.on('error', ignore);
  req[kStream] = stream;
  return stream;
}

function ignore(): void {}

/** The request's own emitter, for events that are not the body's. */
function ownEvents(req: R): LazyEmitter {
  let events = req[kEvents];
  if (events) return events;
  events = new LazyEmitter();
  req[kEvents] = events;
  return events;
}

/** The request's own events, watching the response once for `aborted` and `close` when either is listened to. */
function requestEvents(req: R, event: string | symbol): LazyEmitter {
  const events = ownEvents(req);
  if ((event === 'close' || event === 'aborted') && events.listenerCount('close') + events.listenerCount('aborted') === 0) {
    // Velox learns that the client left, or that the answer went out, from the response.
    req.res.on('close', () => {
      if (req.res.aborted) events.emit('aborted');
      events.emit('close');
    });
  }
  return events;
}

/**
 * A stand-in for the request's socket. uWS owns the real one; this carries what middlewares
 * read (`remoteAddress`, `encrypted`, `readable`/`writable`) and emits `'close'` when the client
 * leaves before the response went out. It is made per request, on first use.
 *
 * @example
 * ```ts
 * app.get('/who', (req, res) => res.send(`${req.socket.remoteAddress} ${req.socket.encrypted ? 'tls' : 'plain'}`));
 * ```
 */
export class NodeSocket extends LazyEmitter {
  readonly #res: Response;
  readonly #req: Request;

  /** @internal */
  constructor(req: Request) {
    super();
    this.#req = req;
    this.#res = req.res;
    this.#res.on('close', () => {
      if (this.#res.aborted) this.emit('close', true);
    });
  }

  /** The peer's address (IPv4-mapped addresses shown as IPv4). */
  get remoteAddress(): string {
    return this.#req.socketAddress;
  }

  /** `IPv4` or `IPv6`. */
  get remoteFamily(): string {
    return this.#req.socketAddress.includes(':') ? 'IPv6' : 'IPv4';
  }

  /** Not known: uWS v20.51's response has no `getRemotePort` (a test checks; wire it up when a build has one). */
  get remotePort(): number | undefined {
    return undefined;
  }

  /** True for an HTTPS server (a TLS socket in Node); undefined otherwise, as on a plain Node socket. */
  get encrypted(): true | undefined {
    return this.#req.server[kConfig].tls ? true : undefined;
  }

  /** True until the client leaves. */
  get readable(): boolean {
    return !this.#res.aborted;
  }

  /** True until the client leaves. */
  get writable(): boolean {
    return !this.#res.aborted;
  }

  /** True once the client left (or the connection was cut). */
  get destroyed(): boolean {
    return this.#res.aborted;
  }

  /** `{ address, family }` of the peer (the local address is not known to this uWS build). */
  address(): { address: string; family: string } {
    return { address: this.remoteAddress, family: this.remoteFamily };
  }

  /** Cuts the connection. */
  destroy(): this {
    this.#res.destroy();
    return this;
  }

  /** Does nothing: uWS manages the connection's timeouts. Returns the socket. */
  setTimeout(_ms?: number, _callback?: () => void): this {
    return this;
  }

  /** Does nothing (uWS sets TCP_NODELAY itself). */
  setNoDelay(_noDelay?: boolean): this {
    return this;
  }

  /** Does nothing (uWS manages keep-alive). */
  setKeepAlive(_enable?: boolean, _delay?: number): this {
    return this;
  }

  /** Does nothing. */
  ref(): this {
    return this;
  }

  /** Does nothing. */
  unref(): this {
    return this;
  }
}

function onBody(req: R, event: string | symbol): boolean {
  return BODY_EVENTS.has(event);
}

const methods = {
  on(this: R, event: string | symbol, listener: Listener) {
    if (onBody(this, event)) bodyStream(this).on(event, listener);
    else requestEvents(this, event).on(event, listener);
    return this;
  },
  addListener(this: R, event: string | symbol, listener: Listener) {
    return this.on(event, listener);
  },
  once(this: R, event: string | symbol, listener: Listener) {
    if (onBody(this, event)) bodyStream(this).once(event, listener);
    else requestEvents(this, event).once(event, listener);
    return this;
  },
  prependListener(this: R, event: string | symbol, listener: Listener) {
    if (onBody(this, event)) bodyStream(this).prependListener(event, listener);
    else requestEvents(this, event).prependListener(event, listener);
    return this;
  },
  removeListener(this: R, event: string | symbol, listener: Listener) {
    if (onBody(this, event)) this[kStream]?.removeListener(event, listener);
    else this[kEvents]?.removeListener(event, listener);
    return this;
  },
  off(this: R, event: string | symbol, listener: Listener) {
    return this.removeListener(event, listener);
  },
  removeAllListeners(this: R, event?: string | symbol) {
    if (event === undefined || onBody(this, event)) this[kStream]?.removeAllListeners(event);
    if (event === undefined || !onBody(this, event)) this[kEvents]?.removeAllListeners(event);
    return this;
  },
  emit(this: R, event: string | symbol, ...args: unknown[]) {
    if (onBody(this, event)) return this[kStream]?.emit(event, ...args) ?? false;
    return this[kEvents]?.emit(event, ...args) ?? false;
  },
  listeners(this: R, event: string | symbol): Listener[] {
    if (onBody(this, event)) return ((this[kStream]?.listeners(event) as Listener[] | undefined) ?? []).filter((l) => l !== ignore);
    return this[kEvents]?.listeners(event) ?? [];
  },
  listenerCount(this: R, event: string | symbol) {
    if (onBody(this, event)) return this.listeners(event).length;
    return this[kEvents]?.listenerCount(event) ?? 0;
  },
  resume(this: R) {
    bodyStream(this).resume();
    return this;
  },
  pause(this: R) {
    bodyStream(this).pause();
    return this;
  },
  isPaused(this: R) {
    return this[kStream]?.isPaused() ?? false;
  },
  read(this: R, size?: number) {
    return bodyStream(this).read(size);
  },
  setEncoding(this: R, encoding: BufferEncoding) {
    bodyStream(this).setEncoding(encoding);
    return this;
  },
  unpipe(this: R, destination?: NodeJS.WritableStream) {
    this[kStream]?.unpipe(destination);
    return this;
  },
  setTimeout(this: R, _ms: number, _callback?: () => void) {
    return this;
  },
  destroy(this: R, _error?: Error) {
    this.res.destroy();
    return this;
  },
};

const accessors: Record<string, { get(this: R): unknown; set?(this: R, value: any): void }> = {
  originalUrl: {
    get() {
      return this[kOriginalUrl] ?? this.url;
    },
    set(value: string) {
      this[kOriginalUrl] = String(value);
    },
  },
  baseUrl: {
    get() {
      return this[kBaseUrl] ?? '';
    },
    set(value: string) {
      this[kBaseUrl] = String(value);
    },
  },
  httpVersion: { get: () => '1.1' },
  httpVersionMajor: { get: () => 1 },
  httpVersionMinor: { get: () => 1 },
  socket: {
    get() {
      let socket = this[kSocket];
      if (!socket) {
        socket = new NodeSocket(this);
        this[kSocket] = socket;
      }
      return socket;
    },
  },
  connection: {
    get() {
      return this.socket;
    },
  },
  complete: {
    get() {
      const body = this._nodeBody();
      return body === null || body.complete;
    },
  },
  readable: {
    get() {
      const stream = this[kStream];
      if (stream) return stream.readable;
      const body = this._nodeBody();
      if (body === null || !body.used) return true;
      try {
        return this.stream().readable;
      } catch {
        return false; // read whole with text(), json() or buffer()
      }
    },
  },
  readableEnded: {
    get() {
      const stream = this[kStream];
      if (stream) return stream.readableEnded;
      const body = this._nodeBody();
      if (body === null || !body.used) return false;
      try {
        return this.stream().readableEnded;
      } catch {
        return true; // read whole with text(), json() or buffer()
      }
    },
  },
  rawHeaders: {
    get() {
      const headers = this.headers;
      const list: string[] = [];
      for (const name in headers) list.push(name, headers[name]!);
      return list;
    },
  },
  app: {
    get() {
      return expressApp(this.server);
    },
  },
};

/** @internal Defines the Node surface on Request's prototype; called once by request.ts. */
export function installNodeRequest(proto: object): void {
  for (const [name, fn] of Object.entries(methods)) {
    Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  }
  for (const [name, accessor] of Object.entries(accessors)) {
    Object.defineProperty(proto, name, { get: accessor.get, set: accessor.set, configurable: true, enumerable: false });
  }
}
