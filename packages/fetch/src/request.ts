/**
 * The lazy `Request` a fetch app receives. It passes `instanceof Request` (its prototype chain
 * goes through `Request.prototype`) and holds only the Velox request: `url`, `method` and
 * `headers` are read from it when asked, `text()`, `json()`, `arrayBuffer()` and `bytes()` read
 * the body straight from Velox (bounded by `maxBodyLength`), and `body` is a `ReadableStream` fed
 * from uWS with backpressure. Only what needs the real thing (`formData()`, `blob()`, `clone()`,
 * `cache`, `mode`…) builds a built-in `Request`, once, over the same body.
 */
import type { Response as VeloxResponse, Request as VeloxRequest, VeloxError } from '@velox/core';
import { webStream } from './body.ts';
import { RequestHeaders } from './headers.ts';
import { FetchErrorCodes, fetchError } from './errors.ts';

const NativeRequest = globalThis.Request;
const NativeHeaders = globalThis.Headers;

/** @internal The Velox request behind a fetch Request. */
export const kVelox = Symbol('velox.fetch.request');
/** @internal The error that must answer instead of the app (a body over the limit, a bad header). */
export const kClientError = Symbol('velox.fetch.clientError');
/** @internal The built-in Request behind the members this class does not implement. */
const kNative = Symbol('velox.fetch.native');
/** @internal Aborts `signal` (client gone, timeout). */
export const kAbort = Symbol('velox.fetch.abort');

/** How a {@link FetchRequest} reads its body. */
export interface BodyLimits {
  /** Largest body `text()`, `json()`, `arrayBuffer()`, `bytes()`, `formData()` and `blob()` read. */
  maxBodyLength: number;
  /** Largest body `request.body` (the stream) delivers before it errors with a 413. */
  maxStreamLength: number;
}

function unusable(): TypeError {
  return new TypeError('Body is unusable: Body has already been read');
}

/**
 * A fetch `Request` over a Velox request, built by `serve()` and `fetchHandler()` for each
 * request; apps see it as a `Request`.
 * @example
 * ```ts
 * app.any('/api/*', fetchHandler(async (request) => {
 *   request instanceof Request; // true
 *   return Response.json(await request.json());
 * }));
 * ```
 */
export class FetchRequest {
  #req: VeloxRequest;
  #res: VeloxResponse;
  #limits: BodyLimits;
  #url: string;
  #method: string;
  #headers: Headers | undefined = undefined;
  #real: Request | undefined = undefined;
  #controller: AbortController | undefined = undefined;
  #abortReason: unknown = undefined;
  #used = false;
  [kClientError]: VeloxError | undefined = undefined;

  /** @internal */
  constructor(req: VeloxRequest, res: VeloxResponse, url: string, limits: BodyLimits) {
    this.#req = req;
    this.#res = res;
    this.#url = url;
    this.#method = req.method;
    this.#limits = limits;
  }

  /** The absolute URL (`http://host/path?query`), normalized as the URL parser would. */
  get url(): string {
    return this.#url;
  }

  /** The method, as sent (upper-case for the standard ones). */
  get method(): string {
    return this.#method;
  }

  /**
   * The request headers as a `Headers`: repeated lines are joined with `, ` (Cookie lines with
   * `; `). `get()` and `has()` read Velox's headers; anything else makes a built-in Headers once.
   */
  get headers(): Headers {
    return (this.#headers ??= new RequestHeaders(this.#req, (req) => this.#nativeHeaders(req)) as unknown as Headers);
  }

  #nativeHeaders(req: VeloxRequest): Headers {
    const headers = new NativeHeaders();
    const record = req.headers;
    try {
      for (const name in record) headers.append(name, record[name]!);
    } catch (cause) {
      const err = fetchError(FetchErrorCodes.BAD_REQUEST, `A request header is not valid for Fetch: ${(cause as Error).message}`, 400, cause);
      this[kClientError] ??= err;
      throw err;
    }
    return headers;
  }

