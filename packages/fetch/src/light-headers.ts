/**
 * A lighter `Headers` for apps that build their answers' headers themselves (Hono's
 * `c.header()`, `c.json()`): Node's own `Headers` checks every call through WebIDL conversions and
 * sorts its list on every iteration, which costs more than writing the headers does. A
 * `LightHeaders` keeps a `Map` of lower-case names to values (Set-Cookie lines in a list of their
 * own) with the same checks, normalization and iteration order as the Fetch spec gives `Headers`,
 * and `@velox/fetch` writes it from that map.
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

function normalValue(value: unknown, method: string): string {
  let text = `${value as string}`;
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  if (first === 32 || first === 9 || first === 10 || first === 13 || last === 32 || last === 9 || last === 10 || last === 13) {
    text = text.replace(EDGE_SPACE, '');
  }
  if (badValue(text)) throw new TypeError(`Headers.${method}: ${JSON.stringify(text)} is an invalid header value.`);
  return text;
}

function required(count: number, wanted: number, method: string): void {
  if (count < wanted) throw new TypeError(`Headers.${method}: ${wanted} argument${wanted === 1 ? '' : 's'} required, but ${count} found.`);
}

/** @internal What the writer reads of a LightHeaders: the joined values, and Set-Cookie lines apart. */
export interface LightHeaderParts {
  /** Lower-case name → value (repeated ones joined with `, `); no `set-cookie`. */
  values: Map<string, string>;
  /** Each Set-Cookie line, in order; undefined when there is none. */
  cookies: string[] | undefined;
}

/**
 * A `Headers` kept in a `Map`. Made by `new Headers(…)` once `installLightResponse()` ran, or
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
  #values = new Map<string, string>();
  #cookies: string[] | undefined = undefined;

  constructor(init?: Init) {
    if (init === undefined) return;
    if (isLightHeaders(init)) {
      for (const [name, value] of init.#values) this.#values.set(name, value);
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

  #append(name: unknown, value: unknown, method: string): void {
    const key = lowerName(name, method);
    const text = normalValue(value, method);
    if (key === 'set-cookie') {
      (this.#cookies ??= []).push(text);
      return;
    }
    const prev = this.#values.get(key);
    this.#values.set(key, prev === undefined ? text : `${prev}, ${text}`);
  }

  /** Adds a value (joined with `, ` to those the name has; a separate line for Set-Cookie). */
  append(name: string, value: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    required(arguments.length, 2, 'append');
    this.#append(name, value, 'append');
  }

  /** Replaces the name's values with this one. */
  set(name: string, value: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    required(arguments.length, 2, 'set');
    const key = lowerName(name, 'set');
    const text = normalValue(value, 'set');
    if (key === 'set-cookie') this.#cookies = [text];
    else this.#values.set(key, text);
  }

  /** Removes the name. */
  delete(name: string): void {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    required(arguments.length, 1, 'delete');
    const key = lowerName(name, 'delete');
    if (key === 'set-cookie') this.#cookies = undefined;
    else this.#values.delete(key);
  }

  /** The name's values joined with `, `, or null. */
  get(name: string): string | null {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    required(arguments.length, 1, 'get');
    const key = lowerName(name, 'get');
    if (key === 'set-cookie') return this.#cookies ? this.#cookies.join(', ') : null;
    const value = this.#values.get(key);
    return value === undefined ? null : value;
  }

  /** Whether the name has a value. */
  has(name: string): boolean {
    // biome-ignore lint/complexity/noArguments: WebIDL counts the arguments given, as Node's Headers does
    required(arguments.length, 1, 'has');
    const key = lowerName(name, 'has');
    return key === 'set-cookie' ? this.#cookies !== undefined : this.#values.has(key);
  }

  /** Each Set-Cookie value, in order. */
  getSetCookie(): string[] {
    return this.#cookies ? this.#cookies.slice() : [];
  }

  /** [name, value] pairs sorted by name, each Set-Cookie apart, as the Fetch spec orders them. */
  #sorted(): [string, string][] {
    const names = [...this.#values.keys()];
    if (this.#cookies) names.push('set-cookie');
    names.sort();
    const pairs: [string, string][] = [];
    for (const name of names) {
      if (name === 'set-cookie') for (const cookie of this.#cookies!) pairs.push([name, cookie]);
      else pairs.push([name, this.#values.get(name)!]);
    }
    return pairs;
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

  /** @internal The map and the Set-Cookie lines themselves (read, never changed, by the writer). */
  lightParts(): LightHeaderParts {
    return { values: this.#values, cookies: this.#cookies };
  }

  /** Both LightHeaders and built-in ones are Headers. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(NativeHeaders, value);
  }

  /** @internal */
  static isLight(value: unknown): value is LightHeaders {
    return typeof value === 'object' && value !== null && #values in value;
  }
}

/** True for a LightHeaders (brand check, not `instanceof`). */
export function isLightHeaders(value: unknown): value is LightHeaders {
  return LightHeaders.isLight(value);
}

// Passes `instanceof` for the built-in Headers too; whatever else the built-in prototype has
// (Node's inspect hook, undici's internals) works on a built-in copy made then.
standIn(LightHeaders, NativeHeaders, (self) => new NativeHeaders(self as unknown as Headers));
Object.defineProperty(LightHeaders.prototype, Symbol.toStringTag, { configurable: true, value: 'Headers' });
