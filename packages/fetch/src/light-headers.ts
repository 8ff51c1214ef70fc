/**
 * A lighter `Headers` for apps that build their answers' headers themselves (Hono's
 * `c.header()`, `c.json()`): Node's own `Headers` checks every call through WebIDL conversions and
 * sorts its list on every iteration, which costs more than writing the headers does. A
 * `LightHeaders` keeps a flat list of lower-case names and values (Set-Cookie lines in a list of
 * their own) with the same checks, normalization and iteration order as the Fetch spec gives `Headers`,
 * and `@velox/fetch` writes it from that list.
 *
 * `installLightResponse()` (which `serve()` calls unless `lightResponse: false`) puts it in
 * `globalThis.Headers` beside `LightResponse`. Instances pass `instanceof Headers`, and built-in
 * Headers still pass `instanceof Headers` once it is installed.
 */

import { standIn } from './stand-in.ts';

const NativeHeaders = globalThis.Headers;

type Init = ConstructorParameters<typeof Headers>[0];

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Leading or trailing HTTP whitespace, which a value loses. */
const EDGE_SPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/**
 * Whether a trimmed value holds what a header value must not: NUL, CR, LF, or a character past
 * Latin-1 (not a ByteString). A loop over the codes: cheaper than a regex test on the short
 * values headers have.
 */
function badValue(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 255 || c === 0 || c === 10 || c === 13) return true;
  }
  return false;
}

// Header names repeat from request to request: remember the ones already checked.
const checkedNames = new Map<string, string>();

function lowerName(name: unknown, method: string): string {
  if (typeof name === 'string') {
    const known = checkedNames.get(name);
    if (known !== undefined) return known;
  }
  const text = `${name as string}`;
  if (!TOKEN.test(text)) throw new TypeError(`Headers.${method}: ${JSON.stringify(text)} is an invalid header name.`);
  const lower = text.toLowerCase();
  if (checkedNames.size < 1000) checkedNames.set(text, lower);
  return lower;
}

/**
 * Values that passed as they are (nothing to trim, nothing refused): apps set the same few
 * (`application/json`, their own constant headers) on every answer, and a lookup of a string whose
 * hash V8 keeps costs less than reading its characters again. Short ones only, and a bounded
 * number: a value that changes on every answer (an ETag) costs one lookup more.
 */
const checkedValues = new Set<string>();
const MAX_CHECKED_VALUES = 1000;
const MAX_CHECKED_VALUE_LENGTH = 128;

function normalValue(value: unknown, method: string): string {
  if (typeof value === 'string' && checkedValues.has(value)) return value;
  let text = `${value as string}`;
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  if (first === 32 || first === 9 || first === 10 || first === 13 || last === 32 || last === 9 || last === 10 || last === 13) {
    text = text.replace(EDGE_SPACE, '');
  }
  if (badValue(text)) throw new TypeError(`Headers.${method}: ${JSON.stringify(text)} is an invalid header value.`);
  if (text === value && text.length <= MAX_CHECKED_VALUE_LENGTH && checkedValues.size < MAX_CHECKED_VALUES) checkedValues.add(text);
  return text;
}

/** Throws the TypeError of a call with fewer arguments than `wanted` (the caller compared the count: no call on the common path). */
function required(count: number, wanted: number, method: string): never {
  throw new TypeError(`Headers.${method}: ${wanted} argument${wanted === 1 ? '' : 's'} required, but ${count} found.`);
}

/** @internal The list of a LightHeaders: `[name, value, name, value, …]`, lower-case names, no `set-cookie`. */
export let lightHeaderList: (headers: LightHeaders) => string[];
/** @internal The Set-Cookie lines of a LightHeaders, in order; undefined when there is none. */
export let lightCookies: (headers: LightHeaders) => string[] | undefined;

/**
 * A `Headers` kept in a flat list. Made by `new Headers(…)` once `installLightResponse()` ran, or
 * directly.
 * @example
 * ```ts
 * import { LightHeaders } from '@velox/fetch';
 * const headers = new LightHeaders({ 'Content-Type': 'text/plain' });
 * headers.append('set-cookie', 'a=1');
 * headers.get('content-type'); // 'text/plain'
 * ```
 */
export class LightHeaders {
  /**
   * `[name, value, name, value, …]`: lower-case names in the order they were first set, each
   * once (repeated values joined with `, `), Set-Cookie apart. Answers carry a few headers: a
   * scan of this list costs less than a `Map` (its making, hashing and iterators).
   */
  #list: string[] = [];
  #cookies: string[] | undefined = undefined;

  static {
    lightHeaderList = (headers) => headers.#list;
    lightCookies = (headers) => headers.#cookies;
  }

  constructor(init?: Init) {
    // The init is read apart: a constructor this small is inlined where apps call `new Headers()`,
    // where whole it ran unoptimized (the early return spent too little of V8's budget for it).
    if (init !== undefined) this.#fill(init);
  }

