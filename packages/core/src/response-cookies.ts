/**
 * `res.cookie()` and `res.clearCookie()`: Set-Cookie headers, signed with cookie-parser's secret
 * or the server's `cookieSecret` when asked. The `cookie` library itself is behind cookies.ts.
 */
import { type CookieSerializeOptions, serializeCookie, signCookieValue } from './cookies.ts';
import { ErrorCodes, VeloxError } from './errors.ts';
import type { Response } from './response.ts';
import { kConfig } from './symbols.ts';

/**
 * Options of `res.cookie()`.
 * @example
 * ```ts
 * const options: CookieOptions = { httpOnly: true, sameSite: 'lax', signed: true, maxAge: 3600_000 };
 * res.cookie('sid', id, options);
 * ```
 */
export interface CookieOptions extends Omit<CookieSerializeOptions, 'encode' | 'maxAge'> {
  /**
   * Sign the value (read it back from `req.signedCookies`): with cookie-parser's secret
   * (`req.secret`) where cookie-parser ran, as Express does, else with the server's first
   * `cookieSecret`.
   */
  signed?: boolean;
  /** Lifetime in milliseconds (as in Express); sets both `Max-Age` and `Expires`. */
  maxAge?: number;
}

/** @internal What `res.cookie()` does. */
export function setCookie(res: Response, name: string, value: string, options: CookieOptions): Response {
  const { signed, maxAge, ...rest } = options;
  let text = value;
  if (signed) {
    const secret = res.req.secret || res.server[kConfig].secrets[0];
    if (!secret) {
      throw new VeloxError(ErrorCodes.NO_COOKIE_SECRET, "Signed cookies need the cookieSecret option (or cookie-parser's secret: cookieParser('secret'))");
    }
    text = `s:${signCookieValue(value, secret)}`;
  }
  const serializeOptions: CookieSerializeOptions = { path: '/', ...rest };
  if (maxAge !== undefined) {
    serializeOptions.maxAge = Math.floor(maxAge / 1000);
    serializeOptions.expires = new Date(Date.now() + maxAge);
  }
  return res.append('set-cookie', serializeCookie(name, text, serializeOptions));
}

/** @internal What `res.clearCookie()` does. */
export function clearCookie(res: Response, name: string, options: Omit<CookieOptions, 'maxAge' | 'expires'>): Response {
  const { signed: _signed, ...rest } = options;
  return res.append('set-cookie', serializeCookie(name, '', { path: '/', ...rest, expires: new Date(0) }));
}
