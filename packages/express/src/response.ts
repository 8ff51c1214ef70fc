/**
 * The Node.js `ServerResponse` surface of a Response, for Express middlewares: `writeHead`,
 * `setHeader`/`getHeader`/`removeHeader`/`getHeaderNames`, `writeHead`'s reason phrase (core's
 * `res.statusMessage`), `socket`, `app`,
 * `_header`/`_implicitHeader` (what on-headers, compression, morgan, response-time,
 * express-session, cookie-session and on-finished rely on); and Express's own response helpers
 * (`res.location()`, `res.attachment()`, `res.format()`).
 *
 * Core routes every way of answering (`send`, `json`, `end`, `write`, `stream`…) through an
 * `end` or `write` a middleware replaced on the instance. A `writeHead` a middleware replaces
 * (on-headers does) is called once with the status before the head goes out: assigning it
 * registers a `res.beforeHead()` task, so responses nobody patches run none of this.
 */
import type { Decoration, HeaderValue, Request, Response } from '@velox/core';
import { contentType, fileContentType } from '@velox/core';
import { type ExpressApp, expressApp } from './app.ts';
import { ExpressErrorCodes, expressError } from './errors.ts';
import { disposition } from './libs.ts';
import type { NodeSocket } from './request.ts';

// Not an ESM import of node:http: on Node 22 that loads undici for good (see @velox/core's headers.ts).
const { OutgoingMessage } = process.getBuiltinModule('node:http');

/** Set once `writeHead()` committed the status and headers. */
const kCommitted = Symbol('velox.express.committed');
/** A `writeHead` a middleware put on the response, and whether its call before the head is arranged. */
const kWriteHead = Symbol('velox.express.writeHead');
const kHeadTask = Symbol('velox.express.headTask');

type WriteHead = (code: number, reasonOrHeaders?: string | Record<string, HeaderValue | number> | unknown[], headers?: Record<string, HeaderValue | number> | unknown[]) => Response;

interface NodeState {
  [kCommitted]?: boolean;
  [kWriteHead]?: WriteHead;
  [kHeadTask]?: boolean;
}

type S = Response & NodeState;

/**
 * Node's `writeHead`: sets the status and, optionally, headers (an object, or Node's flat
 * [name, value, …] list), and commits them: `headersSent` reads true from here on, as in Node.
 * The head goes out with the first write. A reason phrase given as second argument is ignored
 * (Velox sends the standard one).
 */
function writeHead(this: S, code: number, reasonOrHeaders?: string | Record<string, HeaderValue | number> | unknown[], headers?: Record<string, HeaderValue | number> | unknown[]): S {
  this.status(code);
  if (typeof reasonOrHeaders === 'string') this.statusMessage = reasonOrHeaders;
  const given = typeof reasonOrHeaders === 'string' ? headers : reasonOrHeaders;
  if (given) headersFromArgs(this, given);
  if (this[kCommitted] !== true) {
    this[kCommitted] = true;
    // Node's headersSent is true once the head is committed; core's getter says whether it went
    // out. This response reads true from now on (core's own writes use their private state).
    Object.defineProperty(this, 'headersSent', { value: true, configurable: true, enumerable: false });
  }
  return this;
}

/** The beforeHead() task of a response whose writeHead a middleware replaced: calls it once, as Node's `_implicitHeader` does. */
function implicitHead(res: S): void {
  if (res[kCommitted] !== true) res.writeHead(res.statusCode);
}

/**
 * Headers given to `writeHead` as Node takes them: an object, or a flat [name, value, name,
 * value…] list (several values of a name become a list).
 */
function headersFromArgs(res: Response, headers: unknown): void {
  if (Array.isArray(headers)) {
    if (headers.length % 2 !== 0) return;
    const seen = new Map<string, string[]>();
    for (let i = 0; i < headers.length; i += 2) {
      const name = String(headers[i]).toLowerCase();
      const list = seen.get(name);
      if (list) list.push(String(headers[i + 1]));
      else seen.set(name, [String(headers[i + 1])]);
    }
    for (const [name, values] of seen) res.setHeader(name, values.length === 1 ? values[0]! : values);
  } else if (headers && typeof headers === 'object') {
    const given = headers as Record<string, HeaderValue | number>;
    for (const name in given) res.setHeader(name, given[name]!);
  }
}

