/**
 * The incoming request. Everything is read lazily: while the uWS callback runs, straight from
 * uWS's HttpRequest; if the handler goes async, what it may still need is copied once before
 * the callback returns (uWS's HttpRequest lives on the stack of that callback).
 */
import type { Buffer } from 'node:buffer';
import type { Readable } from 'node:stream';
import type { HttpRequest, HttpResponse } from '@based/uws';
import { As, type Body } from './body.ts';
import { Bag } from './bag.ts';
import { cookieInLine, isOwnCookies, parseCookieHeader, readSignedCookies } from './cookies.ts';
import { ErrorCodes, VeloxError } from './errors.ts';
import { copyHeaderList, encode, headerRecord } from './headers.ts';
import { forwardedChain, hostname, protocol, textAddress } from './forwarded.ts';
import { installRequestHelpers } from './negotiation.ts';
import { type BodyStreamOptions, bodyStream, openBody, readBody, readJson, readUrlencoded } from './request-body.ts';
import { parseQuery } from './query.ts';
import type { Response } from './response.ts';
import type { Server } from './server.ts';
import {
  kAbort,
  kBaseUrl,
  kBody,
  kBodyUnstarted,
  kCloseAfter,
  kConfig,
  kContentType,
  kDetach,
  kEnd,
  kFraming,
  kKeepAddress,
  kOriginalUrl,
  kOverflowed,
  kRelease,
  kUnreadBody,
} from './symbols.ts';
import type { Headers, JsonOptions, Query } from './types.ts';


/**
 * Headers that `get()` always reads whole, repeats joined, even while uWS's request is live (uWS's
 * getHeader gives only the first line). A proxy appends its hop as a separate line as often as to
 * the existing one: reading only the first X-Forwarded-For line would hand the client-written
 * value to `req.ip`.
 */
const WHOLE_HEADERS = new Set(['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded', 'cookie']);

const EMPTY_PARAMS: Record<string, string> = Object.freeze(new Bag<string>());

/** Header names asked of uWS, as UTF-8 bytes (128 names at most). */
const NAME_BYTES = new Map<string, ArrayBuffer>();

/**
 * A header name as uWS reads it fastest: a string is converted to UTF-8 on each call, an
 * ArrayBuffer is read as it is, so the names asked often are encoded once.
 */
function nameBytes(name: string): ArrayBuffer | string {
  const bytes = NAME_BYTES.get(name);
  if (bytes !== undefined) return bytes;
  if (NAME_BYTES.size >= 128 || typeof name !== 'string') return name;
  const encoded = encode(name);
  NAME_BYTES.set(name, encoded);
  return encoded;
}

/**
 * The incoming HTTP request, handed to every middleware and handler.
 * Add your own typed properties through module augmentation.
 *
 * The type parameters are what a route knows about its parameters and query string: route
 * methods infer `Params` from the pattern, and a typed middleware (`validate()`) may replace
 * either with its schema's output. A route's `req` stays a `Request`, so it can be passed to any
 * function that takes one, as long as its params and query fit that function's (plain strings
 * fit `Request`). A function that takes a request whatever its params and query are (numbers
 * from a schema, say) is best typed `Request<unknown, unknown>`.
 *
 * @typeParam Params - the type of `req.params`.
 * @typeParam Q - the type of `req.query`.
 *
 * @example
 * ```ts
 * app.post('/users/:id', async (req, res) => {
 *   const body = await req.json();
 *   res.json({ id: req.params.id, page: req.query.page, agent: req.get('user-agent'), body });
 * });
 *
 * declare module '@velox/core' {
 *   interface Request { user?: { id: string } }
 * }
 * ```
 */
export class Request<Params = Record<string, string>, Q = Query> {
  /** The server that received this request. */
  declare readonly server: Server;
  /** The response paired with this request. */
  declare readonly res: Response;
  /** The HTTP method, upper-case. */
  declare method: string;
  /** Route parameters, percent-decoded (`/users/:id` gives `params.id`; a `/*` route gives `params['*']`). */
  declare params: Params;

