/**
 * The outgoing response: the one place that knows about uWS's cork, end, tryEnd, write,
 * onWritable and the aborted state. Status and headers are kept in JS until the first byte goes out.
 */
import { Buffer } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import type { HttpResponse, us_socket_context_t } from '@based/uws';
import { Bag } from './bag.ts';
import { Hold } from './before-head.ts';
import { refuseRest } from './body.ts';
import { contentType, TYPES } from './content-type.ts';
import { LazyEmitter } from './emitter.ts';
import { ErrorCodes, headersSent, VeloxError } from './errors.ts';
import { type EventStream, openEventStream } from './event-stream.ts';
import { checkName, checkReason, checkValue, type HeadCache, type HeaderList, type HeaderValue, indexOfHeader, lowerName } from './headers.ts';
import { installResponseHelpers } from './negotiation.ts';
import type { PreparedHead } from './prepared.ts';
import type { Request } from './request.ts';
import type { Server } from './server.ts';
import type { Lifecycle } from './lifecycle.ts';
import { redirect } from './redirect.ts';
import { clearCookie, type CookieOptions, setCookie } from './response-cookies.ts';
import { type StreamOptions, streamTo } from './response-stream.ts';
import {
  kAbort,
  kCloseAfter,
  kContext,
  kCork,
  kDetach,
  kEnd,
  kEndVia,
  kFinish,
  kHasListeners,
  kHold,
  kInflight,
  kIsHead,
  kKeepAddress,
  kNextInflight,
  kOverflowed,
  kPrevInflight,
  kReplaced,
  kSetHeader,
  kStartOver,
  kTakeHold,
  kTryEnd,
  kUnreadBody,
  kUpgrade,
} from './symbols.ts';

const enum Phase {
  /** Inside uWS's callback: uWS has corked the socket for us. */
  Sync = 0,
  /** After the callback returned: every write must cork. */
  Async = 1,
  Done = 2,
  Aborted = 3,
}

