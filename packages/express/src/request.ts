/**
 * The Node.js `IncomingMessage` surface of a Request, for Express middlewares (body-parser,
 * multer, on-finished, morgan, http-proxy…): the body as a readable stream and event emitter,
 * `socket`/`connection`, `httpVersion`, `complete`, `rawHeaders`, `app`; and Express's own
 * request helpers (`req.xhr`, `req.range()`, `req.subdomains`).
 *
 * `nodeCompat` adds all of it to Request with `decorateRequest`; each member is made on first
 * use: a request that never touches it allocates nothing and runs no code from this file. State
 * lives under symbols, added to the request only when used.
 */
import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { type Decoration, ErrorCodes, type Request, type Response, type VeloxError } from '@velox/core';
import { type ExpressApp, expressApp } from './app.ts';
import { parseRange } from './libs.ts';

type Listener = (...args: any[]) => void;

/**
 * Events that belong to the body stream; the others (`close`, `aborted`, `timeout`, custom ones)
 * stay on the request and leave the body alone. `close` is the request's, as in Node since v16:
 * it fires when the response is done or the client left (SSE handlers stop their timers on it).
 */
const BODY_EVENTS = new Set<string | symbol>(['data', 'end', 'readable', 'error', 'pause', 'resume']);

const kStream = Symbol('velox.express.stream');
const kEvents = Symbol('velox.express.requestEvents');
const kSocket = Symbol('velox.express.socket');

interface NodeState {
  [kStream]?: Readable;
  [kEvents]?: EventEmitter;
  [kSocket]?: NodeSocket;
}

type R = Request & NodeState;

/**
 * The body as one Readable, the same one for every caller: `req.stream()`'s (made once by the
 * body), or for a request whose body was already read whole (`json()` and the like), an empty
 * stream that ends as soon as it is read.
 */
function bodyStream(req: R): Readable {
  let stream = req[kStream];
  if (stream) return stream;
  try {
    stream = req.stream();
  } catch (err) {
    if ((err as VeloxError).code !== ErrorCodes.BODY_CONSUMED) throw err;
    stream = Readable.from([]);
  }
  // As Node's IncomingMessage does, a body error with nobody listening (raw-body stops listening
  // once it saw 'aborted') must not become an uncaught exception: listeners still receive it.
  stream.on('error', ignore);
  req[kStream] = stream;
  return stream;
}

function ignore(): void {}

