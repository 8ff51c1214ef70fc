/**
 * The Node.js `ServerResponse` surface of a Response, for Express middlewares: what on-headers
 * (compression, morgan, response-time, express-session, cookie-session) and on-finished rely on.
 *
 * Response routes its own ways of answering (`send`, `json`, `end`, `write`, `stream`…) through
 * a `writeHead`, `write` or `end` that a middleware replaced on the instance, as Node's do; the
 * check is one comparison per answer, and the code below runs only for responses that were
 * patched or listened to.
 */
import { Buffer } from 'node:buffer';
import { OutgoingMessage, STATUS_CODES } from 'node:http';
import { expressApp } from './express-app.ts';
import type { HeaderValue } from './headers.ts';
import type { Response } from './response.ts';
import { kCommitted } from './symbols.ts';


type S = Response & { [kCommitted]?: boolean };

/** @internal Calls a `writeHead` a middleware put on the instance, once, before the head goes out. */
export function implicitHead(res: S): void {
  if (res[kCommitted] !== true) res.writeHead(res.statusCode);
}

/** @internal Records the Content-Length of a body sent whole, unless the status has no body or one is set. */
export function noteLength(res: Response, body: string | Uint8Array | ArrayBuffer): void {
  const status = res.statusCode;
  if (status === 204 || status === 304 || status < 200 || res.hasHeader('content-length')) return;
  res.setHeader('content-length', typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
}

/**
 * @internal The ending of `send`, `json`, `html`, `redirect` and `sendStatus` for a response
 * whose `end` a middleware replaced: sets Content-Length as Express's `res.send` does (compression reads it
 * to skip small bodies, morgan logs it), then ends through `res.end`, patched or not.
 */
export function observedSend(res: S, body: string | Uint8Array | ArrayBuffer): void {
  if (!res.headersSent) noteLength(res, body);
  res.end(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
}

/**
 * @internal Headers given to `writeHead` as Node takes them: an object, or a flat
 * [name, value, name, value…] list (several values of a name become a list).
 */
export function headersFromArgs(res: Response, headers: unknown): void {
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
    res.set(headers as Record<string, HeaderValue | number>);
  }
}

const methods = {
  _implicitHeader(this: S) {
    if (!this.headersSent) this.writeHead(this.statusCode);
  },
  getHeaderNames(this: S) {
    return Object.keys(this.getHeaders());
  },
  setTimeout(this: S, _ms: number, _callback?: () => void) {
    return this;
  },
};

const accessors: Record<string, { get(this: S): unknown; set?(this: S, value: any): void }> = {
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
  statusMessage: {
    get() {
      return STATUS_CODES[this.statusCode] ?? '';
    },
    // Assigning is accepted (http-proxy copies the upstream's) and has no effect.
    set() {},
  },
  writable: {
    get() {
      return !this.finished && !this.aborted;
    },
  },
  writableFinished: {
    get() {
      return this.finished;
    },
  },
  destroyed: {
    get() {
      return this.aborted;
    },
  },
  _header: {
    get() {
      return this.headersSent ? `HTTP/1.1 ${this.statusCode} ${STATUS_CODES[this.statusCode] ?? ''}\r\n` : null;
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
      const value = res.getHeader(key);
      return value === undefined ? undefined : [key, value];
    },
    set: (_target, key, entry: [string, HeaderValue | number]) => {
      if (typeof key !== 'string' || !Array.isArray(entry)) return false;
      res.setHeader(entry[0], entry[1]);
      return true;
    },
    deleteProperty: (_target, key) => {
      if (typeof key === 'string') res.removeHeader(key);
      return true;
    },
    has: (_target, key) => typeof key === 'string' && res.hasHeader(key),
    ownKeys: () => res.getHeaderNames(),
    getOwnPropertyDescriptor: (_target, key) => {
      if (typeof key !== 'string' || !res.hasHeader(key)) return undefined;
      return { value: [key, res.getHeader(key)], writable: true, enumerable: true, configurable: true };
    },
  });
}

/** @internal Defines the Node surface on Response's prototype; called once by response.ts. */
export function installNodeResponse(proto: object): void {
  if (kOutHeaders) {
    Object.defineProperty(proto, kOutHeaders, {
      get(this: Response) {
        return outHeaders(this);
      },
      // Node assigns a fresh table when it finds none (never here: the getter always gives one).
      set() {},
      configurable: true,
      enumerable: false,
    });
  }
  for (const [name, fn] of Object.entries(methods)) {
    Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  }
  for (const [name, accessor] of Object.entries(accessors)) {
    Object.defineProperty(proto, name, { get: accessor.get, set: accessor.set, configurable: true, enumerable: false });
  }
}