  #ureq: HttpRequest | null;
  #ures: HttpResponse;
  #path: string | undefined;
  #rawQuery: string | undefined;
  /** `url` when the query string is not empty, built on first read (undefined until then). */
  #url: string | undefined;
  #query: Query | undefined;
  #headers: Headers | undefined;
  #rawHeaders: string[] | undefined;
  /** Undefined until read or assigned. */
  #cookies: Record<string, string> | undefined;
  #signedCookies: Record<string, string | false> | undefined;
  #remote: string | undefined;
  #body: Body | undefined | null;
  /** Set when the framing headers were found unsafe; every body read fails with it. */
  #framing: VeloxError | undefined;
  #locals: Record<string, unknown> | undefined;

  /** @internal Built by the server for each request. */
  constructor(server: Server, ureq: HttpRequest, ures: HttpResponse, res: Response, method: string, path?: string) {
    this.server = server;
    this.res = res;
    this.method = method;
    this.params = EMPTY_PARAMS as Params;
    this.#ureq = ureq;
    this.#ures = ures;
    this.#path = path;
    // The other fields start undefined: the class's field initializer, which runs before this
    // (private fields cannot be only declared), defines them so. Storing undefined again here
    // would be eleven more stores per request, and a constructor too big for V8 to inline. (The
    // public fields are only declared, for the same reason: the initializer would define them
    // too, and this would store each twice.)
  }

