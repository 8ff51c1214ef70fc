/**
 * The outgoing response: the class every handler gets, its public methods and their state.
 * Status and headers are kept in JS until the first byte goes out; response-write.ts writes them
 * and the body to uWS (cork, end, tryEnd, write, onWritable) and keeps the phase, aborted included.
 */
import type { Readable } from 'node:stream';
import type { BodyTransform } from './body-transform.ts';
import type { HttpResponse } from '@based/uws';
import { Hold } from './before-head.ts';
import { contentType, TYPES } from './content-type.ts';
import { LazyEmitter } from './emitter.ts';
import { ErrorCodes, headersSent, VeloxError } from './errors.ts';
import { type EventStream, openEventStream } from './event-stream.ts';
import { checkReason, type HeadCache, type HeaderList, type HeaderValue, JSON_ONLY as SHARED_JSON, lowerName } from './headers.ts';
import { installResponseHelpers } from './negotiation.ts';
import { type PreparedHead, PreparedHeader as PreparedHeaderClass, type PreparedHeader } from './prepared.ts';
import type { Request } from './request.ts';
import type { Server } from './server.ts';
import type { Lifecycle } from './lifecycle.ts';
import { redirect } from './redirect.ts';
import { clearCookie, type CookieOptions, setCookie } from './response-cookies.ts';
import { type StreamOptions, streamTo } from './response-stream.ts';
import * as write from './response-write.ts';
import * as symbols from './symbols.ts';
import { kAbort, kCloseAfter, kCork, kDetach, kEndVia, kFinish, kNextInflight, kPrevInflight, kReplaced } from './symbols.ts';

// What the methods use of response-write.ts and symbols.ts, as module-local constants (the symbols
// that only name members are imported as usual): V8 folds those into the optimised code, where it
// reads an imported binding from its module cell on every use (see response-write.ts).
const { corked, cut, endChunk, setAllPrepared, endPrepared, endWith, headerRecord, headerValue, noteLength, putHeader, removeHeader, setHeader, writeChunk } = write;
const Phase = write.Phase;
type Phase = write.Phase;
const kClose: typeof symbols.kClose = symbols.kClose;
const kCloseAsked: typeof symbols.kCloseAsked = symbols.kCloseAsked;
const kDeclared: typeof symbols.kDeclared = symbols.kDeclared;
const kHeaders: typeof symbols.kHeaders = symbols.kHeaders;
const kHeadersSent: typeof symbols.kHeadersSent = symbols.kHeadersSent;
const kHeads: typeof symbols.kHeads = symbols.kHeads;
const kHold: typeof symbols.kHold = symbols.kHold;
const kHooked: typeof symbols.kHooked = symbols.kHooked;
const kIsHead: typeof symbols.kIsHead = symbols.kIsHead;
const kLife: typeof symbols.kLife = symbols.kLife;
const kOnWritable: typeof symbols.kOnWritable = symbols.kOnWritable;
const kPhase: typeof symbols.kPhase = symbols.kPhase;
const kReason: typeof symbols.kReason = symbols.kReason;
const kUres: typeof symbols.kUres = symbols.kUres;

// Not an ESM import of node:http: see headers.ts.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

const RESOLVED = Promise.resolve();

/** The shared header list of json()'s responses (headers.ts), as a module-local constant. */
const JSON_ONLY: HeaderList = SHARED_JSON;
if (JSON_ONLY[1] !== TYPES.json) throw new Error('response.ts: JSON_ONLY must match TYPES.json');

/**
 * The response, handed to every middleware and handler. Every write is corked; writes after
 * the client left are dropped quietly.
 *
 * @example
 * ```ts
 * app.get('/hello', (req, res) => {
 *   res.status(201).set('x-trace', '1').cookie('seen', 'yes', { httpOnly: true }).json({ hello: 'world' });
 * });
 * ```
 */
