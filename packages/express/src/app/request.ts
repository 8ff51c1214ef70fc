/**
 * The request prototype of an Express app (`express.request`): Express 4's request getters on
 * top of a Velox Request with `nodeCompat`. `trust proxy` is the app's setting (proxy-addr), the
 * query string is parsed by the app's `query parser`, and `req.cookies` is unset until
 * cookie-parser sets it, as in Express.
 */
import { isIP, isIPv4 } from 'node:net';
import { Request } from '@velox/core';
import { expressResponse, setCoreResponse } from './response.ts';
import { allAddresses, clientAddress, type TrustFn } from './libs.ts';

const kQuery = Symbol('velox.express.app.query');
const kHeaders = Symbol('velox.express.app.headers');

function trustOf(req: any): TrustFn {
  return req.app.get('trust proxy fn') as TrustFn;
}

/** Servers listening on every address (no host, or `::`), where Node shows IPv4 peers as `::ffff:a.b.c.d`. */
const dualStack = new WeakSet<object>();

/** @internal Marks a server that listens on every address (or, with `false`, no longer does): its IPv4 peers read as Node shows them. */
export function markDualStack(server: object, on = true): void {
  if (on) dualStack.add(server);
  else dualStack.delete(server);
}

const FULL_IPV6 = /^[0-9a-f]{4}(?::[0-9a-f]{4}){7}$/i;

/** An IPv6 address in the compressed form Node gives (RFC 5952); uWS gives all eight groups. */
export function compressIPv6(address: string): string {
  if (!FULL_IPV6.test(address)) return address;
  const groups = address.toLowerCase().split(':').map((g) => g.replace(/^0+(?=.)/, ''));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}

/** The peer's address as Node's socket would give it. */
function remote(req: any): string | undefined {
  const address: string = compressIPv6(req.socketAddress);
  if (address && dualStack.has(req.server) && isIPv4(address)) return `::ffff:${address}`;
  return address || undefined;
}

/** Headers of which Node keeps the first line only (its IncomingMessage). */
const FIRST_ONLY = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since',
  'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after',
  'server', 'user-agent',
]);

/**
 * `req.headers` as Node builds it from the lines: the first line only of the headers above,
 * Set-Cookie as an array, Cookie lines joined with `; `, other repeats with `, `.
 */
function nodeHeaders(lines: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i < lines.length; i += 2) {
    const name = lines[i]!;
    const value = lines[i + 1]!;
    const prev = headers[name];
    if (name === 'set-cookie') {
      if (prev === undefined) headers[name] = [value];
      else (prev as string[]).push(value);
    } else if (prev === undefined) headers[name] = value;
    else if (FIRST_ONLY.has(name)) continue;
    else headers[name] = `${prev}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return headers;
}

/** nodeCompat's `req.socket` (found once nodeCompat decorated Request). */
const kPeer = Symbol('velox.express.app.peer');

/** What proxy-addr reads of a request: its headers and the peer's address, as Node gives it. */
function peerView(req: any): object {
  const socket = { remoteAddress: remote(req) };
  return { headers: req.headers, socket, connection: socket };
}

/** The getter of `name` on `proto` or the first of its prototypes that has `name`. */
function inheritedGetter(proto: object | null, name: string): () => unknown {
  for (; proto !== null; proto = Object.getPrototypeOf(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (d?.get) return d.get as () => unknown;
  }
  throw new TypeError(`no getter ${name} beneath Express's request`);
}

/**
 * Puts Express's prototypes on the classes of the server a request comes from: nodeCompat's
 * members (and any other plugin's) are decorations of each server's own Request and Response
 * classes, beneath which Express's `req` and `res` members must sit. Done when a request from
 * another server comes (once for an app's own server, at `app.listen()`).
 */
export function adoptServerClasses(req: object, res: object): void {
  const reqProto = Object.getPrototypeOf(req);
  if (reqProto === ownerRequest || Object.prototype.isPrototypeOf.call(expressRequest, req)) return;
  adoptServerPrototypes(reqProto, Object.getPrototypeOf(res));
}

/** {@link adoptServerClasses} given the server's prototypes themselves (`server.prototypes`). */
export function adoptServerPrototypes(request: object, response: object): void {
  if (ownerRequest === request) return;
  Object.setPrototypeOf(expressRequest, request);
  Object.setPrototypeOf(expressResponse, response);
  ownerRequest = request;
  setCoreResponse(response);
}

/**
 * True when Express's prototypes sit on `request` (a server's Request prototype) now: a module
 * variable, because asking V8 for an object's prototype per request is a call into its runtime.
 */
export function ownsPrototypes(request: object): boolean {
  return ownerRequest === request;
}

/** The Request prototype Express's request prototype sits on (see adoptServerPrototypes). */
let ownerRequest: object = Request.prototype;

