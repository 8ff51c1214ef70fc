/**
 * The one file that imports the small libraries Express itself uses for HTTP semantics
 * (accepts, type-is, fresh, vary, content-disposition, range-parser). The rest of core calls
 * them through the functions below, so replacing one touches this file only. They are loaded
 * with core but run only when a request calls an Express helper. (Content types: content-type.ts.)
 */
import accepts from 'accepts';
import { create as makeDisposition } from 'content-disposition';
import fresh from 'fresh';
import parseRangeHeader from 'range-parser';
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

/** Whether the request announces a body (Content-Length or Transfer-Encoding). */
export function announcesBody(req: HeadersOnly): boolean {
  return typeis.hasBody(req as never);
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

/**
 * Parses a Range header against a size: the ranges, -1 when none can be satisfied, -2 when the
 * header is malformed. `combine` merges overlapping and adjacent ranges.
 */
export function parseRange(size: number, header: string, combine: boolean): Array<{ start: number; end: number }> | -1 | -2 {
  const result = parseRangeHeader(size, header, { combine });
  if (result === -1 || result === -2) return result;
  if (result.type !== 'bytes') return -2;
  return result.map(({ start, end }) => ({ start, end }));
}
