/**
 * The one file of the drop-in `express()` that imports the libraries Express 4 itself is built
 * on, at the versions express@4.22 uses, so that matching, query parsing, proxy trust, ETags
 * and the bundled middlewares behave byte for byte as in Express 4:
 * - path-to-regexp 0.1.x: Express 4's own path syntax (`:id?`, `*`, `(a|b)`, regular expressions);
 * - qs: the `extended` query parser (Express 4's default);
 * - proxy-addr: `trust proxy`, `req.ip`, `req.ips`;
 * - etag: `res.send()`'s ETag (weak by default);
 * - content-disposition 0.5: `res.attachment()` and `res.download()`;
 * - body-parser 1.x and serve-static 1.x: `express.json/urlencoded/raw/text` and `express.static`.
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
import serveStatic from 'serve-static-express4';

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
  return qs.parse(text as string, { allowPrototypes: true });
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

/** Express 4's bundled static middleware (serve-static 1.x; its options: `index`, `redirect`, `fallthrough`, `dotfiles`, `extensions`, `maxAge`, `setHeaders`, …). */
export const staticFiles: (root: string, options?: Record<string, unknown>) => NodeMiddleware = serveStatic;

/** Loads a view engine module by name, as Express 4's View does with `require(ext)`: from the application's directory first. */
export function loadEngine(name: string): unknown {
  try {
    return createRequire(join(process.cwd(), 'index.js'))(name);
  } catch {
    return createRequire(import.meta.url)(name);
  }
}

/** Express 4's MIME table (mime 1.x, through send): `lookup(extOrName)` and `charsets.lookup(type)`. */
export const mime = (serveStatic as unknown as { mime: { lookup(name: string): string; charsets: { lookup(type: string): string | undefined } } }).mime;

/** Express 4's Content-Disposition (content-disposition 0.5: the file's base name, quoted). */
export function disposition(filename?: string): string {
  return contentDisposition(filename);
}

/** send 0.19 (what Express 4's `res.sendFile` streams files with) and on-finished. */
export { onFinished, send };
