/**
 * An opt-in, lighter `Response` for apps that build many small answers (`c.text()`, `c.json()`):
 * Node's own `Response` turns every string body into a `ReadableStream` as it is made, which
 * costs more than the rest of a small request. A `LightResponse` only keeps the body and the
 * init it was given; `@velox/fetch` writes it from those, and anything else that asks for more
 * (`body`, `text()`, `clone()`, `type`…) gets it from a built-in `Response` made then, once.
 *
 * Apps call `new Response(…)` themselves, so the only way to give them this class is to put it
 * in `globalThis.Response`: `serve()` does for as long as it runs (unless `lightResponse: false`),
 * as @hono/node-server does by default; `installLightResponse()` does it for `fetchHandler()`. Instances pass `instanceof Response`, and built-in
 * Responses (from `fetch()`) still pass `instanceof Response` once it is installed.
 */

import { LightHeaders } from './light-headers.ts';
import { standIn } from './stand-in.ts';

const NativeResponse = globalThis.Response;

type HeadersInit = ConstructorParameters<typeof Headers>[0];
type BodyInit = ConstructorParameters<typeof Response>[0];

/** Bodies kept as they are; anything else is handed to a built-in Response at once. */
function isLightBody(body: unknown): body is string | Uint8Array | ArrayBuffer | null | undefined {
  return body == null || typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer;
}

/**
 * @internal Whether a LightResponse still holds its parts (nothing made a built-in Response of
 * it); then the writer reads them with the functions below, else it writes `nativeResponse()`.
 */
export let isLightOnly: (response: LightResponse) => boolean;
/** @internal The status of a LightResponse. */
export let lightStatus: (response: LightResponse) => number;
/** @internal Its headers: the Headers made since, else the init's as given (a record, a list of pairs or a Headers). */
export let lightHeaders: (response: LightResponse) => HeadersInit | undefined;
/** @internal Its body as given. */
export let lightBody: (response: LightResponse) => string | Uint8Array | ArrayBuffer | null;
/** @internal The init's `statusText` as given (checked when it was made), else undefined. */
export let lightStatusText: (response: LightResponse) => unknown;

/**
 * The built-in Response's check of `init.statusText` (a ByteString, then the HTTP reason-phrase
 * production: tab, space, visible ASCII and 0x80–0xFF), with its errors: a text that would break
 * the status line (CR, LF, other control characters) or that has a character above 0xFF throws a
 * TypeError, as `new Response()` does.
 */
function checkStatusText(value: unknown): void {
  const text = String(value);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 255) {
      throw new TypeError(`Cannot convert argument to a ByteString because the character at index ${i} has a value of ${c} which is greater than 255.`);
    }
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!(c === 9 || (c >= 0x20 && c <= 0x7e) || c >= 0x80)) throw new TypeError('Invalid statusText');
  }
}

// The members LightResponse takes from the built-in Response at run time (see below).
export interface LightResponse extends Omit<Response, 'status' | 'statusText' | 'ok' | 'headers'> {}