/** Encodes what is not allowed in a URL, keeping what is already percent-encoded (Express's encodeurl). */
function encodeUrl(url: string): string {
  return url
    .replace(/(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]|%(?![0-9A-Fa-f]{2}))+/g, (text) => encodeURI(text))
    .replace(/(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uD800-\uDBFF]([^\uDC00-\uDFFF]|$)/g, '$1\uFFFD$2');
}

type FormatHandler = (req: Request, res: Response, next: (err?: unknown) => void) => unknown;

const methods = {
  setHeader(this: S, name: string, value: HeaderValue | number) {
    return this.set(name, value);
  },
  getHeader(this: S, name: string) {
    return this.get(name);
  },
  removeHeader(this: S, name: string): void {
    this.remove(name);
  },
  getHeaderNames(this: S) {
    return Object.keys(this.getHeaders());
  },
  flushHeaders(this: S): void {},
  setTimeout(this: S, _ms: number, _callback?: () => void) {
    return this;
  },
  _implicitHeader(this: S) {
    if (!this.headersSent) this.writeHead(this.statusCode);
  },
  // Express's response helpers.
  location(this: S, url: string) {
    const target = url === 'back' ? (this.req.get('referer') ?? '/') : url;
    return this.set('location', encodeUrl(String(target)));
  },
  attachment(this: S, filename?: string) {
    if (filename) {
      const type = fileContentType(filename);
      if (type && !this.hasHeader('content-type')) this.set('content-type', type);
    }
    return this.set('content-disposition', disposition(filename === undefined ? undefined : filename.replace(/^.*[\\/]/, '')));
  },
  format(this: S, handlers: Record<string, FormatHandler>) {
    const req = this.req;
    const server = this.server;
    const fallback = handlers.default;
    const keys = Object.keys(handlers).filter((key) => key !== 'default');
    const chosen = keys.length > 0 ? req.accepts(keys) : false;
    this.vary('Accept');
    const next = (err?: unknown) => {
      if (err !== undefined && err !== null) server.handleError(err, req, this);
    };
    if (typeof chosen === 'string') {
      if (!this.hasHeader('content-type')) this.set('content-type', contentType(chosen) ?? chosen);
      handlers[chosen]!(req, this, next);
    } else if (fallback) {
      fallback(req, this, next);
    } else {
      server.handleError(expressError(ExpressErrorCodes.NOT_ACCEPTABLE, `Not Acceptable: this answers ${keys.join(', ')}`, 406, { types: keys }), req, this);
    }
    return this;
  },
};

const accessors: Record<string, { get(this: S): unknown; set?(this: S, value: any): void }> = {
  writeHead: {
    get() {
      return this[kWriteHead] ?? writeHead;
    },
    // A middleware replaces writeHead (on-headers does, for compression, morgan, express-session…):
    // core calls it once before the head goes out, through a beforeHead task.
    set(fn: WriteHead) {
      this[kWriteHead] = fn;
      if (this[kHeadTask] !== true && !this.headersSent && !this.finished && !this.aborted) {
        this[kHeadTask] = true;
        this.beforeHead(implicitHead);
      }
    },
  },
  socket: {
    get() {
      return this.req.socket;
    },
  },
  connection: {
    get() {
      return this.req.socket;
    },
  },
  app: {
    get() {
      return expressApp(this.server);
    },
  },
  _header: {
    get() {
      return this.headersSent ? `HTTP/1.1 ${this.statusCode} ${this.statusMessage}\r\n` : null;
    },
  },
};

/**
 * Node's own header table symbol. Some libraries call Node's methods on the response directly
 * (the `cookies` module behind cookie-session does `http.OutgoingMessage.prototype.setHeader
 * .call(res, …)` when `res.set` exists), and those read and write `res[kOutHeaders]`. Found on a
 * probe object, as Node does not export it.
 */
const kOutHeaders = Object.getOwnPropertySymbols(new OutgoingMessage()).find((symbol) => symbol.description === 'kOutHeaders');

