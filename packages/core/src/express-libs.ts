/**
 * The one file of core that imports the small libraries Express itself uses for HTTP semantics
 * (accepts, type-is, fresh, vary for negotiation.ts; content-disposition, mime-types, ms for
 * sending files). The rest of core calls them through the functions below, so replacing one
 * touches this file only. They are loaded with core but run only when a request calls a helper
 * or sends a file. Express's own helpers (`req.range`, `res.attachment`…) and their libraries
 * are in `@velox/express`.
 */
import accepts from 'accepts';
import { create as makeDisposition } from 'content-disposition';
import fresh from 'fresh';
import mime from 'mime-types';
import ms from 'ms';
import typeis from 'type-is';
import vary from 'vary';

/** Request headers, lower-case names, as `req.headers` gives them. */
type RequestHeaders = Record<string, string | string[] | undefined>;

/** What the negotiating functions below need of a request. */
interface HeadersOnly {
  headers: RequestHeaders;
}

/** Content negotiation on the Accept-* headers of a request. */
export interface Negotiation {
  types(list: string[]): string | false | string[];
  encodings(list: string[]): string | false | string[];
  charsets(list: string[]): string | false | string[];
  languages(list: string[]): string | false | string[];
}

/** Negotiates against a request's Accept, Accept-Encoding, Accept-Charset and Accept-Language. */
export function negotiate(req: HeadersOnly): Negotiation {
  const a = accepts(req as never);
  return {
    types: (list) => (list.length === 0 ? a.types() : a.types(list)),
    encodings: (list) => (list.length === 0 ? a.encodings() : a.encodings(list)),
    charsets: (list) => (list.length === 0 ? a.charsets() : a.charsets(list)),
    languages: (list) => (list.length === 0 ? a.languages() : a.languages(list)),
  };
}

/**
 * Which of `types` the request's Content-Type matches (`json`, `text/*`, `+json`…): the match,
 * false for none, null when the request has no body.
 */
export function typeOfBody(req: HeadersOnly, types: string[]): string | false | null {
  return typeis(req as never, types);
}

/** RFC 9110 freshness: true when the client's copy (If-None-Match / If-Modified-Since) is current. */
export function isFresh(requestHeaders: RequestHeaders, responseHeaders: { etag?: string; 'last-modified'?: string }): boolean {
  return fresh(requestHeaders, responseHeaders);
}

/** A Vary header value with `field` added (once, case-insensitively; `*` absorbs everything). */
export function addVary(current: string, field: string | string[]): string {
  return vary.append(current, field);
}

/** A Content-Disposition value for a download, with an ASCII fallback and RFC 8187 encoding. */
export function disposition(filename: string | undefined, options?: { type?: string; fallback?: string | boolean }): string {
  return makeDisposition(filename, options);
}

const OCTET = 'application/octet-stream';

/**
 * The Content-Type for a file by its name's extension (`charset=utf-8` for text), else `application/octet-stream`.
 *
 * @example
 * ```ts
 * fileType('site/app.css'); // 'text/css; charset=utf-8'
 * ```
 */
export function fileType(path: string): string {
  const type = mime.lookup(path);
  if (type === false) return OCTET;
  return mime.contentType(type) || type;
}

/** Milliseconds for a duration in Express's `ms` format (`'1d'`, `'2 hours'`, `'500'`), or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  if (text === '') return undefined; // ms() throws on an empty string
  const value = ms(text as ms.StringValue);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