export class Response extends LazyEmitter {
  /** The server that received the request. */
  declare readonly server: Server;
  /**
   * Always `undefined`: a response is not a thenable. It is an own field so that the engine, which
   * looks `then` up on any object a promise is resolved with (an async handler returning
   * `res.json(…)`, `await res`), finds it on the object at once instead of searching every
   * prototype (body scenario: about 670 instructions fewer per request on Node 22, callgrind;
   * Node 20 looks it up cheaply either way). Set in the constructor rather than as a field with an
   * initializer, which made the class's field initializer bigger: about 250 instructions more per
   * request on Node 20.
   */
  // biome-ignore lint/suspicious/noThenProperty: always undefined, which is what makes it no thenable (see above)
  declare readonly then: undefined;
  /** The request this response answers. */
  req: Request = null as unknown as Request; // set by the server right after construction
  /** The status code to send (Node-style, writable). */
  statusCode = 200;
  // Internal from here on: the state the write path (response-write.ts) and the helper files share
  // with the class is keyed by symbols (symbols.ts says what each holds), the rest is private.
  // Fields start with their value where they are declared; the four the constructor sets are
  // declared for the type checker only, so that each field is written once, always in the same
  // order (one hidden class), and the constructor stays small enough for V8 to inline it into the
  // route's dispatcher.
  [kReason]: string | undefined = undefined;
  declare readonly [kLife]: Lifecycle;
  declare readonly [kUres]: HttpResponse;
  [kHeaders]: HeaderList | null = null;
  declare readonly [kHeads]: HeadCache;
  [kPhase]: Phase = Phase.Sync;
  [kHeadersSent] = false;
  declare readonly [kIsHead]: boolean;
  [kClose] = false;
  /** @internal The request asked to close (keepAliveHeader only): uWS closes after the answer, which must say so. */
  [kCloseAsked] = false;
  #locals: Record<string, unknown> | undefined = undefined;
  [kOnWritable]: ((offset: number) => boolean) | undefined = undefined;
  [kHooked] = false;
  [kHold]: Hold | null = null;
  [kDeclared]: write.DeclaredBody | null = null;
  /** @internal The lifecycle's list of responses in progress (no flag of its own: see Lifecycle.finished). */
  [kPrevInflight]: Response | null = null;
  /** @internal */
  [kNextInflight]: Response | null = null;

  /** @internal Built by the server for each request. */
  constructor(life: Lifecycle, ures: HttpResponse, head: boolean, heads: HeadCache) {
    super();
    // biome-ignore lint/suspicious/noThenProperty: always undefined, which is what makes it no thenable (see above)
    (this as { then: undefined }).then = undefined;
    this.server = life.server;
    this[kLife] = life;
    this[kUres] = ures;
    this[kHeads] = heads;
    this[kIsHead] = head;
  }

