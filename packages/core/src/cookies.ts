/**
 * The one file of Velox that imports `cookie` (parsing the Cookie header, writing Set-Cookie)
 * and `cookie-signature` (the HMAC of signed cookies). Request, Response and every package that
 * signs a cookie value (`@velox/session`) go through the functions below, so replacing either
 * library touches this file only.
 */
import type { KeyObject } from 'node:crypto';
import { parse, type SerializeOptions, serialize } from 'cookie';
import { sign, unsign } from 'cookie-signature';
import { Bag } from './bag.ts';

/** The options of a Set-Cookie header, as the `cookie` module takes them (`maxAge` in seconds). */
export type CookieSerializeOptions = SerializeOptions;

/** @internal The Cookie header as a record of names to decoded values (the first of a repeated name wins). */
export const parseCookieHeader: (header: string) => Record<string, string | undefined> = parse;

/** Cookie lines parsed lately, for {@link cookieInLine}: a client sends the same line again and again. */
const recentLines = new Map<string, Record<string, string | undefined>>();
/** At most this many lines are remembered (then all are forgotten), each at most this long. */
const RECENT_LINES = 1000;
const RECENT_LINE_LENGTH = 1024;

/**
 * @internal One cookie of one Cookie line, as `parseCookieHeader(line)[name]` gives it. The
 * parsed line is remembered (a pure function of the line: lookups hash the line, much less work
 * than parsing it again), never handed out.
 */
export function cookieInLine(line: string, name: string): string | undefined {
  let parsed = recentLines.get(line);
  if (parsed === undefined) {
    parsed = parse(line);
    if (line.length <= RECENT_LINE_LENGTH) {
      if (recentLines.size >= RECENT_LINES) recentLines.clear();
      recentLines.set(line, parsed);
    }
  }
  return parsed[name];
}

/** @internal One Set-Cookie header value. */
export const serializeCookie: (name: string, value: string, options?: CookieSerializeOptions) => string = serialize;

/**
 * A secret that signs cookie values: a string, or a `KeyObject` from `node:crypto`'s
 * `createSecretKey()` (made once, it spares the HMAC from importing the key on every call).
 */
export type CookieSecret = string | KeyObject;

/**
 * Signs a cookie value: `<value>.<signature>`, the signature being the HMAC-SHA256 of the value
 * under `secret`, in base64 without padding. This is the format of `cookie-signature`, which
 * Express, cookie-parser and express-session use: `res.cookie(name, value, { signed: true })`
 * sends `s:` followed by this, and `@velox/session` signs its session ids with it.
 *
 * @throws TypeError when `value` is not a string or `secret` is missing.
 * @example
 * ```ts
 * import { signCookieValue, unsignCookieValue } from '@velox/core';
 *
 * const signed = signCookieValue('42', process.env.COOKIE_SECRET!); // '42.<43 characters>'
 * unsignCookieValue(signed, process.env.COOKIE_SECRET!); // '42'
 * ```
 */
export function signCookieValue(value: string, secret: CookieSecret): string {
  return sign(value, secret);
}

/**
 * Checks a value made by {@link signCookieValue} against `secret` and returns what was signed,
 * or `false` when the signature does not match (a tampered value, another secret, no signature).
 * The comparison takes the same time wherever the signatures differ. For several secrets
 * (rotation), try each in turn: the first that returns a string verified it.
 *
 * @throws TypeError when `signed` is not a string or `secret` is missing.
 * @example
 * ```ts
 * import { unsignCookieValue } from '@velox/core';
 *
 * const id = unsignCookieValue(req.cookies.sid ?? '', secret);
 * if (id === false) return res.status(401).send('bad cookie');
 * ```
 */
export function unsignCookieValue(signed: string, secret: CookieSecret): string | false {
  return unsign(signed, secret);
}

/**
 * @internal The signed cookies among `cookies` (values `s:<value>.<signature>`), each the value
 * when its signature checks out against one of `secrets`, else `false` (`req.signedCookies`).
 */
export function readSignedCookies(cookies: Record<string, string>, secrets: string[]): Record<string, string | false> {
  const out = new Bag<string | false>();
  if (secrets.length === 0) return out;
  for (const name in cookies) {
    const value = cookies[name]!;
    if (!value.startsWith('s:')) continue;
    out[name] = false;
    for (const secret of secrets) {
      const plain = unsignCookieValue(value.slice(2), secret);
      if (plain !== false) {
        out[name] = plain;
        break;
      }
    }
  }
  return out;
}

/** The prototypes of the records the `cookies` getter makes: the cookie module's, and Bag's. */
const OWN_COOKIES = [Object.getPrototypeOf(parseCookieHeader('a=b')), Object.getPrototypeOf(new Bag<string>())];
/** @internal Whether `req.cookies` holds the record Velox parsed (rather than one a middleware assigned). */
export function isOwnCookies(cookies: object): boolean {
  const proto = Object.getPrototypeOf(cookies);
  return proto === OWN_COOKIES[0] || proto === OWN_COOKIES[1];
}
