/**
 * cookie-parser on Velox. It does nothing when it finds `req.cookies` set, and Velox's
 * `req.cookies` is a getter that parses on first read, so it always looked set. When a route's
 * chain is built, a middleware shaped like cookie-parser is wrapped so that `req.cookies` reads
 * as unset for it: it parses and assigns its own result (`j:` JSON cookies, signed cookies
 * checked against its secrets, `req.secret`), which the rest of the chain sees, as in Express.
 * Only chains holding such a middleware change; nothing runs per request anywhere else.
 */
import type { ChainFn } from './compose.ts';

/** Whether each function seen is shaped like cookie-parser (the same middleware sits in many chains). */
const seen = new WeakMap<Function, boolean>();

/**
 * Whether `fn` is a cookie-parser middleware: a `(req, res, next)` that assigns `.secret`,
 * `.cookies` and `.signedCookies`, which is what cookie-parser's does (minified or not). A
 * middleware that does all three is a cookie parser, and expects to find `req.cookies` unset.
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

/** `fn` if it is not cookie-parser; else cookie-parser, finding `req.cookies` unset unless a middleware assigned it. */
export function forCookieParser(fn: ChainFn): ChainFn {
  if (!isCookieParser(fn)) return fn;
  return (req, res, next) => {
    req._cookiesUnset();
    return fn(req, res, next);
  };
}
