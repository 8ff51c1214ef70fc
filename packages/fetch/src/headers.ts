/**
 * The request's `Headers`, lazily: `get()` and `has()` read Velox's header record (repeated
 * lines already joined) without making a `Headers`; anything else (iteration, changes,
 * `getSetCookie()`) makes the built-in `Headers` once and uses it from then on. Passes
 * `instanceof Headers`.
 */
import type { Request as VeloxRequest } from '@velox/core';

const NativeHeaders = globalThis.Headers;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * A `Headers` over a Velox request's headers, made by the lazy Request.
 * @example
 * ```ts
 * request.headers.get('user-agent'); // read from Velox, no Headers made
 * [...request.headers];              // makes the built-in Headers once
 * ```
 */
export class RequestHeaders {
  #req: VeloxRequest;
  #native: Headers | undefined = undefined;
  #build: (req: VeloxRequest) => Headers;

  /** @internal `build` makes the built-in Headers (and reports a value Fetch refuses). */
  constructor(req: VeloxRequest, build: (req: VeloxRequest) => Headers) {
    this.#req = req;
    this.#build = build;
  }

  #full(): Headers {
    return (this.#native ??= this.#build(this.#req));
  }

  /** One header, repeated lines joined with `, ` (Cookie with `; `), or null. */
  get(name: string): string | null {
    if (this.#native) return this.#native.get(name);
    const value = this.#req.headers[key(name)];
    return value === undefined ? null : value;
  }

  /** Whether the request has this header. */
  has(name: string): boolean {
    if (this.#native) return this.#native.has(name);
    return this.#req.headers[key(name)] !== undefined;
  }

  set(name: string, value: string): void {
    this.#full().set(name, value);
  }

  append(name: string, value: string): void {
    this.#full().append(name, value);
  }

  delete(name: string): void {
    this.#full().delete(name);
  }

  getSetCookie(): string[] {
    return this.#full().getSetCookie();
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#full().forEach((value, name) => {
      callback.call(thisArg, value, name, this as unknown as Headers);
    });
  }

  entries(): ReturnType<Headers['entries']> {
    return this.#full().entries();
  }

  keys(): ReturnType<Headers['keys']> {
    return this.#full().keys();
  }

  values(): ReturnType<Headers['values']> {
    return this.#full().values();
  }

  [Symbol.iterator](): ReturnType<Headers['entries']> {
    return this.#full().entries();
  }
}

function key(name: string): string {
  if (typeof name !== 'string' || !TOKEN.test(name)) throw new TypeError(`Headers.get: ${JSON.stringify(String(name))} is an invalid header name.`);
  return name.toLowerCase();
}

Object.setPrototypeOf(RequestHeaders.prototype, NativeHeaders.prototype);
Object.defineProperty(RequestHeaders.prototype, Symbol.toStringTag, { configurable: true, value: 'Headers' });
