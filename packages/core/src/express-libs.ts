/**
 * The one file of core that imports the small libraries Express itself uses for HTTP semantics
 * (accepts, type-is, fresh, vary, for negotiation.ts). The rest of core calls them through the
 * functions below, so replacing one touches this file only. They are loaded with core but run
 * only when a request calls a helper. Content types: content-type.ts; Express's own helpers
 * (`req.range`, `res.attachment`…) and their libraries are in `@velox/express`; files: @velox/static.
 */
import accepts from 'accepts';
import fresh from 'fresh';
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
