/**
 * The one file of the drop-in `express()` that imports the libraries Express 4 itself is built
 * on, at the versions express@4.22 uses, so that matching, query parsing, proxy trust, ETags
 * and the bundled middlewares behave byte for byte as in Express 4:
 * - path-to-regexp 0.1.x: Express 4's own path syntax (`:id?`, `*`, `(a|b)`, regular expressions);
 * - qs: the `extended` query parser (Express 4's default);
 * - proxy-addr: `trust proxy`, `req.ip`, `req.ips`;
 * - etag: `res.send()`'s ETag (weak by default);
 * - content-disposition 0.5: `res.attachment()` and `res.download()`;
 * - body-parser 1.x and serve-static 1.x: `express.json/urlencoded/raw/text` and `express.static`;
 * - ms 2.x: a `maxAge` given as text, read as send reads it.
 * Swapping one touches this file only.
 */
/// <reference path="./modules.d.ts" />
import { createRequire } from 'node:module';
import { join } from 'node:path';
import bodyParser from 'body-parser-express4';
import contentDisposition from 'content-disposition-express4';
import makeEtag from 'etag';
import pathToRegexp from 'path-to-regexp';
import proxyaddr from 'proxy-addr';
import qs from 'qs';
import onFinished from 'on-finished';
import send from 'send-express4';
import { PreparedHeader } from '@velox/core';
import serveStatic from 'serve-static-express4';
import ms from 'ms';

/** A compiled path: the regular expression and its parameter keys. */
export interface CompiledPath {
  regexp: RegExp;
  keys: Array<{ name: string | number; optional: boolean; offset: number }>;
}

/** Compiles an Express 4 path (string, RegExp or array of them) as Express 4 does. */
export function compilePath(path: unknown, options: { sensitive?: boolean; strict?: boolean; end?: boolean }): CompiledPath {
  const keys: CompiledPath['keys'] = [];
  const regexp = (pathToRegexp as unknown as (p: unknown, k: unknown[], o: unknown) => RegExp)(path, keys, options);
  return { regexp, keys };
}

/** Express 4's `extended` query parser. */
export function parseQueryExtended(text: string | null): Record<string, unknown> {
  // qs answers {} for no query, after normalising its options: skip that.
  if (text === null || text === '') return {};
  return simpleQuery(text) ?? qs.parse(text, { allowPrototypes: true });
}

/** A key qs reads as itself: no brackets, dots or escapes, and no name Object.prototype has. */
const PLAIN_KEY = /^[A-Za-z0-9_-]+$/;
/** A value qs leaves as it is, `text` from `start` to `end`: nothing to decode ('%', '+'). */
function plainValue(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 || c === 43) return false;
  }
  return true;
}

/**
 * What qs answers for a short query of distinct plain keys with plain values (`name=x&page=2`),
 * without qs's general machinery; undefined for anything else (qs then parses it).
 */
function simpleQuery(text: string): Record<string, string> | undefined {
  if (text.length > 256) return undefined;
  const out: Record<string, string> = {};
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      const eq = text.indexOf('=', start);
      const hasValue = eq !== -1 && eq < end;
      const keyEnd = hasValue ? eq : end;
      let key = knownKey(text, start, keyEnd);
      if (key === undefined) {
        key = text.slice(start, keyEnd);
        if (!PLAIN_KEY.test(key) || key in Object.prototype) return undefined;
        key = rememberKey(key);
      }
      if (key in out || (hasValue && !plainValue(text, eq + 1, end))) return undefined;
      out[key] = hasValue ? text.slice(eq + 1, end) : '';
    }
    start = end + 1;
  }
  return out;
}

/**
 * Plain keys met before, as the engine's own interned strings: a key found here needs no check
 * and no lookup in the engine's string table when it becomes a property (core's query parser
 * does the same).
 */
const knownKeys: string[] = [];

function knownKey(text: string, start: number, end: number): string | undefined {
  const length = end - start;
  search: for (let k = 0; k < knownKeys.length; k++) {
    const key = knownKeys[k]!;
    if (key.length !== length) continue;
    for (let i = 0; i < length; i++) if (key.charCodeAt(i) !== text.charCodeAt(start + i)) continue search;
    return key;
  }
  return undefined;
}

function rememberKey(key: string): string {
  if (knownKeys.length >= 64 || key.length > 32) return key;
  const interned = Object.keys({ [key]: 0 })[0]!;
  knownKeys.push(interned);
  return interned;
}

/** A `trust proxy` value compiled to a function (address, hop index) => boolean. */
export type TrustFn = (address: string | undefined, index: number) => boolean;

