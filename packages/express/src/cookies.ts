/**
 * cookie-parser on Velox. It does nothing when it finds `req.cookies` set, and Velox's
 * `req.cookies` is a getter that parses on first read, so it always looked set. `nodeCompat`
 * passes each middleware through `forCookieParser` when a route's chain is built (core's
 * `wrapMiddleware`): one shaped like cookie-parser is wrapped so that `req.cookies` reads as unset
 * for it, once, unless a middleware assigned it (`req.cookiesAssigned`). It then parses and
 * assigns its own result (`j:` JSON cookies, signed cookies checked against its secrets,
 * `req.secret`), which the rest of the chain sees, as in Express. Only chains holding such a
 * middleware change; nothing runs per request anywhere else.
 */
import type { Middleware, Request } from '@velox/core';

/** Whether each function seen is shaped like cookie-parser (the same middleware sits in many chains). */
const seen = new WeakMap<Function, boolean>();

/**
 * Whether `fn` is a cookie-parser middleware: a `(req, res, next)` that assigns `.secret`,
 * `.cookies` and `.signedCookies`, which is what cookie-parser's does (minified or not). A
 * middleware that does all three is a cookie parser, and expects to find `req.cookies` unset.
 * @example
 * ```ts
 * isCookieParser(cookieParser('secret')); // true
 * ```
 */
export function isCookieParser(fn: Function): boolean {
  let known = seen.get(fn);
  if (known === undefined) {
    known = false;
    if (fn.length === 3) {
      const source = Function.prototype.toString.call(fn).replace(/\s+/g, '');
      known = /\.secret=/.test(source) && /\.cookies=/.test(source) && /\.signedCookies=/.test(source);
    }
    seen.set(fn, known);
  }
  return known;
}

/** The one-shot `cookies` of a request about to meet cookie-parser: its first read finds nothing, its first write goes to core. */
const unset: PropertyDescriptor = {
  get(this: Request) {
    delete (this as { cookies?: unknown }).cookies;
    return undefined;
  },
  set(this: Request, value: Record<string, string>) {
    delete (this as { cookies?: unknown }).cookies;
    this.cookies = value;
  },
  configurable: true,
  enumerable: false,
};

/**
 * `fn` if it is not cookie-parser; else cookie-parser, finding `req.cookies` unset unless a
 * middleware assigned it. Velox's own record, if something read it already, is hidden from that
 * one read only: should cookie-parser assign nothing, later reads see it again.
 * @example
 * ```ts
 * server.wrapMiddleware(forCookieParser);
 * ```
 */
export function forCookieParser(fn: Middleware<any, any>): Middleware<any, any> {
  if (!isCookieParser(fn)) return fn;
  return (req: Request, res, next) => {
    if (!req.cookiesAssigned) Object.defineProperty(req, 'cookies', unset);
    return fn(req, res, next);
  };
}