/** Express 4's `req` members, over Velox's Request. */
export const expressRequest: any = Object.create(Request.prototype, {
  query: {
    get(this: any) {
      return this[kQuery];
    },
    set(this: any, value: unknown) {
      this[kQuery] = value;
    },
    configurable: true,
    enumerable: true,
  },
  // Node's req.headers: a plain object that middlewares may replace (express-mongo-sanitize
  // assigns it), made on first read from the header lines with Node's rules for repeats.
  headers: {
    get(this: any) {
      const own = this[kHeaders];
      if (own !== undefined) return own;
      return (this[kHeaders] = nodeHeaders(this.headerLines));
    },
    set(this: any, value: unknown) {
      this[kHeaders] = value;
    },
    configurable: true,
    enumerable: true,
  },
  // Unset until cookie-parser (or another middleware) assigns them, as in Express.
  cookies: { value: undefined, writable: true, configurable: true, enumerable: true },
  signedCookies: { value: undefined, writable: true, configurable: true, enumerable: true },
  secret: { value: undefined, writable: true, configurable: true, enumerable: true },
  route: { value: undefined, writable: true, configurable: true, enumerable: true },
  next: { value: undefined, writable: true, configurable: true, enumerable: true },
  body: { value: undefined, writable: true, configurable: true, enumerable: true },
  socket: {
    get(this: any) {
      const socket: any = inheritedGetter(Object.getPrototypeOf(expressRequest), 'socket').call(this);
      if (socket !== undefined && socket[kPeer] === undefined) {
        // The peer's address as Node shows it (compressed IPv6, ::ffff: on a dual-stack listener).
        Object.defineProperty(socket, 'remoteAddress', { get: () => remote(this), configurable: true });
        socket[kPeer] = true;
      }
      return socket;
    },
    configurable: true,
  },
  connection: {
    get(this: any) {
      return this.socket;
    },
    configurable: true,
  },
  protocol: {
    get(this: any) {
      const own = this.socket.encrypted ? 'https' : 'http';
      if (!trustOf(this)(remote(this), 0)) return own;
      const header: string = this.get('X-Forwarded-Proto') || own;
      const comma = header.indexOf(',');
      return comma !== -1 ? header.substring(0, comma).trim() : header.trim();
    },
    configurable: true,
  },
  secure: {
    get(this: any) {
      return this.protocol === 'https';
    },
    configurable: true,
  },
  ip: {
    get(this: any) {
      return clientAddress(peerView(this), trustOf(this));
    },
    configurable: true,
  },
  ips: {
    get(this: any) {
      const addresses = allAddresses(peerView(this), trustOf(this));
      addresses.reverse().pop();
      return addresses;
    },
    configurable: true,
  },
  hostname: {
    get(this: any) {
      let host: string | undefined = this.get('X-Forwarded-Host');
      if (!host || !trustOf(this)(remote(this), 0)) host = this.get('Host');
      else if (host.indexOf(',') !== -1) host = host.substring(0, host.indexOf(',')).trimEnd();
      if (!host) return undefined;
      const offset = host[0] === '[' ? host.indexOf(']') + 1 : 0;
      const index = host.indexOf(':', offset);
      return index !== -1 ? host.substring(0, index) : host;
    },
    configurable: true,
  },
  headersDistinct: {
    get(this: any) {
      const out: Record<string, string[]> = Object.create(null);
      const raw: string[] = this.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) (out[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
      return out;
    },
    configurable: true,
  },
  host: {
    get(this: any) {
      return this.hostname;
    },
    configurable: true,
  },
  subdomains: {
    get(this: any) {
      const hostname: string | undefined = this.hostname;
      if (!hostname) return [];
      const offset = this.app.get('subdomain offset');
      const labels = !isIP(hostname) ? hostname.split('.').reverse() : [hostname];
      return labels.slice(offset);
    },
    configurable: true,
  },
  get: {
    value: function get(this: any, name: string) {
      if (!name) throw new TypeError('name argument is required to req.get');
      if (typeof name !== 'string') throw new TypeError('name must be a string to req.get');
      const lc = name.toLowerCase();
      const headers = this.headers;
      if (lc === 'referer' || lc === 'referrer') return headers.referrer || headers.referer;
      return headers[lc];
    },
    writable: true,
    configurable: true,
  },
  param: {
    value: function param(this: any, name: string, defaultValue?: unknown) {
      const params = this.params || {};
      const body = this.body || {};
      const query = this.query || {};
      if (params[name] != null && Object.hasOwn(params, name)) return params[name];
      if (body[name] != null) return body[name];
      if (query[name] != null) return query[name];
      return defaultValue;
    },
    writable: true,
    configurable: true,
  },
});
expressRequest.header = expressRequest.get;