const RESOLVED = Promise.resolve();

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
  readonly server: Server;
  /** The request this response answers. */
  req: Request = null as unknown as Request; // set by the server right after construction
  /** The status code to send (Node-style, writable). */
  statusCode = 200;
  /** A reason phrase set through `statusMessage`, else undefined (the standard one goes out). */
  #reason: string | undefined = undefined;

  // Fields start with their value where they are declared and the constructor sets only the
  // others: each field is written once, and the constructor stays small enough for V8 to
  // inline it into the route's dispatcher.
  #life: Lifecycle;
  #ures: HttpResponse;
  #headers: HeaderList | null = null;
  #heads: HeadCache;
  #phase = Phase.Sync;
  #headersSent = false;
  #head: boolean;
  #close = false;
  #locals: Record<string, unknown> | undefined = undefined;
  #onWritable: ((offset: number) => boolean) | undefined = undefined;
  #hooked = false;
  /** Tasks of beforeHead() not yet run, and the writes waiting for them; null on the common path. */
  #hold: Hold | null = null;

  /** @internal The lifecycle's list of responses in progress. */
  [kInflight] = false;
  /** @internal */
  [kPrevInflight]: Response | null = null;
  /** @internal */
  [kNextInflight]: Response | null = null;

  /** @internal Built by the server for each request. */
  constructor(life: Lifecycle, ures: HttpResponse, head: boolean, heads: HeadCache) {
    super();
    this.server = life.server;
    this.#life = life;
    this.#ures = ures;
    this.#heads = heads;
    this.#head = head;
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
    return this.#headersSent;
  }

  /** True once the response was fully handed to uWS. */
  get finished(): boolean {
    return this.#phase === Phase.Done;
  }

  /** Node's name for {@link Response.finished}, as a writable stream has it. */
  get writableEnded(): boolean {
    return this.#phase === Phase.Done;
  }

  /** True once the response was handed to uWS (a writable stream's `writableFinished`). */
  get writableFinished(): boolean {
    return this.#phase === Phase.Done;
  }

  /** True until the response ended or the client left (a writable stream's `writable`). */
  get writable(): boolean {
    return this.#phase < Phase.Done;
  }

  /** True once the client left or the connection was cut (a writable stream's `destroyed`). */
  get destroyed(): boolean {
    return this.#phase === Phase.Aborted;
  }

  /** True once the client closed the connection before the response was sent. */
  get aborted(): boolean {
    return this.#phase === Phase.Aborted;
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
    if (this.#headersSent || this.#phase >= Phase.Done) throw headersSent();
    const hold = this.#hold;
    if (hold === null) this.#hold = new Hold(this, task);
    else hold.tasks.push(task);
    return this;
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
      for (const key in name) this.#set(key, name[key]!);
      return this;
    }
    return this.#set(name, value!);
  }

  /** Alias of {@link Response.set}. */
  header(name: string | Record<string, HeaderValue | number>, value?: HeaderValue | number): this {
    return this.set(name, value);
  }

  /** Sets one header, checked. */
  #set(name: string, value: HeaderValue | number): this {
    if (this.#headersSent) throw headersSent();
    const key = checkName(name);
    // Arrays are stored frozen: get() and getHeaders() hand them out, and a value pushed into one
    // later would reach the wire unchecked (all headers are joined into one uWS call).
    const checked = Array.isArray(value) ? (Object.freeze(value.map((v) => checkValue(name, v))) as string[]) : checkValue(name, value);
    this.#put(key, checked, true);
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
    return this.#set(name, next);
  }

  /**
   * A header set so far, by its name in any case.
   * @example
   * ```ts
   * if (res.get('content-type') === undefined) res.type('json');
   * ```
   */
  get(name: string): HeaderValue | undefined {
    return this.#value(lowerName(name));
  }

  /** All headers set so far. */
  getHeaders(): Record<string, HeaderValue> {
    const out = new Bag<HeaderValue>();
    const list = this.#headers ?? [];
    for (let i = 0; i < list.length; i += 2) out[list[i] as string] = list[i + 1]!;
    return out;
  }

  /** Whether a header is set. */
  hasHeader(name: string): boolean {
    return this.#value(lowerName(name)) !== undefined;
  }

  /** Removes a header. */
  remove(name: string): this {
    const list = this.#headers;
    const i = list === null ? -1 : indexOfHeader(list, lowerName(name));
    if (i >= 0) list!.splice(i, 2);
    return this;
  }

  /** The value of a header set so far, by its lower-case name. */
  #value(key: string): HeaderValue | undefined {
    const list = this.#headers;
    if (list === null) return undefined;
    const i = indexOfHeader(list, key);
    return i < 0 ? undefined : list[i + 1];
  }

  /** Stores a checked header; one already set is replaced only when `replace` is true. */
  #put(key: string, value: HeaderValue, replace: boolean): void {
    const list = this.#headers;
    if (list === null) {
      this.#headers = [key, value];
      return;
    }
    const i = indexOfHeader(list, key);
    if (i < 0) list.push(key, value);
    else if (replace) list[i + 1] = value;
  }

  /** Sets Content-Type to `type` unless one is set. */
  #defaultType(type: string): void {
    this.#put('content-type', type, false);
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
    return this.#set('content-type', type.includes('/') ? type : (contentType(type) ?? 'application/octet-stream'));
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
      this.#defaultType(TYPES.text!);
      this.#finish(body);
    } else if (body === undefined || body === null) {
      this.#finish('');
    } else if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
      this.#defaultType(TYPES.bin!);
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
    this.#defaultType(TYPES.json!);
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
    this.#set('content-type', TYPES.html!);
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
      this.#headers !== null ||
      this.#hold !== null ||
      this.#life.hooks.onSend.length !== 0 ||
      this.#life.hooks.onResponse.length !== 0 ||
      // An end a middleware replaced (compression) must see this answer.
      this.end !== END
    ) {
      if (this.#phase < Phase.Done) this.statusCode = head.status;
      const list = head.headers;
      for (let i = 0; i < list.length; i += 2) this.#put(list[i] as string, list[i + 1]!, false);
      this.#finish(body);
      return this;
    }
    const phase = this.#phase;
    if (phase === Phase.Aborted) return this;
    if (phase === Phase.Done) throw headersSent();
    this.statusCode = head.status;
    this.#beforeEnd(body);
    if (phase === Phase.Sync) this.#writeEnd(body, head.bytes);
    else this.#ures.cork(() => this.#writeEnd(body, head.bytes));
    this.#afterEnd();
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
    const phase = this.#phase;
    if (phase === Phase.Aborted) return false;
    if (phase === Phase.Done) throw headersSent();
    if (typeof encoding === 'function') callback = encoding;
    else if (typeof chunk === 'string' && encoding && encoding !== 'utf8' && encoding !== 'utf-8') chunk = Buffer.from(chunk, encoding);
    if (callback) queueMicrotask(callback);
    if (this.#hold?.defer((go) => go && this.write(chunk) && this.emit('drain'), false)) return false;
    if (this.#head) {
      this.#startHead();
      return true;
    }
    if (typeof chunk !== 'string' && chunk.byteLength === 0) return true;
    if (chunk === '') return true; // uWS reads an empty write as the end of the body
    let ok = true;
    this.atomic(() => {
      if (!this.#headersSent) this.#writeHead();
      ok = this.#ures.write(chunk);
    });
    if (!ok) this.#whenWritable();
    return ok;
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
    // Node's signatures: end(cb), end(chunk, cb), end(chunk, encoding, cb).
    let callback: (() => void) | undefined;
    if (typeof chunk === 'function') {
      callback = chunk as () => void;
      chunk = undefined;
    } else if (typeof encoding === 'function') callback = encoding as () => void;
    else if (typeof cb === 'function') callback = cb as () => void;
    if (this.#phase === Phase.Aborted) return this;
    if (typeof chunk === 'string' && typeof encoding === 'string' && encoding !== 'utf8' && encoding !== 'utf-8') {
      chunk = Buffer.from(chunk, encoding as BufferEncoding);
    }
    this.#end((chunk as string | Uint8Array | undefined) ?? '');
    if (callback) queueMicrotask(callback);
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
    if (this.#phase === Phase.Sync) return fn();
    if (this.#phase === Phase.Aborted) return undefined as T;
    let result: T;
    this.#phase = Phase.Sync; // nested atomic() calls run inside this cork
    try {
      this.#ures.cork(() => {
        result = fn();
      });
    } finally {
      if (this.#phase === Phase.Sync) this.#phase = Phase.Async;
    }
    return result!;
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
    if (this.#phase >= Phase.Done) return;
    const ures = this.#ures;
    this[kAbort]();
    this.req[kAbort]();
    this.#life.finished(this.req, this, true);
    ures.close();
  }

  /**
   * How send, json, html, redirect and sendStatus end. A response whose end a middleware replaced
   * (compression, express-session) ends the way Express's res.send does: Content-Length set from
   * the body (unless the status has none or it is set), then through res.end, replaced; any
   * other goes straight to #end. One load and compare: a replaced method lives on the instance,
   * the original on the prototype.
   */
  #finish(body: string | Uint8Array | ArrayBuffer): void {
    if (this.end !== END) {
      if (!this.headersSent) this.#noteLength(body);
      this.end(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
      return;
    }
    this.#end(body);
  }

  /** Records the Content-Length of a body sent whole, unless the status has no body or one is set. */
  #noteLength(body: string | Uint8Array | ArrayBuffer): void {
    const status = this.statusCode;
    if (status === 204 || status === 304 || status < 200 || this.hasHeader('content-length')) return;
    this.#set('content-length', typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  }

  /** Ends through a middleware's end (compression must flush), else directly. */
  #endVia(body: string): void {
    if (this.end !== END) this.end(body);
    else this.#end(body);
  }

  #end(body: string | Uint8Array | ArrayBuffer): void {
    const phase = this.#phase;
    if (phase === Phase.Aborted) return;
    if (phase === Phase.Done) throw headersSent();
    if (this.#hold?.defer((go) => go && this.#end(body), true)) return;
    this.#beforeEnd(body);
    if (phase === Phase.Sync) this.#writeEnd(body);
    else this.#ures.cork(() => this.#writeEnd(body));
    this.#afterEnd();
  }

  /** Writes the head (`prepared`, or the one built from the headers set) and the body; the caller has corked. */
  #writeEnd(body: string | Uint8Array | ArrayBuffer, prepared?: ArrayBuffer): void {
    // Headers already out: write() went first and the body is chunked. uWS's end(…, true) (v20.30
    // and v20.51, checked) writes its `Connection: close` line after the last chunk, inside the
    // body, which breaks the framing; such a response ends without it (a closing server closes the connection anyway).
    const chunked = this.#headersSent;
    if (prepared !== undefined) {
      this.#headersSent = true;
      this.#ures.writeStatus(prepared);
    } else if (!chunked) this.#writeHead();
    const status = this.statusCode;
    const ures = this.#ures;
    if (status === 204 || status === 304 || status < 200 || this.#head) {
      // No body. uWS's endWithoutBody (v20.30 and v20.51, checked) only completes when called with
      // no arguments, so the length (HEAD) and Connection: close are written as headers.
      if (this.#head && status !== 204 && status !== 304) {
        const declared = this.#value('content-length');
        const length = declared ?? (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
        // Spelled as uWS spells the Content-Length it writes for a body (and as Node writes it).
        ures.writeHeader('Content-Length', String(length));
      }
      if (!chunked && (this.#close || this.req[kOverflowed])) ures.writeHeader('connection', 'close');
      ures.endWithoutBody();
    } else if (chunked) {
      ures.end(body, false);
    } else if (this.#close) {
      ures.end(body, true);
    } else if ((status === 413 || this.req[kOverflowed]) && refuseRest(this.#ures, this.req, body)) {
      // Answered; the rest of the body is read and dropped before the connection closes.
    } else {
      ures.end(body, false);
    }
  }

  /**
   * Hooks that may still change headers, then let go of the request's body. `body` is the whole
   * body when the response ends in one piece: a response somebody listens to (a logger's
   * 'finish') then also records its Content-Length, for `get('content-length')`.
   */
  #beforeEnd(body?: string | Uint8Array | ArrayBuffer): void {
    if (!this.#headersSent && !this.#hooked) this.#life.beforeHead(this.req, this);
    if (this.#life.hooks.onResponse.length > 0 || this[kHasListeners]) {
      this.req[kKeepAddress]();
      if (body !== undefined && !this.#headersSent && this[kHasListeners]) this.#noteLength(body);
    }
    this.req[kEnd]();
  }

  #afterEnd(): void {
    this.#phase = Phase.Done;
    this.#life.finished(this.req, this, false);
  }

  #tryEnd(chunk: Uint8Array, size: number): [boolean, boolean] {
    let result: [boolean, boolean] = [false, false];
    this.atomic(() => {
      result = this.#ures.tryEnd(chunk, size);
    });
    return result;
  }

  /** A write in a HEAD response: no body goes out, but onSend hooks run once, as for GET. */
  #startHead(): void {
    if (this.#headersSent || this.#hooked) return;
    this.#hooked = true;
    this.#life.beforeHead(this.req, this);
  }

  /** Writes the status line and headers; the caller has corked. */
  #writeHead(): void {
    this.#headersSent = true;
    this.#heads.write(this.#ures, this.statusCode, this.#headers, this.#reason);
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
    return this.#reason ?? STATUS_CODES[this.statusCode] ?? '';
  }

  set statusMessage(text: string | undefined) {
    // Empty or unset: the standard phrase (what Node's writeHead falls back to).
    this.#reason = text === undefined || text === null || text === '' ? undefined : checkReason(text);
  }

  #whenWritable(): void {
    if (this.#onWritable) return;
    this.#onWritable = () => {
      this.#onWritable = undefined;
      this.emit('drain');
      return true;
    };
    this.#registerWritable();
  }

  #registerWritable(): void {
    this.#ures.onWritable((offset) => (this.#onWritable ? this.#onWritable(offset) : true));
  }

  /** @internal Completes a WebSocket upgrade; headers set so far go out with the 101. */
  [kUpgrade](data: unknown, key: string, protocol: string, extensions: string): void {
    if (this.#phase >= Phase.Done) return;
    if (this.#hold?.defer((go) => go && this[kUpgrade](data, key, protocol, extensions), true)) return;
    this.#beforeEnd();
    const ures = this.#ures;
    const go = () => {
      this.#headersSent = true;
      const list = this.#headers;
      if (list !== null) {
        ures.writeStatus('101 Switching Protocols');
        for (let i = 0; i < list.length; i += 2) {
          const value = list[i + 1]!;
          for (const v of typeof value === 'string' ? [value] : value) ures.writeHeader(list[i] as string, v);
        }
      }
      ures.upgrade(data, key, protocol, extensions, (ures as unknown as Record<symbol, us_socket_context_t>)[kContext]!);
    };
    if (this.#phase === Phase.Sync) go();
    else ures.cork(go);
    this.#afterEnd();
  }

  /** @internal The uWS callback returned without a full answer. */
  [kDetach](): void {
    if (this.#phase === Phase.Sync) this.#phase = Phase.Async;
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
    if (this.#phase !== Phase.Async) return;
    this.#phase = Phase.Sync;
    // Not queueMicrotask: Node wraps each call in an AsyncResource, several times the cost.
    RESOLVED.then(() => {
      if (this.#phase === Phase.Sync) this.#phase = Phase.Async;
    });
  }

  // What the helper files (before-head.ts, response-stream.ts, event-stream.ts, redirect.ts) reach.
  /** @internal */
  get [kHold](): Hold | null {
    return this.#hold;
  }
  /** @internal */
  [kTakeHold](): Hold | null {
    const hold = this.#hold;
    this.#hold = null;
    return hold;
  }
  /** @internal */
  [kStartOver](err: unknown): void {
    this.statusCode = 200;
    this.#reason = undefined;
    this.#headers = null;
    this.#life.fail(err, this.req, this);
  }
  /** @internal */
  get [kIsHead](): boolean {
    return this.#head;
  }
  /** @internal */
  [kSetHeader](name: string, value: HeaderValue | number): void {
    this.#set(name, value);
  }
  /** @internal */
  [kFinish](body: string | Uint8Array | ArrayBuffer): void {
    this.#finish(body);
  }
  /** @internal */
  [kEndVia](body: string): void {
    this.#endVia(body);
  }
  /** @internal */
  get [kReplaced](): boolean {
    return this.write !== WRITE || this.end !== END;
  }
  /**
   * @internal One chunk of a body of known `size` (stream()) through uWS's tryEnd, the head
   * first if it is not out; `last` when it completes the body. Returns 2 when the response is
   * complete, 1 when uWS took the chunk, 0 when uWS is full: `resume` runs once it took the rest.
   */
  [kTryEnd](chunk: Uint8Array, size: number, last: boolean, resume: () => void): number {
    if (last) this.#beforeEnd();
    const offset = this.atomic(() => {
      if (!this.#headersSent) this.#writeHead();
      return this.#ures.getWriteOffset();
    });
    const [ok, done] = this.#tryEnd(chunk, size);
    if (done) {
      this.#afterEnd();
      return 2;
    }
    if (ok) return 1;
    this.#onWritable = (at) => {
      const [ok2, done2] = this.#tryEnd(chunk.subarray(at - offset), size);
      if (done2) this.#afterEnd();
      else if (ok2) {
        this.#onWritable = undefined;
        resume();
      }
      return ok2;
    };
    this.#registerWritable();
    return 0;
  }

  /** @internal The server is shutting down: ask the client to close the connection. */
  [kCloseAfter](): void {
    this.#close = true;
  }

  /** @internal uWS reported the connection gone. */
  [kAbort](): boolean {
    if (this.#phase >= Phase.Done) return false;
    this.#phase = Phase.Aborted;
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

/** The prototype's own methods: a middleware that replaced one on an instance is told apart by identity. */
const END = Response.prototype.end;
const WRITE = Response.prototype.write;

// res.vary (negotiation.ts). The Node.js/Express members that `nodeCompat` of @velox/express
// provides are placeholders until it does (placeholders.ts).
installResponseHelpers(Response.prototype);