/** A view of the response's headers in Node's table shape: `{ [lower-case name]: [name, value] }`. */
function outHeaders(res: Response): Record<string, [string, unknown]> {
  return new Proxy({} as Record<string, [string, unknown]>, {
    get: (_target, key) => {
      if (typeof key !== 'string') return undefined;
      const value = res.get(key);
      return value === undefined ? undefined : [key, value];
    },
    set: (_target, key, entry: [string, HeaderValue | number]) => {
      if (typeof key !== 'string' || !Array.isArray(entry)) return false;
      res.set(entry[0], entry[1]);
      return true;
    },
    deleteProperty: (_target, key) => {
      if (typeof key === 'string') res.remove(key);
      return true;
    },
    has: (_target, key) => typeof key === 'string' && res.hasHeader(key),
    ownKeys: () => Object.keys(res.getHeaders()),
    getOwnPropertyDescriptor: (_target, key) => {
      if (typeof key !== 'string' || !res.hasHeader(key)) return undefined;
      return { value: [key, res.get(key)], writable: true, enumerable: true, configurable: true };
    },
  });
}

/** @internal What `nodeCompat` adds to every response, by name (Node's header table symbol among them). */
export function responseMembers(): Array<[string | symbol, Decoration<Response>]> {
  const members: Array<[string | symbol, Decoration<Response>]> = [];
  for (const [name, fn] of Object.entries(methods)) members.push([name, { value: fn }]);
  for (const [name, { get, set }] of Object.entries(accessors)) members.push([name, set ? { get, set } : { get }]);
  if (kOutHeaders) {
    members.push([
      kOutHeaders,
      {
        get(this: Response) {
          return outHeaders(this);
        },
        // Node assigns a fresh table when it finds none (never here: the getter always gives one).
        set() {},
      },
    ]);
  }
  return members;
}

declare module '@velox/core' {
  interface Response {
    /**
     * Node-style: sets the status and, optionally, headers (an object, or Node's flat
     * [name, value, …] list), and commits them: `headersSent` is true from here on, as in Node.
     * The head goes out with the first write. A reason phrase given as second argument is
     * ignored (Velox sends the standard one). A `writeHead` a middleware assigns is called once
     * with the status before the head goes out.
     * @example
     * ```ts
     * res.writeHead(200, { 'content-type': 'text/plain' });
     * res.end('ok');
     * ```
     */
    writeHead(code: number, reasonOrHeaders?: string | Record<string, HeaderValue | number> | unknown[], headers?: Record<string, HeaderValue | number> | unknown[]): this;
    /** Node-style alias of `res.set(name, value)`. */
    setHeader(name: string, value: HeaderValue | number): this;
    /** Node-style alias of `res.get(name)`. */
    getHeader(name: string): HeaderValue | undefined;
    /** Node-style alias of `res.remove(name)`. */
    removeHeader(name: string): void;
    /** The names of the headers set so far, lower-case. */
    getHeaderNames(): string[];
    /** Node-style: does nothing; headers go out with the first write. */
    flushHeaders(): void;
    /** Node's response timeout: uWS manages timeouts; this only returns the response. */
    setTimeout(ms: number, callback?: () => void): this;
    /** Node's internal: commits the head through `writeHead(statusCode)` if not yet done. */
    _implicitHeader(): void;
    /** Node's internal head: a status line once the head is committed, else null (middlewares test it). */
    readonly _header: string | null;
    /** The request's socket stand-in (see `req.socket`). */
    readonly socket: NodeSocket;
    /** Node's old name for `res.socket`. */
    readonly connection: NodeSocket;
    /** The Express-style application object (see `req.app`). */
    readonly app: ExpressApp;
    /**
     * Sets the Location header (`'back'` means the Referer, or `/`), percent-encoding what needs it.
     * @example
     * ```ts
     * res.location('/login').sendStatus(303);
     * ```
     */
    location(url: string): this;
    /**
     * Marks the response as a download: Content-Disposition `attachment`, with the file name
     * (and the Content-Type from its extension) when given.
     * @example
     * ```ts
     * res.attachment('report.pdf').send(pdfBytes);
     * ```
     */
    attachment(filename?: string): this;
    /**
     * Answers according to the Accept header: calls the handler of the best type (keys are
     * types or extensions), with its Content-Type set and `Vary: Accept`; `default` when none
     * matches, else 406 (`VELOX_ERR_EXPRESS_NOT_ACCEPTABLE`) through the error handler.
     * @example
     * ```ts
     * res.format({
     *   json: () => res.json({ hello: 'world' }),
     *   html: () => res.html('<p>hello world</p>'),
     *   default: () => res.status(406).send('Not Acceptable'),
     * });
     * ```
     */
    format(handlers: Record<string, FormatHandler>): this;
  }
}
