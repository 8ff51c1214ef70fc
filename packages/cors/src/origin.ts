/**
 * What an Origin header may be, and how a configured origin is written: the checks that keep a
 * value that is not one origin (a joined list, garbage, `javascript:…`) from ever being matched
 * by a RegExp or reflected.
 */
import { invalidOption } from './errors.ts';

/**
 * The longest Origin header looked at, in characters. A serialized origin is a scheme, `://`, a
 * host (at most 253 characters for a DNS name) and a port; anything longer is not one, and is
 * treated as a disallowed origin without being hashed or matched.
 */
export const MAX_ORIGIN_LENGTH = 1024;

/**
 * A serialized origin (RFC 6454, the Fetch standard): `scheme://host[:port]`, nothing after it.
 * The host has no comma and no space, so two Origin lines joined into one (`a, b`) never pass.
 */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(?:[a-z0-9._~%-]+|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/i;

/** Schemes whose origin the URL parser serializes (the others have an opaque origin, `null`). */
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:']);

/**
 * @internal True for an Origin header value that is one serialized origin, `null` excluded: what
 * RegExps are tested against and what may be reflected.
 */
export function isOrigin(value: string): boolean {
  return value.length <= MAX_ORIGIN_LENGTH && ORIGIN.test(value);
}

/**
 * @internal Checks an origin written in the options (`'https://app.example.com'`, or `'null'`) and
 * returns it; throws with the spelling browsers send when it differs (a trailing slash, a path,
 * upper case, a default port), since such an entry would never match.
 */
export function checkOrigin(value: unknown, where: string): string {
  if (typeof value !== 'string') {
    throw invalidOption(`${where} must be an origin string or a RegExp, e.g. 'https://app.example.com'; got ${describe(value)}`);
  }
  if (value === 'null') return value;
  if (value === '*') {
    throw invalidOption(`${where}: '*' only works alone, as origin: '*' (any origin); a list names the origins it allows`);
  }
  if (value.includes('*')) {
    throw invalidOption(
      `${where}: ${JSON.stringify(value)} is not an origin (no wildcards in strings); use a RegExp, e.g. /^https:\\/\\/[a-z0-9-]+\\.example\\.com$/`,
    );
  }
  let canonical: string | undefined;
  try {
    const url = new URL(value);
    if (SPECIAL.has(url.protocol)) canonical = url.origin;
  } catch {}
  if (canonical !== undefined && canonical !== value) {
    throw invalidOption(
      `${where}: browsers send the origin ${JSON.stringify(canonical)}, so ${JSON.stringify(value)} would never match; write ${JSON.stringify(canonical)} (no path or trailing slash, lower case, no default port)`,
    );
  }
  if (!isOrigin(value)) {
    throw invalidOption(`${where}: ${JSON.stringify(value)} is not an origin; write scheme://host[:port], e.g. 'https://app.example.com', or 'null'`);
  }
  return value;
}

/** @internal Checks a RegExp of the options: a global or sticky one would carry `lastIndex` from one request to the next. */
export function checkPattern(value: RegExp, where: string): RegExp {
  if (value.global || value.sticky) {
    throw invalidOption(`${where}: ${String(value)} has the ${value.global ? 'g' : 'y'} flag, which makes test() depend on the request before; drop the flag`);
  }
  return value;
}

/** @internal A short description of a bad option value, for messages. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof RegExp) return String(value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}