  /** A place for middlewares to leave per-request data (made on first use). */
  get locals(): Record<string, unknown> {
    return (this.#locals ??= {});
  }

  /** The path, without the query string, as sent (not decoded). */
  get path(): string {
    return (this.#path ??= this.#live().getUrl());
  }

  /** The path and query string, as sent. */
  get url(): string {
    const q = this.rawQuery;
    // Built once: routers read it once per layer and compare it with the last one they saw.
    return q ? (this.#url ??= `${this.path}?${q}`) : this.path;
  }
  set url(value: string) {
    // Some middlewares rewrite req.url, and so do mount points: keep path and query in step,
    // keep the parsed query when the query string did not change, and remember the URL as
    // received for req.originalUrl.
    this[kOriginalUrl] ??= this.url;
    const i = value.indexOf('?');
    const rawQuery = i < 0 ? '' : value.slice(i + 1);
    this.#path = i < 0 ? value : value.slice(0, i);
    if (rawQuery !== this.#rawQuery) this.#query = undefined;
    this.#rawQuery = rawQuery;
    this.#url = undefined;
  }

  /** The URL as received, before any middleware or mount point rewrote `req.url` (Express's `originalUrl`). */
  get originalUrl(): string {
    return this[kOriginalUrl] ?? this.url;
  }
  set originalUrl(value: string) {
    this[kOriginalUrl] = String(value);
  }

  /** The part of the path the running middleware is mounted at (`use('/static', mw)`), else `''`. */
  get baseUrl(): string {
    return this[kBaseUrl] ?? '';
  }
  set baseUrl(value: string) {
    this[kBaseUrl] = String(value);
  }

  /** The raw query string, without `?`. */
  get rawQuery(): string {
    return (this.#rawQuery ??= this.#live().getQuery() ?? '');
  }

  /** The parsed query string (or what a typed middleware such as `validate()` replaced it with). */
  get query(): Q {
    if (this.#query) return this.#query as Q;
    const raw = this.rawQuery;
    return (this.#query = raw ? parseQuery(raw) : new Bag<string>()) as Q;
  }
  set query(value: Q) {
    this.#query = value as Query;
  }

  /** All headers, lower-case names. */
  get headers(): Headers {
    if (this.#headers) return this.#headers;
    return (this.#headers = headerRecord(this.#rawHeaders ?? this.#copyHeaders()));
  }

  /**
   * Every header line as it came, in order: `[name, value, name, value, …]`, names lower-case
   * (uWS gives no other). A header sent on several lines stays on several lines here, where
   * `headers` joins it: what Node's `rawHeaders` and `headersDistinct` are read from. Read-only.
   * @example
   * ```ts
   * // X-Tag: a, then X-Tag: b
   * req.headerLines; // ['host', 'example.com', 'x-tag', 'a', 'x-tag', 'b']
   * req.headers['x-tag']; // 'a, b'
   * ```
   */
  get headerLines(): readonly string[] {
    return this.#rawHeaders ?? this.#copyHeaders();
  }

  /**
   * Copies every header out of uWS as a flat [name, value, …] list: the cheapest copy (one push
   * per header), made when the handler goes async. The record is built from it on first use.
   */
  #copyHeaders(): string[] {
    return (this.#rawHeaders = copyHeaderList(this.#live()));
  }

  /**
   * The first line of one header from the copied list, `''` when absent. The list is there
   * whenever the record is (`headers` is built from it), and stays as received: the record joins
   * repeated lines, and a middleware may have changed it.
   */
  #firstLine(name: string): string {
    const raw = this.#rawHeaders ?? this.#copyHeaders();
    for (let i = 0; i < raw.length; i += 2) if (raw[i] === name) return raw[i + 1]!;
    return '';
  }

  /**
   * One header by name (any case); `referrer` and `referer` are the same header. Until something
   * reads `req.headers` or the handler goes async, this asks uWS directly, which gives only the
   * first line of a header sent on several lines; otherwise (and always for Cookie, Forwarded and
   * the X-Forwarded-* headers) repeated lines are joined as in `req.headers`.
   * @example
   * ```ts
   * const type = req.get('Content-Type');
   * ```
   */
  get(name: string): string | undefined {
    let key = name.toLowerCase();
    if (key === 'referrer') key = 'referer';
    if (this.#headers || !this.#ureq || WHOLE_HEADERS.has(key)) return this.headers[key];
    // uWS answers the first occurrence, or '' when absent: only an absent header is ''
    // often enough to matter, and then the full list settles it.
    const value = this.#ureq.getHeader(key);
    return value !== '' ? value : this.headers[key];
  }

  /**
   * The first line of a header by its lower-case name, `''` when absent: the cheapest read, for
   * hot paths that treat an empty header as an absent one (conditional and range headers, say).
   * Always the first line as received, whether or not `req.headers` was built (which joins
   * repeated lines). Nothing is copied or joined while uWS's request is live; after that, the
   * copy of the header lines is searched.
   * @example
   * ```ts
   * if (req.firstHeader('if-none-match') === etag) return res.sendStatus(304);
   * ```
   */
  firstHeader(name: string): string {
    const ureq = this.#ureq;
    // uWS's getHeader answers the first line, as received, built record or not.
    if (ureq !== null) return ureq.getHeader(nameBytes(name));
    return this.#firstLine(name);
  }

  /** Alias of {@link Request.get}, as in Express. */
  header(name: string): string | undefined {
    return this.get(name);
  }

  /**
   * Cookies sent with the request, parsed on first read. A middleware may assign it (on a server
   * with `nodeCompat` of `@velox/express`, cookie-parser does, as in Express: `j:` JSON cookies
   * decoded, signed ones moved to `signedCookies`). With `parseCookies: false`, whatever a
   * middleware set here, else undefined.
   */
  get cookies(): Record<string, string> {
    const cookies = this.#cookies;
    if (cookies) return cookies;
    if (!this.server[kConfig].parseCookies) return undefined!;
    const header = this.get('cookie');
    return (this.#cookies = header ? (parseCookieHeader(header) as Record<string, string>) : new Bag<string>());
  }
  set cookies(value: Record<string, string>) {
    this.#cookies = value;
  }

  /**
   * One cookie by name: the same value as `req.cookies[name]`, found with less work. While
   * nothing has read `req.cookies` and uWS's request is live, only the first Cookie line is
   * parsed, and a cookie found there is the answer (the first of a repeated name wins, as in the
   * joined header); otherwise, or when it is not there, this reads `req.cookies`. Undefined when
   * there is no such cookie (or, with `parseCookies: false`, nothing a middleware assigned).
   * @example
   * ```ts
   * const theme = req.getCookie('theme') ?? 'light';
   * ```
   */
  getCookie(name: string): string | undefined {
    const ureq = this.#ureq;
    if (this.#cookies === undefined && ureq !== null && this.#headers === undefined && this.server[kConfig].parseCookies) {
      const first = ureq.getHeader('cookie');
      if (first !== '') {
        const value = cookieInLine(first, name);
        if (value !== undefined) return value;
      }
    }
    return this.cookies?.[name];
  }

  /**
   * True when a middleware assigned `req.cookies`; false while it holds what Velox parsed from
   * the Cookie header, or nothing yet. Reading it parses nothing. A middleware that parses
   * cookies its own way checks it to leave another's result alone.
   * @example
   * ```ts
   * app.use((req, res, next) => {
   *   if (!req.cookiesAssigned) req.cookies = parseMyWay(req.get('cookie'));
   *   next();
   * });
   * ```
   */
  get cookiesAssigned(): boolean {
    const cookies = this.#cookies;
    return cookies !== undefined && cookies !== null && !isOwnCookies(cookies);
  }

  /**
   * Cookies set with `res.cookie(name, value, { signed: true })` whose signature checks out
   * against any of the server's `cookieSecret`s; a tampered cookie reads as `false`. Without a
   * `cookieSecret` nothing can be verified, and this is empty. A middleware may assign it: on a
   * route where cookie-parser runs, this is cookie-parser's result (checked against its secrets).
   * With `parseCookies: false`, whatever a middleware set here.
   */
  get signedCookies(): Record<string, string | false> {
    if (this.#signedCookies || !this.server[kConfig].parseCookies) return this.#signedCookies!;
    const secrets = this.server[kConfig].secrets;
    // No secret, nothing to verify: the Cookie header is not even parsed.
    return (this.#signedCookies = readSignedCookies(secrets.length > 0 ? this.cookies : {}, secrets));
  }
  set signedCookies(value: Record<string, string | false>) {
    this.#signedCookies = value;
  }

  /** The address of the peer that opened the connection. */
  get socketAddress(): string {
    if (this.#remote !== undefined) return this.#remote;
    if (this.res.finished || this.res.aborted) return '';
    return (this.#remote = textAddress(this.#ures.getRemoteAddressAsText()));
  }

  /** The client address: the socket's, or with `trustProxy`, the closest untrusted one in `X-Forwarded-For`. */
  get ip(): string {
    const ips = forwardedChain(this, this.server[kConfig].trust);
    return ips[ips.length - 1] ?? '';
  }

  /** With `trustProxy`: the client address and the proxies it came through, client first. Else empty. */
  get ips(): string[] {
    if (!this.server[kConfig].trust) return [];
    return forwardedChain(this, this.server[kConfig].trust).slice(1).reverse();
  }

  /** The host name from `Host` (or `X-Forwarded-Host` with `trustProxy`), without the port. */
  get hostname(): string {
    return hostname(this, this.server[kConfig].trust);
  }

  /** `https` or `http`; with `trustProxy`, `X-Forwarded-Proto` counts. */
  get protocol(): string {
    return protocol(this, this.server[kConfig].trust, this.server[kConfig].tls ? 'https' : 'http');
  }

  /** True for `https`. */
  get secure(): boolean {
    return this.protocol === 'https';
  }

  /** True once the client closed the connection before the response was sent. */
  get aborted(): boolean {
    return this.res.aborted;
  }

  /**
   * Reads the body as text (UTF-8), up to `maxBodyLength`.
   * @example
   * ```ts
   * app.post('/echo', async (req, res) => res.send(await req.text()));
   * ```
   */
  text(): Promise<string> {
    return readBody(this, As.Text);
  }

  /**
   * Reads the body as a Buffer, up to `maxBodyLength`.
   * @example
   * ```ts
   * app.put('/blob', async (req, res) => res.send(`${(await req.buffer()).length} bytes`));
   * ```
   */
  buffer(): Promise<Buffer> {
    return readBody(this, As.Buffer);
  }

  /**
   * Reads and parses a JSON body. The Content-Type must be a JSON media type
   * (`application/json`, or any `+json` type; parameters such as `charset` are fine), else 415
   * `VELOX_ERR_UNSUPPORTED_MEDIA_TYPE`, unless `{ anyType: true }`. Malformed JSON, or no body,
   * answers 400 `VELOX_ERR_BAD_JSON`.
   * @example
   * ```ts
   * app.post('/json', async (req, res) => res.json(await req.json()));
   * app.post('/beacon', async (req, res) => res.json(await req.json({ anyType: true })));
   * ```
   */
  json<T = any>(options?: JsonOptions): Promise<T> {
    return readJson(this, options);
  }

  /**
   * Reads and parses an `application/x-www-form-urlencoded` body.
   * @example
   * ```ts
   * app.post('/form', async (req, res) => res.send((await req.urlencoded()).name));
   * ```
   */
  urlencoded(): Promise<Query> {
    return readUrlencoded(this);
  }

  /**
   * The body as a Readable stream with backpressure: uWS is paused while the consumer is slow,
   * and what it reads meanwhile beyond `bodyBufferSize` waits in a temporary file (see the
   * README: Backpressure on request bodies). Not bounded by `maxBodyLength`: give `limit`, which
   * counts the bytes as they arrive, read or not (413 past it). Made once: later calls return
   * the same stream (and ignore their options).
   * @example
   * ```ts
   * app.post('/upload', async (req, res) => {
   *   await pipeline(req.stream({ limit: 100 * 1024 * 1024 }), createWriteStream('/tmp/upload'));
   *   res.sendStatus(201);
   * });
   * ```
   */
  stream(options?: BodyStreamOptions): Readable {
    return bodyStream(this, options);
  }

  /**
   * Iterates over the body's chunks.
   * @example
   * ```ts
   * let size = 0;
   * for await (const chunk of req) size += chunk.length;
   * ```
   */
  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this.stream()[Symbol.asyncIterator]();
  }

  #getBody(): Body | null {
    if (this.#body !== undefined) return this.#body;
    if (!this.#ureq) return (this.#body = null); // no body was announced before the handler went async
    return this.#startBody();
  }

  #startBody(): Body | null {
    // A body means the handler goes async, and then every header is copied anyway: copy them
    // now and read the framing headers from the copy rather than asking uWS again.
    const headers = this.#headers;
    const body = openBody(this.#ures, this.res, headers, headers ? undefined : (this.#rawHeaders ?? this.#copyHeaders()));
    if (typeof body === 'string') return this.#badFraming(body);
    return (this.#body = body);
  }

  /** The framing is unsafe: no body is read, reads fail with 400, and the connection closes after the answer. */
  #badFraming(why: string): null {
    this.#framing = new VeloxError(ErrorCodes.BAD_FRAMING, `Bad request framing: ${why}`, { status: 400 });
    this.res[kCloseAfter]();
    return (this.#body = null);
  }

  #live(): HttpRequest {
    return this.#ureq ?? requestGone();
  }

  /** @internal The uWS callback is about to return: copy what may be needed later and start the body. */
  [kDetach](): void {
    // Only called while the response is still open (a finished one goes through _release).
    const ureq = this.#ureq;
    if (!ureq) return;
    this.#path ??= ureq.getUrl();
    this.#rawQuery ??= ureq.getQuery() ?? '';
    if (!this.#headers && !this.#rawHeaders) this.#copyHeaders();
    if (this.#body === undefined) this.#startBody();
    this.#ureq = null;
  }

  /**
   * True once a reader took the body (`text()`, `json()`, `buffer()`, `urlencoded()`,
   * `stream()`, or a parser reading through them), as in fetch's `Request.bodyUsed`; false
   * while it is unread, and for a request without a body. Reading it consumes nothing.
   * @example
   * ```ts
   * if (!req.bodyUsed) body = await req.json();
   * ```
   */
  get bodyUsed(): boolean {
    return this.#getBody()?.used === true;
  }

  /**
   * True once the whole body has arrived, whether or not anything read it (at once for a
   * request without a body). Reading it consumes nothing.
   * @example
   * ```ts
   * res.set('x-upload', req.bodyComplete ? 'whole' : 'partial');
   * ```
   */
  get bodyComplete(): boolean {
    const body = this.#getBody();
    return body === null || body.complete;
  }

  /** @internal The uWS callback returned after the response was sent: uWS's request is gone. */
  [kRelease](): void {
    this.#ureq = null;
  }

  /** @internal True while no body reader started and uWS's request is still live. */
  get [kBodyUnstarted](): boolean {
    return this.#body === undefined && this.#ureq !== null;
  }

  /** @internal The response is ending: drop any unread body (uWS's request stays readable until the callback returns). */
  [kEnd](): void {
    if (this.#body) this.#body.discard();
  }

  /** @internal Keep the client address for readers after the response ended (uWS forgets it then). */
  [kKeepAddress](): void {
    if (this.#remote === undefined && !this.res.finished && !this.res.aborted) this.socketAddress;
  }

  /** @internal The client went away. */
  [kAbort](): void {
    if (this.#body) this.#body.abort();
    this.#ureq = null;
  }

  /** @internal The body (started now if it was not yet), or null when there is none to read (request-body.ts). */
  [kBody](): Body | null {
    return this.#getBody();
  }

  /** @internal The error every body read fails with when the framing was unsafe (request-body.ts). */
  get [kFraming](): VeloxError | undefined {
    return this.#framing;
  }

  /**
   * @internal The Content-Type `body` started with (request-body.ts), or the record's when
   * `req.headers` was built (a middleware may have changed it there).
   */
  [kContentType](body: Body): string | undefined {
    return this.#headers ? this.#headers['content-type'] : body.contentType;
  }

  /**
   * @internal The body still to come, for an answer that refuses it (started now if it was not
   * yet, while uWS's request is live); null when no body was announced or all of it arrived.
   */
  [kUnreadBody](): Body | null {
    const body = this.#getBody();
    return body && !body.complete ? body : null;
  }

  /** @internal Whether an unread body was cut off at the limit (the connection must close). */
  get [kOverflowed](): boolean {
    return this.#body?.overflowed === true;
  }

  /** Set by a body parser (body-parser, `express.json()`, multer…); `@velox/validate` reads it when present. */
  declare body?: unknown;
  /**
   * Set by cookie-parser (its first secret) on the routes where it runs; as in Express,
   * `res.cookie(name, value, { signed: true })` then signs with it rather than with `cookieSecret`.
   */
  declare secret?: string;
  /** @internal Kept by the `url` setter, read by `originalUrl`. */
  declare [kOriginalUrl]?: string;
  /** @internal Kept by the mount points (mount.ts), read by `baseUrl`. */
  declare [kBaseUrl]?: string;

  // The HTTP helpers every framework has, defined on the prototype by negotiation.ts (types only here).
  /**
   * Which of the given types the request's Content-Type matches: the matching type, `false`,
   * or `null` when the request has no body.
   * @example
   * ```ts
   * if (req.is('json')) body = await req.json();
   * ```
   */
  declare is: (...types: Array<string | string[]>) => string | false | null;
  /**
   * The best of the given types for the Accept header, or `false`; with no argument, the
   * accepted types in order of preference.
   * @example
   * ```ts
   * req.accepts('html', 'json'); // 'json' for Accept: application/json
   * ```
   */
  declare accepts: (...types: Array<string | string[]>) => string | false | string[];
  /** Like `accepts`, for Accept-Encoding. @example req.acceptsEncodings('gzip', 'br'); */
  declare acceptsEncodings: (...encodings: Array<string | string[]>) => string | false | string[];
  /** Like `accepts`, for Accept-Charset. @example req.acceptsCharsets('utf-8'); */
  declare acceptsCharsets: (...charsets: Array<string | string[]>) => string | false | string[];
  /** Like `accepts`, for Accept-Language. @example req.acceptsLanguages('en', 'fr'); */
  declare acceptsLanguages: (...languages: Array<string | string[]>) => string | false | string[];
  /**
   * True for a GET or HEAD whose client copy is current: the response's ETag or Last-Modified
   * (set before reading this) matches If-None-Match / If-Modified-Since. Answer 304 then.
   */
  declare readonly fresh: boolean;
  /** `!req.fresh`. */
  declare readonly stale: boolean;
}

/** What reading uWS's request after it is gone throws (kept out of #live, which stays small enough to inline). */
function requestGone(): never {
  throw new VeloxError(
    ErrorCodes.INVALID_OPTION,
    'Request data was read after the response was sent from the synchronous part of the handler; read it before sending',
  );
}

// The HTTP helpers (negotiation.ts). The Node.js/Express members that `nodeCompat` of
// @velox/express provides are placeholders until it does (placeholders.ts).
installRequestHelpers(Request.prototype);