/** The request's own events, watching the response once for `aborted` and `close` when either is listened to. */
function requestEvents(req: R, event: string | symbol): EventEmitter {
  let events = req[kEvents];
  if (!events) {
    events = new EventEmitter();
    req[kEvents] = events;
  }
  if ((event === 'close' || event === 'aborted') && events.listenerCount('close') + events.listenerCount('aborted') === 0) {
    // Velox learns that the client left, or that the answer went out, from the response.
    const own = events;
    req.res.on('close', () => {
      if (req.res.aborted) own.emit('aborted');
      own.emit('close');
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
export class NodeSocket extends EventEmitter {
  readonly #res: Response;
  readonly #req: Request;

  /** @internal Made by `req.socket`. */
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
    return this.#req.server.config.tls ? true : undefined;
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

const methods = {
  on(this: R, event: string | symbol, listener: Listener) {
    if (BODY_EVENTS.has(event)) bodyStream(this).on(event, listener);
    else requestEvents(this, event).on(event, listener);
    return this;
  },
  addListener(this: R, event: string | symbol, listener: Listener) {
    return this.on(event, listener);
  },
  once(this: R, event: string | symbol, listener: Listener) {
    if (BODY_EVENTS.has(event)) bodyStream(this).once(event, listener);
    else requestEvents(this, event).once(event, listener);
    return this;
  },
  prependListener(this: R, event: string | symbol, listener: Listener) {
    if (BODY_EVENTS.has(event)) bodyStream(this).prependListener(event, listener);
    else requestEvents(this, event).prependListener(event, listener);
    return this;
  },
  prependOnceListener(this: R, event: string | symbol, listener: Listener) {
    if (BODY_EVENTS.has(event)) bodyStream(this).prependOnceListener(event, listener);
    else requestEvents(this, event).prependOnceListener(event, listener);
    return this;
  },
  removeListener(this: R, event: string | symbol, listener: Listener) {
    if (BODY_EVENTS.has(event)) this[kStream]?.removeListener(event, listener);
    else this[kEvents]?.removeListener(event, listener);
    return this;
  },
  off(this: R, event: string | symbol, listener: Listener) {
    return this.removeListener(event, listener);
  },
  removeAllListeners(this: R, event?: string | symbol) {
    if (event === undefined || BODY_EVENTS.has(event)) {
      if (event === undefined) this[kStream]?.removeAllListeners();
      else this[kStream]?.removeAllListeners(event);
    }
    if (event === undefined || !BODY_EVENTS.has(event)) {
      if (event === undefined) this[kEvents]?.removeAllListeners();
      else this[kEvents]?.removeAllListeners(event);
    }
    return this;
  },
  emit(this: R, event: string | symbol, ...args: unknown[]) {
    if (BODY_EVENTS.has(event)) return this[kStream]?.emit(event, ...args) ?? false;
    return this[kEvents]?.emit(event, ...args) ?? false;
  },
  listeners(this: R, event: string | symbol): Listener[] {
    if (BODY_EVENTS.has(event)) return ((this[kStream]?.listeners(event) as Listener[] | undefined) ?? []).filter((l) => l !== ignore);
    return (this[kEvents]?.listeners(event) as Listener[] | undefined) ?? [];
  },
  listenerCount(this: R, event: string | symbol) {
    if (BODY_EVENTS.has(event)) return this.listeners(event).length;
    return this[kEvents]?.listenerCount(event) ?? 0;
  },
  pipe<T extends NodeJS.WritableStream>(this: R, destination: T, options?: { end?: boolean }): T {
    return this.stream().pipe(destination, options);
  },
  unpipe(this: R, destination?: NodeJS.WritableStream) {
    this[kStream]?.unpipe(destination);
    return this;
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
  setTimeout(this: R, _ms: number, _callback?: () => void) {
    return this;
  },
  destroy(this: R, _error?: Error) {
    this.res.destroy();
    return this;
  },
  // Express's request helpers.
  range(this: R, size: number, options: { combine?: boolean } = {}) {
    const header = this.get('range');
    if (!header) return undefined;
    const ranges = parseRange(size, header, options.combine === true);
    if (typeof ranges === 'number') return ranges;
    return Object.assign(ranges, { type: 'bytes' });
  },
};

const accessors: Record<string, { get(this: R): unknown; set?(this: R, value: any): void }> = {
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
      return this.bodyComplete;
    },
  },
  readable: {
    get() {
      const stream = this[kStream];
      if (stream) return stream.readable;
      if (!this.bodyUsed) return true;
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
      if (!this.bodyUsed) return false;
      try {
        return this.stream().readableEnded;
      } catch {
        return true; // read whole with text(), json() or buffer()
      }
    },
  },
  rawHeaders: {
    get() {
      // Each line as it came (core's headerLines), names lower-case: uWS gives no other.
      return [...this.headerLines];
    },
  },
  app: {
    get() {
      return expressApp(this.server);
    },
  },
  // Express's request helpers.
  xhr: {
    get() {
      return (this.get('x-requested-with') ?? '').toLowerCase() === 'xmlhttprequest';
    },
  },
  subdomains: {
    get() {
      const host = this.hostname;
      if (!host) return [];
      const offset = Number(this.app.get('subdomain offset') ?? 2);
      const labels = isIP(host) ? [host] : host.split('.').reverse();
      return labels.slice(offset);
    },
  },
};

/** @internal What `nodeCompat` adds to every request, by name. */
export function requestMembers(): Array<[string, Decoration<Request>]> {
  const members: Array<[string, Decoration<Request>]> = [];
  for (const [name, fn] of Object.entries(methods)) members.push([name, { value: fn }]);
  for (const [name, { get, set }] of Object.entries(accessors)) members.push([name, set ? { get, set } : { get }]);
  return members;
}

declare module '@velox/core' {
  interface Request {
    /** The Express-style application object: settings (`get('trust proxy')`, …) and `locals` (with `nodeCompat`). */
    readonly app: ExpressApp;
    /** Always `'1.1'`: uWebSockets.js speaks HTTP/1.1 (and answers HTTP/1.0 clients as 1.1). */
    readonly httpVersion: string;
    /** Always 1. */
    readonly httpVersionMajor: number;
    /** Always 1. */
    readonly httpVersionMinor: number;
    /** A stand-in for Node's socket: `remoteAddress`, `encrypted`, `readable`, `'close'` when the client leaves. */
    readonly socket: NodeSocket;
    /** Node's old name for `req.socket`. */
    readonly connection: NodeSocket;
    /** True once the whole body has arrived (true at once for a request without a body); `req.bodyComplete`. */
    readonly complete: boolean;
    /** False once the body has been read (as a stream or by `text()`/`json()`/`buffer()`). */
    readonly readable: boolean;
    /** True once the body stream emitted `'end'` (or the body was read whole with `text()`, `json()`, `buffer()`). */
    readonly readableEnded: boolean;
    /** Header names and values in a flat list, as Node gives them (names lower-case). */
    readonly rawHeaders: string[];
    /** Adds a listener. Body events (`data`, `end`, `readable`, `error`) read the body as a stream; `close` fires when the response is done or the client left. */
    on(event: string | symbol, listener: Listener): this;
    /** Alias of `on`. */
    addListener(event: string | symbol, listener: Listener): this;
    /** Adds a listener that runs once. */
    once(event: string | symbol, listener: Listener): this;
    /** Adds a listener ahead of the others. */
    prependListener(event: string | symbol, listener: Listener): this;
    /** Adds a listener that runs once, ahead of the others. */
    prependOnceListener(event: string | symbol, listener: Listener): this;
    /** Removes a listener. */
    removeListener(event: string | symbol, listener: Listener): this;
    /** Alias of `removeListener`. */
    off(event: string | symbol, listener: Listener): this;
    /** Removes all listeners of an event (or of all events). */
    removeAllListeners(event?: string | symbol): this;
    /** Calls an event's listeners; true if there were any. */
    emit(event: string | symbol, ...args: unknown[]): boolean;
    /** The listeners of an event. */
    listeners(event: string | symbol): Listener[];
    /** How many listeners an event has. */
    listenerCount(event: string | symbol): number;
    /**
     * Pipes the body into a writable, with backpressure; returns the destination.
     * @example
     * ```ts
     * req.pipe(createWriteStream('/tmp/upload')).on('finish', () => res.send('ok'));
     * ```
     */
    pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T;
    /** Stops piping the body into `destination` (or into everything). */
    unpipe(destination?: NodeJS.WritableStream): this;
    /** Starts or resumes the flow of `data` events. */
    resume(): this;
    /** Pauses the flow of `data` events (and reading from the socket, once the buffer fills). */
    pause(): this;
    /** True while paused. */
    isPaused(): boolean;
    /** Reads from the body stream (paused mode, after `'readable'`). */
    read(size?: number): unknown;
    /** Decodes body chunks as text in this encoding. */
    setEncoding(encoding: BufferEncoding): this;
    /** Node's request timeout: Velox leaves timeouts to uWS (about 10 s idle); this only returns the request. */
    setTimeout(ms: number, callback?: () => void): this;
    /** Cuts the connection (the response is abandoned). */
    destroy(error?: Error): this;
    /** True when `X-Requested-With` is `XMLHttpRequest`. */
    readonly xhr: boolean;
    /** The host name's labels before the last `subdomain offset` (2) ones, right to left, as in Express. */
    readonly subdomains: string[];
    /**
     * Parses the Range header against a size: the ranges (with `type: 'bytes'`), -1 when none
     * can be satisfied, -2 when malformed, undefined without a Range header.
     * @example
     * ```ts
     * const ranges = req.range(stats.size, { combine: true });
     * ```
     */
    range(size: number, options?: { combine?: boolean }): (Array<{ start: number; end: number }> & { type: string }) | -1 | -2 | undefined;
  }
}