  #fill(init: Exclude<Init, undefined>): void {
    if (isLightHeaders(init)) {
      this.#list = init.#list.slice();
      if (init.#cookies) this.#cookies = init.#cookies.slice();
      return;
    }
    if (init !== null && typeof init === 'object') {
      const proto = Object.getPrototypeOf(init);
      if (proto === Object.prototype || proto === null) {
        // A record: its own enumerable string keys, as WebIDL reads one.
        for (const name of Object.keys(init)) this.#append(name, (init as Record<string, string>)[name], 'append');
        return;
      }
      if (Array.isArray(init) && init.every((pair) => Array.isArray(pair) && pair.length === 2)) {
        for (const pair of init as [string, string][]) this.#append(pair[0], pair[1], 'append');
        return;
      }
    }
    // Anything else (another Headers, an iterable, a bad value) is read, or refused, by the built-in class.
    for (const [name, value] of new NativeHeaders(init)) this.#append(name, value, 'append');
  }

  /** Where the name's value is in the list, or -1. */
  #find(key: string): number {
    const list = this.#list;
    for (let i = 0; i < list.length; i += 2) if (list[i] === key) return i + 1;
    return -1;
  }

  #append(name: unknown, value: unknown, method: string): void {
    const key = lowerName(name, method);
    const text = normalValue(value, method);
    if (key === 'set-cookie') {
      (this.#cookies ??= []).push(text);
      return;
    }
    const i = this.#find(key);
    if (i < 0) this.#list.push(key, text);
    else this.#list[i] = `${this.#list[i]}, ${text}`;
  }

  /** Adds a value (joined with `, ` to those the name has; a separate line for Set-Cookie). */
  append(name: string, value: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    if (arguments.length < 2) required(arguments.length, 2, 'append');
    this.#append(name, value, 'append');
  }

  /** Replaces the name's values with this one. */
  set(name: string, value: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    if (arguments.length < 2) required(arguments.length, 2, 'set');
    const key = lowerName(name, 'set');
    const text = normalValue(value, 'set');
    if (key === 'set-cookie') {
      this.#cookies = [text];
      return;
    }
    const i = this.#find(key);
    if (i < 0) this.#list.push(key, text);
    else this.#list[i] = text;
  }

  /** Removes the name. */
  delete(name: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    if (arguments.length < 1) required(arguments.length, 1, 'delete');
    const key = lowerName(name, 'delete');
    if (key === 'set-cookie') {
      this.#cookies = undefined;
      return;
    }
    const i = this.#find(key);
    if (i >= 0) this.#list.splice(i - 1, 2);
  }

  /** The name's values joined with `, `, or null. */
  get(name: string): string | null {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    if (arguments.length < 1) required(arguments.length, 1, 'get');
    const key = lowerName(name, 'get');
    if (key === 'set-cookie') return this.#cookies ? this.#cookies.join(', ') : null;
    const i = this.#find(key);
    return i < 0 ? null : this.#list[i]!;
  }

  /** Whether the name has a value. */
  has(name: string): boolean {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    if (arguments.length < 1) required(arguments.length, 1, 'has');
    const key = lowerName(name, 'has');
    return key === 'set-cookie' ? this.#cookies !== undefined : this.#find(key) >= 0;
  }

  /** Each Set-Cookie value, in order. */
  getSetCookie(): string[] {
    return this.#cookies ? this.#cookies.slice() : [];
  }

  /** [name, value] pairs sorted by name, each Set-Cookie apart, as the Fetch spec orders them. */
  #sorted(): [string, string][] {
    const list = this.#list;
    const pairs: [string, string][] = [];
    for (let i = 0; i < list.length; i += 2) pairs.push([list[i]!, list[i + 1]!]);
    if (this.#cookies) for (const cookie of this.#cookies) pairs.push(['set-cookie', cookie]);
    // Names are unique apart from set-cookie, whose lines keep their order (the sort is stable).
    return pairs.sort(byName);
  }

  /** Calls `callback(value, name, headers)` for each pair, in order. */
  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError("Headers.forEach: Argument 1 is not a function");
    for (const [name, value] of this.#sorted()) callback.call(thisArg, value, name, this as unknown as Headers);
  }

  /** The [name, value] pairs, in order. */
  entries(): ReturnType<Headers['entries']> {
    return this.#sorted().values() as unknown as ReturnType<Headers['entries']>;
  }

  /** The names, in order (Set-Cookie once per line). */
  keys(): ReturnType<Headers['keys']> {
    return this.#sorted()
      .map((pair) => pair[0])
      .values() as unknown as ReturnType<Headers['keys']>;
  }

  /** The values, in order. */
  values(): ReturnType<Headers['values']> {
    return this.#sorted()
      .map((pair) => pair[1])
      .values() as unknown as ReturnType<Headers['values']>;
  }

  [Symbol.iterator](): ReturnType<Headers['entries']> {
    return this.entries();
  }

  /** Both LightHeaders and built-in ones are Headers. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(NativeHeaders, value);
  }

  /** @internal */
  static isLight(value: unknown): value is LightHeaders {
    return typeof value === 'object' && value !== null && #list in value;
  }
}

/** Sorts pairs by name, in code-unit order (as `Array.prototype.sort` orders strings). */
function byName(a: [string, string], b: [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** True for a LightHeaders (brand check, not `instanceof`). */
export function isLightHeaders(value: unknown): value is LightHeaders {
  return LightHeaders.isLight(value);
}

// Passes `instanceof` for the built-in Headers too; whatever else the built-in prototype has
// (Node's inspect hook, undici's internals) works on a built-in copy made then.
standIn(LightHeaders, NativeHeaders, (self) => new NativeHeaders(self as unknown as Headers));
Object.defineProperty(LightHeaders.prototype, Symbol.toStringTag, { configurable: true, value: 'Headers' });