/**
 * A `Response` that keeps its body and init until something needs the built-in one. Made by
 * `new Response(…)` once {@link installLightResponse} ran, or directly.
 * @example
 * ```ts
 * import { LightResponse } from '@velox/fetch';
 * const fetch = () => new LightResponse('Hi', { headers: { 'x-a': '1' } });
 * ```
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the members of the interface come from Response.prototype, set below
export class LightResponse {
  #body: string | Uint8Array | ArrayBuffer | null;
  #init: ResponseInit | undefined;
  #status: number;
  #headers: Headers | undefined = undefined;
  #native: Response | undefined = undefined;
  /** Made by this class itself, not a subclass (whose members may answer otherwise). */
  #exact: boolean;

  static {
    // Read by the writer without an object of parts per answer.
    isLightOnly = (response) => response.#native === undefined;
    lightStatus = (response) => response.#status;
    lightHeaders = (response) => response.#headers ?? response.#init?.headers;
    lightBody = (response) => response.#body;
    lightStatusText = (response) => response.#init?.statusText;
  }

  /**
   * Always `undefined`: a Response is not a thenable. An own field so that the engine, which looks
   * `then` up on whatever a promise is resolved with (an async route returning `c.json(…)`, the
   * framework's `.then()` after it), finds it on the object at once instead of searching
   * LightResponse's, Response's and Object's prototypes: about 700 instructions fewer per request
   * on Hono's async JSON route on Node 22, 800 on Node 20 (callgrind). The one own key a LightResponse has.
   */
  // biome-ignore lint/suspicious/noThenProperty: always undefined, which is what makes it no thenable (see above)
  readonly then: undefined = undefined;

  constructor(body?: BodyInit, init?: ResponseInit) {
    this.#exact = new.target === LightResponse;
    const status = init?.status ?? 200;
    if (!isLightBody(body) || (status !== 200 && (status < 200 || status > 599))) {
      // Streams, Blobs, FormData, URLSearchParams, bad statuses: the built-in class decides (and throws as it would).
      this.#native = new NativeResponse(body, init);
      this.#body = null;
      this.#init = undefined;
      this.#status = this.#native.status;
      return;
    }
    if (body != null && (status === 204 || status === 304 || status === 205)) {
      throw new TypeError('Response constructor: Invalid response status code');
    }
    if (init?.statusText !== undefined) checkStatusText(init.statusText);
    this.#body = body ?? null;
    this.#init = init;
    this.#status = status;
  }

  /** The status code. */
  get status(): number {
    return this.#status;
  }

  /** The status text it was made with (`''` unless given), as the built-in Response has it. */
  get statusText(): string {
    if (this.#native) return this.#native.statusText;
    const text = this.#init?.statusText;
    return text === undefined ? '' : String(text);
  }

  /** True for 2xx. */
  get ok(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }

  /** The headers, a `LightHeaders` made on first read (with the content type a string body implies). */
  get headers(): Headers {
    if (this.#native) return this.#native.headers;
    if (this.#headers) return this.#headers;
    // A LightHeaders: what middlewares set on it after the app answered is written from its map too.
    const headers = new LightHeaders(this.#init?.headers) as unknown as Headers;
    if (typeof this.#body === 'string' && !headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
    return (this.#headers = headers);
  }


  /** @internal */
  nativeResponse(): Response {
    if (this.#native) return this.#native;
    const init: ResponseInit = { status: this.#status, statusText: this.#init?.statusText ?? '', headers: this.headers };
    this.#native = new NativeResponse(this.#body as BodyInit, init);
    this.#headers = undefined;
    return this.#native;
  }

  /**
   * A Response with this value as JSON.
   * @example
   * ```ts
   * LightResponse.json({ ok: true }, { status: 201 });
   * ```
   */
  static json(data: unknown, init?: ResponseInit): Response {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError('Response.json: the data is not JSON serializable');
    const headers = new LightHeaders(init?.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LightResponse(text, { ...init, headers: headers as unknown as Headers }) as unknown as Response;
  }

  /** Built-in `Response.redirect`. @example LightResponse.redirect('https://example.com/', 301); */
  static redirect(url: string | URL, status?: number): Response {
    return NativeResponse.redirect(url, (status ?? 302) as 302);
  }

  /** Built-in `Response.error`. @example LightResponse.error(); */
  static error(): Response {
    return NativeResponse.error();
  }

  /** @internal True for an instance of this class itself (a private-field check: no prototype read). */
  static isExact(value: unknown): value is LightResponse {
    return typeof value === 'object' && value !== null && #exact in value && (value as LightResponse).#exact;
  }

  /** Both LightResponses and built-in ones are Responses. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(NativeResponse, value);
  }
}

// Every other member of Response (body, bodyUsed, text(), clone(), type, url…) comes from the
// built-in Response, made on first use.
standIn(LightResponse, NativeResponse, (self) => self.nativeResponse());

/** True for a LightResponse (brand check, not `instanceof`). */
export function isLightResponse(value: unknown): value is LightResponse {
  return LightResponse.isExact(value);
}

/** How many installs are in force, and the class the first one replaced. */
let installs = 0;
let replaced: typeof Response | undefined;
let replacedHeaders: typeof Headers | undefined;

/**
 * Puts {@link LightResponse} in `globalThis.Response` and `LightHeaders` in `globalThis.Headers`,
 * so that apps' `new Response(…)`, `Response.json(…)` and `new Headers(…)` make light ones.
 * Returns a function that takes this install back; the classes that were there come back when
 * the last install in force is taken back (each only if nothing else replaced it meanwhile). `serve()` installs it for as long as it runs, unless
 * `lightResponse: false` (as @hono/node-server overrides the global by default);
 * `fetchHandler()` never does: call this yourself.
 * @example
 * ```ts
 * import { installLightResponse, fetchHandler } from '@velox/fetch';
 * const uninstall = installLightResponse();
 * app.all('/api/*', fetchHandler(hono.fetch));
 * app.addHook('onClose', uninstall);
 * ```
 */
export function installLightResponse(): () => void {
  if (installs++ === 0) {
    replaced = globalThis.Response;
    replacedHeaders = globalThis.Headers;
    globalThis.Response = LightResponse as unknown as typeof Response;
    globalThis.Headers = LightHeaders as unknown as typeof Headers;
  }
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    if (--installs !== 0) return;
    if (globalThis.Response === (LightResponse as unknown as typeof Response)) globalThis.Response = replaced!;
    if (globalThis.Headers === (LightHeaders as unknown as typeof Headers)) globalThis.Headers = replacedHeaders!;
  };
}