  /** Aborts when the client goes away before the answer is sent, or when the `timeout` passes. */
  get signal(): AbortSignal {
    if (this.#controller) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.#abortReason !== undefined) controller.abort(this.#abortReason);
    else if (this.#res.aborted) controller.abort(clientGone());
    else if (!this.#res.finished) {
      this.#res.on('close', () => {
        if (this.#res.aborted) this.#abort(clientGone());
      });
    }
    return controller.signal;
  }

  /** @internal */
  [kAbort](reason: unknown): void {
    this.#abort(reason);
  }

  #abort(reason: unknown): void {
    if (this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  /** The body as a stream fed from uWS with backpressure; null for GET and HEAD. */
  get body(): ReadableStream<Uint8Array> | null {
    if (!this.#hasBody()) return null;
    return this.#native(this.#limits.maxStreamLength).body;
  }

  /** True once the body was read. */
  get bodyUsed(): boolean {
    return this.#used || this.#real?.bodyUsed === true;
  }

  /**
   * The body as text (UTF-8), read straight from Velox, up to `maxBodyLength`.
   * @example
   * ```ts
   * const text = await request.text();
   * ```
   */
  text(): Promise<string> {
    if (this.#real) return this.#real.text();
    const used = this.#take();
    if (used) return used;
    if (!this.#hasBody()) return Promise.resolve('');
    return this.#req.text().then(undefined, (err) => this.#failed(err));
  }

  /**
   * The body parsed as JSON (any content type, as in Fetch); a malformed body rejects with a
   * `SyntaxError`.
   * @example
   * ```ts
   * const value = await request.json();
   * ```
   */
  json(): Promise<any> {
    if (this.#real) return this.#real.json();
    const used = this.#take();
    if (used) return used;
    if (!this.#hasBody()) return Promise.reject(new SyntaxError('Unexpected end of JSON input'));
    // One promise: a read error is looked at (a 413 answers as such), a SyntaxError passes as is.
    return this.#req.text().then(JSON.parse, (err) => this.#failed(err));
  }

  /**
   * The body's bytes in an `ArrayBuffer`, read straight from Velox.
   * @example
   * ```ts
   * const bytes = new Uint8Array(await request.arrayBuffer());
   * ```
   */
  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#real) return this.#real.arrayBuffer();
    return this.#buffer().then((buf) =>
      buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength
        ? (buf.buffer as ArrayBuffer)
        : (buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer),
    );
  }

  /**
   * The body's bytes in a `Uint8Array`, read straight from Velox.
   * @example
   * ```ts
   * const bytes = await request.bytes();
   * ```
   */
  bytes(): Promise<Uint8Array> {
    const real = this.#real as (Request & { bytes?: () => Promise<Uint8Array> }) | undefined;
    if (real) return real.bytes ? real.bytes() : real.arrayBuffer().then((ab) => new Uint8Array(ab));
    return this.#buffer().then((buf) => new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
  }

  /**
   * The body as `FormData` (urlencoded or multipart, files included), through the built-in
   * `Request`, bounded by `maxBodyLength`.
   * @example
   * ```ts
   * const form = await request.formData();
   * ```
   */
  formData(): Promise<FormData> {
    if (!this.#real && this.#used) return Promise.reject(unusable());
    return this.#native().formData();
  }

  /**
   * The body as a `Blob` typed by Content-Type, through the built-in `Request`, bounded by
   * `maxBodyLength`.
   * @example
   * ```ts
   * const blob = await request.blob();
   * ```
   */
  blob(): Promise<Blob> {
    if (!this.#real && this.#used) return Promise.reject(unusable());
    return this.#native().blob();
  }

  /**
   * A copy, as the built-in `Request` makes one (the body is teed).
   * @example
   * ```ts
   * const copy = request.clone();
   * ```
   */
  clone(): Request {
    if (!this.#real && this.#used) throw unusable();
    return this.#native().clone();
  }

  #hasBody(): boolean {
    const method = this.#method;
    return method !== 'GET' && method !== 'HEAD';
  }

  /** Marks the body read; a rejected promise when it was already. */
  #take(): Promise<never> | undefined {
    if (this.#used) return Promise.reject(unusable());
    this.#used = true;
    return undefined;
  }

  #buffer(): Promise<Buffer> {
    const used = this.#take();
    if (used) return used;
    if (!this.#hasBody()) return Promise.resolve(Buffer.alloc(0));
    return this.#req.buffer().catch((err) => this.#failed(err));
  }

  /** A body read failed: a 413 (or a framing 400) answers instead of whatever the app makes of it. */
  #failed(err: VeloxError): never {
    if (typeof err?.status === 'number' && err.status < 500) this[kClientError] ??= err;
    throw err;
  }

  /**
   * @internal The built-in Request, made once; its body streams from Velox, bounded by `limit`:
   * `maxStreamLength` when the app asked for the stream, else `maxBodyLength` (the body is then
   * read whole, by `formData()`, `blob()` or after `clone()`).
   */
  #native(limit = this.#limits.maxBodyLength): Request {
    if (this.#real) return this.#real;
    const init: RequestInit & { duplex?: 'half' } = { method: this.#method, headers: this.headers, signal: this.signal };
    if (this.#hasBody()) {
      if (this.#used) init.body = new ReadableStream({ start: (c) => c.close() });
      else {
        // The limit twice: core counts what it holds unread (on disk past bodyBufferSize) while
        // the stream is not pulled, webStream what is pulled.
        const stream = this.#req.stream(Number.isSafeInteger(limit) ? { limit } : undefined);
        init.body = webStream(stream, limit, (err) => {
          this[kClientError] ??= err;
        });
      }
      init.duplex = 'half';
    }
    const real = new NativeRequest(this.#url, init);
    this.#real = real;
    return real;
  }

  /** @internal The built-in Request (made on first use), for members this class does not implement itself. */
  get [kNative](): Request {
    return this.#native();
  }

  /** The Velox request behind this one (for code that needs `ip`, cookies, the session…). */
  get [kVelox](): VeloxRequest {
    return this.#req;
  }
}

function clientGone(): DOMException {
  return new DOMException('The client closed the connection', 'AbortError');
}

// Requests pass `instanceof Request`, and every member of Request this class does not define
// itself (cache, mode, credentials, integrity, keepalive…) comes from the built-in one.
Object.setPrototypeOf(FetchRequest.prototype, NativeRequest.prototype);
for (const key of Reflect.ownKeys(NativeRequest.prototype)) {
  if (key === 'constructor' || Object.hasOwn(FetchRequest.prototype, key)) continue;
  const desc = Object.getOwnPropertyDescriptor(NativeRequest.prototype, key)!;
  if (typeof desc.value === 'function') {
    Object.defineProperty(FetchRequest.prototype, key, {
      configurable: true,
      writable: true,
      value(this: FetchRequest, ...args: unknown[]) {
        const real = (this as unknown as Record<symbol, Request>)[kNative]!;
        return (desc.value as (...a: unknown[]) => unknown).apply(real, args);
      },
    });
  } else if (desc.get) {
    const get = desc.get;
    Object.defineProperty(FetchRequest.prototype, key, {
      configurable: true,
      get(this: FetchRequest) {
        return get.call((this as unknown as Record<symbol, Request>)[kNative]!);
      },
    });
  }
}
Object.defineProperty(FetchRequest.prototype, Symbol.toStringTag, { configurable: true, value: 'Request' });

/**
 * The Velox request behind a fetch `Request` that `serve()` or `fetchHandler()` made (its `ip`,
 * cookies, session…), or undefined for any other Request.
 * @example
 * ```ts
 * hono.get('/ip', (c) => c.text(veloxRequest(c.req.raw)?.ip ?? 'unknown'));
 * ```
 */
export function veloxRequest(request: Request): VeloxRequest | undefined {
  return request instanceof FetchRequest ? request[kVelox] : undefined;
}