/** Compiles a `trust proxy` setting value as Express 4 does. */
export function compileTrust(value: unknown): TrustFn {
  if (typeof value === 'function') return value as TrustFn;
  if (value === true) return () => true;
  if (typeof value === 'number') return (_a, i) => i < (value as number);
  if (typeof value === 'string') value = value.split(',').map((v) => v.trim());
  return proxyaddr.compile((value as string[]) || []) as TrustFn;
}

/** The client address under a trust function (proxy-addr). */
export function clientAddress(req: object, trust: TrustFn): string {
  return proxyaddr(req as never, trust as never);
}

/** Every address of the chain under a trust function, socket first (proxy-addr's `all`). */
export function allAddresses(req: object, trust: TrustFn): string[] {
  return proxyaddr.all(req as never, trust as never);
}

/** An ETag for a body, weak or strong. */
export function etagOf(body: string | Buffer, weak: boolean): string {
  return makeEtag(body, { weak });
}

/** A short text body's ETag and byte length, as `res.send()` sends them. */
export interface TextTag {
  etag: string;
  length: number;
  /** The Content-Length header, checked once. */
  lengthHeader: PreparedHeader;
  /** The ETag header, checked once. */
  etagHeader: PreparedHeader;
}

/** The ETag functions the `etag` setting compiles to (true: weak), whose result for a text is cached. */
export const ownEtagFns = new WeakMap<object, boolean>();

const TEXT_TAG_MAX = 1024;
const TEXT_TAGS_MAX = 512;
const weakTags = new Map<string, TextTag>();
const strongTags = new Map<string, TextTag>();

/**
 * The ETag and UTF-8 length of a text body of at most 1 KiB (else undefined), remembered for the
 * next 512 distinct texts: an app answers the same short bodies again and again, and hashing
 * them each time is most of what `res.send('Hi')` costs. The same as hashing its UTF-8 bytes.
 */
export function textTag(text: string, weak: boolean): TextTag | undefined {
  if (text.length > TEXT_TAG_MAX) return undefined;
  const tags = weak ? weakTags : strongTags;
  let tag = tags.get(text);
  if (tag === undefined) {
    const bytes = Buffer.from(text, 'utf8');
    const etag = makeEtag(bytes, { weak });
    tag = { etag, length: bytes.length, lengthHeader: new PreparedHeader('Content-Length', bytes.length), etagHeader: new PreparedHeader('ETag', etag) };
    if (tags.size >= TEXT_TAGS_MAX) tags.clear();
    tags.set(text, tag);
  }
  return tag;
}

/** A Node-style middleware, as the bundled ones are. */
export type NodeMiddleware = (req: any, res: any, next: (err?: unknown) => void) => void;
/** A body parser factory of body-parser 1.x (its options: `limit`, `type`, `strict`, `extended`, `inflate`, `verify`, …). */
export type ParserFactory = (options?: Record<string, unknown>) => NodeMiddleware;

/** Express 4's bundled body parsers. */
export const parsers: { json: ParserFactory; urlencoded: ParserFactory; raw: ParserFactory; text: ParserFactory } = {
  json: bodyParser.json,
  urlencoded: bodyParser.urlencoded,
  raw: bodyParser.raw,
  text: bodyParser.text,
};

/** Express 4's bundled static middleware (serve-static 1.x; its options: `index`, `redirect`, `fallthrough`, `dotfiles`, `extensions`, `maxAge`, `setHeaders`, …); static.ts answers its plain requests. */
const serveStaticMiddleware: (root: string, options?: Record<string, unknown>) => NodeMiddleware = serveStatic;

/** ms 2.x, as send reads a `maxAge` given as text (`'1d'`). */
export { ms, serveStaticMiddleware as serveStatic };

/** Loads a view engine module by name, as Express 4's View does with `require(ext)`: from the application's directory first. */
export function loadEngine(name: string): unknown {
  try {
    return createRequire(join(process.cwd(), 'index.js'))(name);
  } catch {
    return createRequire(import.meta.url)(name);
  }
}

/** Express 4's MIME table (mime 1.x, through send): `lookup(extOrName)` and `charsets.lookup(type)`. */
export const mime = (serveStatic as unknown as { mime: { lookup(name: string): string; charsets: { lookup(type: string): string | undefined }; define?: (...args: unknown[]) => unknown } }).mime;

/** Called when the MIME table changes (`express.static.mime.define(…)`): what was looked up in it is forgotten. */
export const onMimeDefine = new Set<() => void>();
const define = mime.define;
if (typeof define === 'function') {
  mime.define = function defineAndForget(this: unknown, ...args: unknown[]) {
    for (const forget of onMimeDefine) forget();
    return define.apply(this, args);
  };
}

/** Express 4's Content-Disposition (content-disposition 0.5: the file's base name, quoted). */
export function disposition(filename?: string): string {
  return contentDisposition(filename);
}

/** send 0.19 (what Express 4's `res.sendFile` streams files with) and on-finished. */
export { onFinished, send };