  /** Per-request values for templates and later middlewares. */
  get locals(): Record<string, unknown> {
    return (this.#locals ??= {});
  }
  set locals(value: Record<string, unknown>) {
    this.#locals = value;
  }

  /** True once the status line and headers went out. */
  get headersSent(): boolean {
    return this[kHeadersSent];
  }

  /** True once the response was fully handed to uWS. */
  get finished(): boolean {
    return this[kPhase] === Phase.Done;
  }

  /** Node's name for {@link Response.finished}, as a writable stream has it. */
  get writableEnded(): boolean {
    return this[kPhase] === Phase.Done;
  }

  /** True once the response was handed to uWS (a writable stream's `writableFinished`). */
  get writableFinished(): boolean {
    return this[kPhase] === Phase.Done;
  }

  /** True until the response ended or the client left (a writable stream's `writable`). */
  get writable(): boolean {
    return this[kPhase] < Phase.Done;
  }

  /** True once the client left or the connection was cut (a writable stream's `destroyed`). */
  get destroyed(): boolean {
    return this[kPhase] === Phase.Aborted;
  }

  /** True once the client closed the connection before the response was sent. */
  get aborted(): boolean {
    return this[kPhase] === Phase.Aborted;
  }

  /**
   * Runs `task` just before the status line and headers go out (on `end`, `send`, `json`, the
   * first `write`, `stream`, or a WebSocket upgrade), and holds them back until a promise it
   * returns settles. The task may still set headers. If it throws or rejects, nothing of the
   * answer the handler gave goes out: the response starts over (status 200, no headers) and the
   * error goes to the server's error handler, whose answer is sent instead. Tasks run once, in
   * the order they were added. Only responses that use it pay for it.
   *
   * Meanwhile `finished` and `headersSent` stay false, `write()` queues its chunk and returns
   * false (`'drain'` follows once the head is out), and a client that leaves cancels the rest.
   * @example
   * ```ts
   * // Store a session before the answer that depends on it leaves.
   * res.beforeHead(async (res) => {
   *   await store.set(id, data);
   *   res.cookie('sid', id, { httpOnly: true });
   * });
   * res.redirect('/me');
   * ```
   */
  beforeHead(task: (res: Response) => unknown): this {
    if (typeof task !== 'function') throw new VeloxError(ErrorCodes.INVALID_OPTION, 'beforeHead() takes a function (res) => …');
    if (this[kHeadersSent] || this[kPhase] >= Phase.Done) throw headersSent();
    const hold = this[kHold];
    if (hold === null) this[kHold] = new Hold(this, task);
    else hold.tasks.push(task);
    return this;
  }

  /**
   * Hands the body of this response to `transform` on its way out: core's one extension point
   * for a plugin that changes the bytes a response sends (@velox/compress uses it). Core calls
   * it once, just before the head goes out, with the whole body, or with `null` when the body is
   * streamed; it returns the body to send, a {@link BodyStream} that produces it, or `undefined`
   * to leave it as it is (see {@link BodyTransform}). It sees every way a response is answered
   * (`send`, `json`, `html`, `end`, `write`, `stream`, `sse`, `sendPrepared`, error answers).
   * A response has one owner of its body: a second, different transform throws
   * `VELOX_ERR_INVALID_OPTION` (read {@link Response.bodyTransform} first). After the head went
   * out, it throws `VELOX_ERR_HEADERS_SENT`.
   * @example
   * ```ts
   * import { gzipSync } from 'node:zlib';
   * const gzip: BodyTransform = (res, body) => {
   *   if (body === null || body.length < 1024) return undefined;
   *   res.set('content-encoding', 'gzip');
   *   return gzipSync(body);
   * };
   * app.get('/big', (req, res) => res.transformBody(gzip).json(bigObject));
   * ```
   */
  transformBody(transform: BodyTransform): this {
    if (typeof transform !== 'function') throw new VeloxError(ErrorCodes.INVALID_OPTION, 'transformBody() takes a function (res, body) => body | BodyStream | undefined');
    if (this[kHeadersSent] || this[kPhase] >= Phase.Done) throw headersSent();
    const hold = this[kHold];
    const current = hold === null ? null : hold.transform;
    if (current !== null && current !== transform) {
      throw new VeloxError(
        ErrorCodes.INVALID_OPTION,
        'This response already has a body transform: a response has one owner of its body. Check res.bodyTransform before adding one.',
      );
    }
    if (hold === null) (this[kHold] = new Hold(this, null)).transform = transform;
    else hold.transform = transform;
    return this;
  }

  /** The transform given to {@link Response.transformBody}, until it stepped aside or the response ended; else undefined. */
  get bodyTransform(): BodyTransform | undefined {
    const current = this[kHold]?.transform ?? null;
    if (current === null) return undefined;
    return typeof current === 'function' ? current : current.transform;
  }

  /**
   * Sets the status code.
   * @example
   * ```ts
   * res.status(404).send('Nope');
   * ```
   */
  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 999) {
      throw new VeloxError(ErrorCodes.INVALID_OPTION, `Invalid status code: ${code}`);
    }
    this.statusCode = code;
    return this;
  }

  /**
   * Sets a header, or several from an object. Refuses names that are not HTTP tokens and values
   * with CR, LF or other control characters.
   * @example
   * ```ts
   * res.set('cache-control', 'no-store').set({ 'x-a': '1', 'x-b': ['2', '3'] });
   * ```
   */
  set(name: string | Record<string, HeaderValue | number>, value?: HeaderValue | number): this {
    if (typeof name === 'object') {
      for (const key in name) setHeader(this, key, name[key]!);
    } else setHeader(this, name, value!);
    return this;
  }

  /** Alias of {@link Response.set}. */
  header(name: string | Record<string, HeaderValue | number>, value?: HeaderValue | number): this {
    return this.set(name, value);
  }

  /**
   * Sets a header checked once beforehand (a {@link PreparedHeader}): as `set(name, value)`,
   * without checking the name and value again. Given a list of them, sets them all in one call
   * (on a response with no header yet, the list is copied whole): how a middleware that adds a
   * fixed block of headers (security headers, CORS) pays one call per request.
   * @example
   * ```ts
   * const cacheForever = new PreparedHeader('Cache-Control', 'public, max-age=31536000, immutable');
   * app.get('/assets/:file', (req, res) => res.setPrepared(cacheForever).send(asset(req.params.file)));
   * const block = [new PreparedHeader('X-Frame-Options', 'DENY'), new PreparedHeader('X-Content-Type-Options', 'nosniff')];
   * app.use((req, res, next) => { res.setPrepared(block); next(); });
   * ```
   */
  setPrepared(header: PreparedHeader | readonly PreparedHeader[]): this {
    if (this[kHeadersSent]) throw headersSent();
    if (header instanceof PreparedHeaderClass) putHeader(this, header.key, header.value, true);
    else setAllPrepared(this, header);
    return this;
  }

  /**
   * Adds a value to a header instead of replacing it.
   * @example
   * ```ts
   * res.append('link', '</a.css>; rel=preload').append('link', '</b.js>; rel=preload');
   * ```
   */
  append(name: string, value: HeaderValue): this {
    const prev = this.get(name);
    const next = prev === undefined ? value : ([] as string[]).concat(prev, value);
    setHeader(this, name, next);
    return this;
  }

  /**
   * A header set so far, by its name in any case.
   * @example
   * ```ts
   * if (res.get('content-type') === undefined) res.type('json');
   * ```
   */
  get(name: string): HeaderValue | undefined {
    return headerValue(this, lowerName(name));
  }

  /** All headers set so far. */
  getHeaders(): Record<string, HeaderValue> {
    return headerRecord(this);
  }

  /** Whether a header is set. */
  hasHeader(name: string): boolean {
    return headerValue(this, lowerName(name)) !== undefined;
  }

  /** Removes a header. */
  remove(name: string): this {
    removeHeader(this, lowerName(name));
    return this;
  }

  /**
   * Sets Content-Type from a MIME type (as given), a short name (`json`, `html`, `text`, `form`…)
   * or a file extension (`png`, `.csv`; see {@link contentType}); a name nobody knows gives
   * `application/octet-stream`.
   * @example
   * ```ts
   * res.type('html').send('<p>hi</p>');
   * ```
   */
  type(type: string): this {
    setHeader(this, 'content-type', type.includes('/') ? type : (contentType(type) ?? 'application/octet-stream'));
    return this;
  }

  /**
   * Sets a cookie; `{ signed: true }` signs it with cookie-parser's `req.secret` where
   * cookie-parser ran (as Express does), else with the first `cookieSecret`.
   * @example
   * ```ts
   * res.cookie('sid', id, { httpOnly: true, sameSite: 'lax', signed: true, maxAge: 3600_000 });
   * ```
   */
  cookie(name: string, value: string, options: CookieOptions = {}): this {
    return setCookie(this, name, value, options) as this;
  }

  /**
   * Clears a cookie (same `path` and `domain` as when it was set).
   * @example
   * ```ts
   * res.clearCookie('sid');
   * ```
   */
  clearCookie(name: string, options: Omit<CookieOptions, 'maxAge' | 'expires'> = {}): this {
    return clearCookie(this, name, options) as this;
  }

  /**
   * Sends a body and ends the response. Strings go as text/plain (unless a type is set),
   * Buffers and typed arrays as application/octet-stream, anything else as JSON.
   * @example
   * ```ts
   * res.send('Hi');
   * res.send(Buffer.from([1, 2, 3]));
   * res.send({ ok: true });
   * ```
   */
  send(body?: unknown): this {
    if (typeof body === 'string') {
      putHeader(this, 'content-type', TYPES.text!, false);
      this.#finish(body);
    } else if (body === undefined || body === null) {
      this.#finish('');
    } else if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
      putHeader(this, 'content-type', TYPES.bin!, false);
      this.#finish(body);
    } else {
      this.json(body);
    }
    return this;
  }

  /**
   * Sends a value as JSON.
   * @example
   * ```ts
   * res.json({ id: 1 });
   * ```
   */
  json(value: unknown): this {
    const text = JSON.stringify(value);
    if (this[kHeaders] === null) this[kHeaders] = JSON_ONLY;
    else putHeader(this, 'content-type', TYPES.json!, false);
    this.#finish(text ?? 'null');
    return this;
  }

  /**
   * Sends HTML.
   * @example
   * ```ts
   * res.html('<h1>Hi</h1>');
   * ```
   */
  html(markup: string): this {
    setHeader(this, 'content-type', TYPES.html!);
    this.#finish(markup);
    return this;
  }

  /**
   * Redirects, with 302 unless told otherwise.
   * @example
   * ```ts
   * res.redirect('/login');
   * res.redirect(301, 'https://example.com/');
   * ```
   */
  redirect(statusOrUrl: number | string, url?: string): this {
    redirect(this, statusOrUrl, url);
    return this;
  }

  /**
   * Sends a {@link PreparedHead} (status and headers checked and encoded once) with a body: the
   * head goes to uWS as one block of bytes. When headers were set on this response already,
   * beforeHead() tasks wait, or onSend or onResponse hooks exist, the normal path runs instead: the prepared headers are
   * added under those already set (a header set before wins), so hooks see every header.
   * Content-Length is written from the body (for HEAD requests too).
   * @example
   * ```ts
   * const head = new PreparedHead(200, { 'content-type': 'text/css; charset=utf-8', etag: '"abc"' });
   * app.get('/app.css', (req, res) => res.sendPrepared(head, css));
   * ```
   */
  sendPrepared(head: PreparedHead, body: string | Uint8Array | ArrayBuffer = ''): this {
    if (
      this[kHeaders] !== null ||
      this[kHold] !== null ||
      this[kLife].hooks.onSend.length !== 0 ||
      this[kLife].hooks.onResponse.length !== 0 ||
      // An end a middleware replaced (compression) must see this answer.
      this.end !== END
    ) {
      if (this[kPhase] < Phase.Done) this.statusCode = head.status;
      const list = head.headers;
      for (let i = 0; i < list.length; i += 2) putHeader(this, list[i] as string, list[i + 1]!, false);
      this.#finish(body);
      return this;
    }
    endPrepared(this, head, body);
    return this;
  }

  /**
   * Sends a status with its standard text as the body.
   * @example
   * ```ts
   * res.sendStatus(204);
   * ```
   */
  sendStatus(code: number): this {
    this.status(code);
    if (code === 204 || code === 304) {
      this.#finish('');
      return this;
    }
    return this.send(STATUS_CODES[code] ?? String(code));
  }

  /**
   * Writes part of a chunked body; returns false under backpressure (wait for `'drain'`).
   * @example
   * ```ts
   * res.write('a');
   * res.write('b');
   * res.end('c');
   * ```
   */
  write(chunk: string | Uint8Array, encoding?: BufferEncoding | ((err?: Error | null) => void), callback?: (err?: Error | null) => void): boolean {
    return writeChunk(this, chunk, encoding, callback);
  }

  /**
   * Ends the response, with a last chunk if given (Node-style).
   * @example
   * ```ts
   * res.statusCode = 204;
   * res.end();
   * ```
   */
  end(callback?: () => void): this;
  end(chunk: string | Uint8Array, callback?: () => void): this;
  end(chunk: string | Uint8Array, encoding?: string, callback?: () => void): this;
  end(chunk?: string | Uint8Array | (() => void), encoding?: unknown, cb?: unknown): this {
    endChunk(this, chunk, encoding, cb);
    return this;
  }

  /**
   * Runs `fn` corked, so everything it writes leaves in one syscall (and one TLS record).
   * @example
   * ```ts
   * res.atomic(() => { res.write('a'); res.write('b'); });
   * ```
   */
  atomic<T>(fn: () => T): T {
    return corked(this, fn);
  }

  /**
   * Streams a Readable with backpressure. With `size`, uses Content-Length (and uWS's tryEnd);
   * otherwise chunked encoding. Resolves when the last byte was handed over, or the client left.
   * @example
   * ```ts
   * const { size } = await stat(file);
   * await res.type('png').stream(createReadStream(file), { size });
   * ```
   */
  stream(source: Readable, options: StreamOptions = {}): Promise<void> {
    return streamTo(this, source, options);
  }

  /**
   * Starts a Server-Sent Events stream.
   * @example
   * ```ts
   * app.get('/events', (req, res) => {
   *   const events = res.sse();
   *   const timer = setInterval(() => events.send({ now: Date.now() }), 1000);
   *   res.on('close', () => clearInterval(timer));
   * });
   * ```
   */
  sse(): EventStream {
    return openEventStream(this);
  }

  /**
   * Closes the connection at once, without a proper response (the client sees it cut).
   * @example
   * ```ts
   * if (suspicious) return res.destroy();
   * ```
   */
  destroy(): void {
    cut(this);
  }

  /**
   * The reason phrase of the status line: the standard one of `statusCode` (`Not Found`) unless
   * set. Setting it (before the head goes out) sends that text instead, as Node's
   * `res.statusMessage` does (an empty text or undefined: the standard one again); a text with
   * CR, LF or another control character throws `VELOX_ERR_INVALID_HEADER`. A prepared head
   * (`res.prepared`) keeps its own line.
   * @example
   * ```ts
   * res.status(203);
   * res.statusMessage = 'From Cache';
   * res.send('cached'); // HTTP/1.1 203 From Cache
   * ```
   */
  get statusMessage(): string {
    return this[kReason] ?? STATUS_CODES[this.statusCode] ?? '';
  }

  set statusMessage(text: string | undefined) {
    // Empty or unset: the standard phrase (what Node's writeHead falls back to).
    this[kReason] = text === undefined || text === null || text === '' ? undefined : checkReason(text);
  }

  /** @internal The uWS callback returned without a full answer. */
  [kDetach](): void {
    if (this[kPhase] === Phase.Sync) this[kPhase] = Phase.Async;
  }

  /**
   * @internal Called from uWS's data callback for this connection. uWS has corked the socket and
   * runs the microtasks queued now before it uncorks, so an answer written by the code that
   * awaited the body needs no cork() of its own (a cork call from JS costs about as much as
   * writing a header). A microtask queued last puts the phase back for anything later, so
   * this must be called after the body's promise was settled: the continuation of an `await` on
   * it is queued at that moment and then runs first.
   */
  [kCork](): void {
    if (this[kPhase] !== Phase.Async) return;
    this[kPhase] = Phase.Sync;
    // Not queueMicrotask: Node wraps each call in an AsyncResource, several times the cost. The
    // response waits in a module variable for a module function: a closure made per call costs
    // more (made, then compiled lazily on its one call) than the write barrier of that store.
    // A second response before that microtask ran (not seen with uWS) gets a closure.
    if (uwsCorked === null) {
      uwsCorked = this;
      RESOLVED.then(uncork);
    } else {
      RESOLVED.then(() => {
        if (this[kPhase] === Phase.Sync) this[kPhase] = Phase.Async;
      });
    }
  }

  /**
   * How send, json, html, redirect and sendStatus end. A response whose end a middleware replaced
   * (compression, express-session) ends the way Express's res.send does: Content-Length set from
   * the body (unless the status has none or it is set), then through res.end, replaced; any
   * other goes straight to endWith (response-write.ts). One load and compare: a replaced method
   * lives on the instance, the original on the prototype.
   */
  #finish(body: string | Uint8Array | ArrayBuffer): void {
    if (this.end === END) endWith(this, body);
    else endReplaced(this, body);
  }

  // What the helper files (before-head.ts, response-stream.ts, event-stream.ts, redirect.ts)
  // reach beside the fields above and the functions of response-write.ts.
  /** @internal */
  [kFinish](body: string | Uint8Array | ArrayBuffer): void {
    this.#finish(body);
  }
  /** @internal Ends through a middleware's end (compression must flush), else directly. */
  [kEndVia](body: string): void {
    if (this.end !== END) this.end(body);
    else endWith(this, body);
  }
  /** @internal */
  get [kReplaced](): boolean {
    return this.write !== WRITE || this.end !== END || (this[kHold] !== null && this[kHold].transform !== null);
  }

  /** @internal The server is shutting down: ask the client to close the connection. */
  [kCloseAfter](): void {
    this[kClose] = true;
  }

  /** @internal uWS reported the connection gone. */
  [kAbort](): boolean {
    if (this[kPhase] >= Phase.Done) return false;
    this[kPhase] = Phase.Aborted;
    if (this[kHold] !== null) write.dropTransform(this);
    return true;
  }

  // The HTTP helpers every framework has, defined on the prototype by negotiation.ts (types only here).
  /**
   * Adds a field to the Vary header (once).
   * @example
   * ```ts
   * res.vary('Accept-Language');
   * ```
   */
  declare vary: (field: string | string[]) => this;
}

