/**
 * The one file of `@velox/express/5` that imports the libraries Express 5 itself is built on, at
 * the versions express@5.3 resolves, so that routing, bodies, static files and types behave as in
 * Express 5:
 * - router 2.x: Express 5's router (path-to-regexp 8 syntax, rejected promises sent to `next`);
 * - body-parser 2.x and serve-static 2.x: `express.json/urlencoded/raw/text` and `express.static`;
 * - send 1.x: `res.sendFile()` and `res.download()`;
 * - mime-types 3: `res.type()`, `res.set('Content-Type')`, `res.format()`;
 * - content-disposition 2: `res.attachment()` and `res.download()`.
 * What Express 4 and 5 share (qs, proxy-addr, etag, on-finished) comes from `../libs.ts`.
 * Swapping one touches this file only.
 */
import bodyParser from 'body-parser';
import { create as makeDisposition } from 'content-disposition';
import mimeTypes from 'mime-types';
import Router from 'router';
import send from 'send';
import serveStatic from 'serve-static';
import type { NodeMiddleware } from '../libs.ts';

/** Express 5's router class (router 2.x). */
export { Router };

/** A body parser factory of body-parser 2.x. */
export type ParserFactory5 = (options?: Record<string, unknown>) => NodeMiddleware;

/** Express 5's bundled body parsers (body-parser 2.x). */
export const parsers5: { json: ParserFactory5; urlencoded: ParserFactory5; raw: ParserFactory5; text: ParserFactory5 } = {
  json: bodyParser.json as ParserFactory5,
  urlencoded: bodyParser.urlencoded as ParserFactory5,
  raw: bodyParser.raw as ParserFactory5,
  text: bodyParser.text as ParserFactory5,
};

/** Express 5's bundled static middleware (serve-static 2.x). */
export const serveStatic5: (root: string, options?: Record<string, unknown>) => NodeMiddleware = serveStatic as never;

/** send 1.x, as Express 5's `res.sendFile` streams files. */
export const send5: (req: unknown, path: string, options?: Record<string, unknown>) => any = send as never;

/** mime-types 3's full Content-Type for an extension, a file name or a type (false when unknown). */
export function contentType(text: string): string | false {
  return mimeTypes.contentType(text);
}

/** mime-types 3's type for an extension or file name (false when unknown). */
export function lookupType(text: string): string | false {
  return mimeTypes.lookup(text);
}

/** Express 5's Content-Disposition (content-disposition 2). */
export function disposition5(filename?: string): string {
  return makeDisposition(filename);
}
