/**
 * The request's absolute URL, as the Fetch spec gives it (`request.url` is a parsed, serialized
 * URL): the scheme and host the client used (through trusted proxies with `trustProxy`) and the
 * target as sent. Targets and hosts made of the characters a serializer leaves alone take a
 * string concatenation; anything else goes through the WHATWG URL parser, which normalizes it
 * (dot segments, percent-encoding, upper-case hosts) or refuses it.
 */
import type { Request as VeloxRequest } from '@velox/core';
import { FetchErrorCodes, fetchError } from './errors.ts';

/** A target the URL serializer returns unchanged: `/`, then unreserved, sub-delims, `:@/?%` (no `#`, no `\`). */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;
/** A `.` or `..` path segment, which the parser removes. */
const DOT_SEGMENT = /\/\.{1,2}(?:[/?]|$)|\/%2e/i;
/** A lower-case host name or IPv4 address, with an optional port. */
const PLAIN_HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::[0-9]{1,5})?$/;
/** Characters that would move the authority's end: a host holding them is refused. */
const HOST_BREAK = /[/?#@\\\s]/;

/**
 * `scheme://host/target` for this request. Throws a 400 `VeloxError` when no valid URL can be
 * made (the app never sees the request).
 * @example
 * ```ts
 * requestUrl(req); // 'http://example.com/id/1?name=x'
 * ```
 */
export function requestUrl(req: VeloxRequest): string {
  const config = req.server.config;
  let scheme: string;
  let host: string;
  if (config.trust === undefined) {
    scheme = config.tls ? 'https' : 'http';
    // The first Host line, as req.get() reads it while uWS's request is live; '' when absent.
    host = req.firstHeader('host');
  } else {
    scheme = req.protocol === 'https' ? 'https' : 'http';
    host = forwardedHost(req);
  }
  const target = req.originalUrl;
  // Most requests carry the Host of the one before: its check and the origin string are kept.
  let origin: string | undefined;
  if (host === lastHost && scheme === lastScheme) origin = lastOrigin;
  else if (PLAIN_HOST.test(host)) {
    origin = `${scheme}://${host}`;
    lastHost = host;
    lastScheme = scheme;
    lastOrigin = origin;
    lastTarget = undefined;
  }
  if (origin !== undefined) {
    // (origin is lastOrigin here.) The same target as the last request's: the URL made then,
    // already flat (the app's first read of it flattened it), with no character read again.
    if (target === lastTarget) return lastUrl!;
    const url = origin + target;
    if (plainTarget(url, origin.length)) {
      lastTarget = target;
      lastUrl = url;
      return url;
    }
  }
  return parse(scheme, host, target);
}

/** The last plain host seen, its scheme and `scheme://host`. */
let lastHost: string | undefined;
let lastScheme: string | undefined;
let lastOrigin: string | undefined;
/** The last plain target seen with `lastOrigin`, and the URL made of them. */
let lastTarget: string | undefined;
let lastUrl: string | undefined;

/** The characters of {@link PLAIN_TARGET}, by code. */
const PLAIN_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) PLAIN_CHAR[c] = PLAIN_TARGET.test(`/${String.fromCharCode(c)}`) ? 1 : 0;

/**
 * Whether the target in `url` from `start` on is one the URL serializer returns unchanged:
 * {@link PLAIN_TARGET} without a {@link DOT_SEGMENT}, read in one pass. Read from the URL rather
 * than the target: the target is often a concatenation (path, `?`, query) that every character
 * read would walk, where the first read of the URL flattens it once, as the app's reads would.
 */
function plainTarget(url: string, start: number): boolean {
  const length = url.length;
  if (length === start || url.charCodeAt(start) !== 47) return false;
  let suspect = false;
  for (let i = start + 1; i < length; i++) {
    const c = url.charCodeAt(i);
    if (c >= 128 || PLAIN_CHAR[c] === 0) return false;
    // A `.` after a `/`, or an escape (perhaps `%2e`): the rare case, left to the regex.
    if (c === 37 || (c === 46 && url.charCodeAt(i - 1) === 47)) suspect = true;
  }
  return !suspect || !DOT_SEGMENT.test(url.slice(start));
}

/** The host through a trusted proxy: core decided whether to believe X-Forwarded-Host (its `hostname`); keep its port. */
function forwardedHost(req: VeloxRequest): string {
  const own = req.get('host') ?? '';
  const forwarded = req.get('x-forwarded-host')?.split(',')[0]?.trim();
  if (forwarded === undefined || forwarded === '') return own;
  const name = req.hostname;
  return name === hostName(forwarded) && name !== hostName(own) ? forwarded : own;
}

function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function parse(scheme: string, host: string, target: string): string {
  if (host === '') throw badRequest('The request has no Host header, so it has no URL');
  if (HOST_BREAK.test(host)) throw badRequest(`Invalid Host header: ${quote(host)}`);
  if (!target.startsWith('/')) throw badRequest(`Invalid request target: ${quote(target)}`);
  // A backslash in the path is a slash to the parser: refuse it rather than let it change the path.
  const query = target.indexOf('?');
  const backslash = target.indexOf('\\');
  if (backslash >= 0 && (query < 0 || backslash < query)) throw badRequest('Backslash in the request path');
  let url: URL;
  try {
    url = new URL(`${scheme}://${host}${target}`);
  } catch (cause) {
    throw badRequest(`The Host header and target do not make a valid URL: ${quote(host)} ${quote(target)}`, cause);
  }
  return url.href;
}

function badRequest(message: string, cause?: unknown) {
  return fetchError(FetchErrorCodes.BAD_REQUEST, message, 400, cause);
}

function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}