/** How {@link Response.send} and the others end when a middleware replaced `res.end` (kept apart from #finish, which stays small). */
function endReplaced(res: Response, body: string | Uint8Array | ArrayBuffer): void {
  if (!res.headersSent) noteLength(res, body);
  res.end(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
}

/** The response [kCork] put in the Sync phase, until the microtask it queued ({@link uncork}) runs. */
let uwsCorked: Response | null = null;

function uncork(): void {
  const res = uwsCorked!;
  uwsCorked = null;
  if (res[kPhase] === Phase.Sync) res[kPhase] = Phase.Async;
}

/** The prototype's own methods: a middleware that replaced one on an instance is told apart by identity. */
const END = Response.prototype.end;
const WRITE = Response.prototype.write;

// res.vary (negotiation.ts). The Node.js/Express members that `nodeCompat` of @velox/express
// provides are placeholders until it does (placeholders.ts).
installResponseHelpers(Response.prototype);

// The emitter's methods live on Response.prototype itself, which inherits from Object.prototype
// directly (the class still extends LazyEmitter for its constructor and types): a name that is
// not found (`res.then` was one, before it became an own field) is looked for along one link
// fewer.
for (const key of Reflect.ownKeys(LazyEmitter.prototype)) {
  if (key === 'constructor' || Object.hasOwn(Response.prototype, key)) continue;
  Object.defineProperty(Response.prototype, key, Object.getOwnPropertyDescriptor(LazyEmitter.prototype, key)!);
}
Object.setPrototypeOf(Response.prototype, Object.prototype);
