/**
 * The middleware: the CORS headers of a simple request set before `next()` (so error answers
 * carry them too), preflights answered here. Everything that does not depend on the request was
 * prepared by the factory; a simple request from an allowed origin reads one header, looks it up
 * in one Map and sets prepared headers.
 */
import { type Middleware, type Next, PreparedHeader, type Request, type Response } from '@velox/core';
import { badOriginResult, badPreflight } from './errors.ts';
import { type CorsOptions, type Settings, settingsOf } from './options.ts';
import { isOrigin, MAX_ORIGIN_LENGTH } from './origin.ts';

/**
 * The longest Access-Control-Request-Headers that is reflected, in characters. A browser lists
 * the names of the headers its request will carry; uWS refuses a request of more than 98
 * headers (431) and a head over 16 KB, so a longer list asks for a request that cannot be served.
 */
export const MAX_REQUEST_HEADERS_LENGTH = 4096;

const ACAO = 'access-control-allow-origin';
const ACAH = 'access-control-allow-headers';
const ACRM = 'access-control-request-method';
const ACRH = 'access-control-request-headers';

const ANY_ORIGIN = new PreparedHeader('Access-Control-Allow-Origin', '*');
const ALLOW_CREDENTIALS = new PreparedHeader('Access-Control-Allow-Credentials', 'true');
const VARY_ORIGIN = new PreparedHeader('Vary', 'Origin');
const VARY_REQUEST_HEADERS = new PreparedHeader('Vary', 'Access-Control-Request-Headers');

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Header names separated by commas, with optional spaces or tabs around the commas. Linear: names hold no space or comma. */
const HEADER_LIST = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:[ \t]*,[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/;

/**
 * Cross-origin resource sharing for Velox: a middleware for `app.use()` (every route, or a
 * prefix) or for one route. Checks its options when called (a bad one throws
 * `VELOX_ERR_CORS_INVALID_OPTION`) and prepares every header value then.
 *
 * - A simple request (any request but a preflight) from an allowed origin gets
 *   Access-Control-Allow-Origin (and -Credentials, -Expose-Headers) before the route runs, so the
 *   route's answer and any error answer (404, 413, a thrown 500) carry them.
 * - A preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered here
 *   (`optionsSuccessStatus`, no body), whether or not an OPTIONS route exists, unless
 *   `preflightContinue`. An OPTIONS without Access-Control-Request-Method is not a preflight: it
 *   goes on to the app's OPTIONS route with the headers of a simple request.
 * - A disallowed origin gets no Access-Control-* header and the normal answer: its preflight
 *   goes on to the app too (its OPTIONS route, another `cors()`, or the not-found answer).
 * - `Vary: Origin` on every answer whose headers depend on the origin.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { cors } from '@velox/cors';
 *
 * const app = new Server();
 * app.use(cors({ origin: ['https://app.example.com', /\.trusted\.example$/], credentials: true, exposedHeaders: ['x-total'], maxAge: 600 }));
 * app.use('/public', cors());                    // any origin, under /public
 * app.get('/widget', cors({ origin: 'https://partner.example' }), (req, res) => res.json({ ok: true }));
 * ```
 */
export function cors(options?: CorsOptions): Middleware {
  const s = settingsOf(options);
  if (s.disabled) return passOn;
  if (s.originFn !== undefined) return dynamicCors(s, s.originFn);
  const any = s.any;
  return (req, res, next) => {
    const isOptions = req.method === 'OPTIONS';
    // With '*' (no credentials) every origin gets the same answer: only a preflight needs the header.
    const origin = any && !isOptions ? '' : req.firstHeader('origin');
    if (!any) vary(res, VARY_ORIGIN, 'Origin');
    if (isOptions && origin !== '') {
      const acrm = req.firstHeader(ACRM);
      if (acrm !== '') return preflight(s, req, res, next, origin, acrm);
    }
    if (allow(s, res, origin)) allowSimple(s, res);
    next();
  };
}

function passOn(req: Request, res: Response, next: Next): void {
  next();
}

/** The middleware for an origin function: its result (awaited when it is a promise) decides. */
function dynamicCors(s: Settings, fn: NonNullable<Settings['originFn']>): Middleware {
  return (req, res, next) => {
    vary(res, VARY_ORIGIN, 'Origin');
    const origin = req.firstHeader('origin');
    let acrm = '';
    let acrh = '';
    if (origin !== '' && req.method === 'OPTIONS') {
      acrm = req.firstHeader(ACRM);
      if (acrm !== '') {
        if (s.reflectHeaders) acrh = req.firstHeader(ACRH);
        const problem = problemOf(acrm, acrh);
        if (problem !== undefined) {
          if (s.strict) return next(badPreflight(problem));
          return answerPreflight(s, res, next, false, '');
        }
      }
    }
    // The function sees only one well-formed origin, or the literal `null`.
    if (origin === '' || (origin !== 'null' && !isOrigin(origin))) return settle(s, res, next, acrm, acrh, false);
    const result = fn(origin, req);
    if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
      return Promise.resolve(result).then((value) => settle(s, res, next, acrm, acrh, decide(s, res, origin, value)));
    }
    settle(s, res, next, acrm, acrh, decide(s, res, origin, result));
  };
}

/** After the origin was decided (Access-Control-Allow-Origin set when allowed): a preflight's answer, or a simple request's headers and next(). */
function settle(s: Settings, res: Response, next: Next, acrm: string, acrh: string, allowed: boolean): void {
  if (acrm !== '') return answerPreflight(s, res, next, allowed, acrh);
  if (allowed) allowSimple(s, res);
  next();
}

/** Sets Access-Control-Allow-Origin when a static setting allows `origin` ('' when absent); returns whether it does. */
function allow(s: Settings, res: Response, origin: string): boolean {
  if (s.any) {
    res.setPrepared(ANY_ORIGIN);
    return true;
  }
  if (origin === '' || origin.length > MAX_ORIGIN_LENGTH) return false;
  const header = s.exact.get(origin);
  if (header !== undefined) {
    res.setPrepared(header);
    return true;
  }
  const patterns = s.patterns;
  if ((!s.reflect && patterns.length === 0) || !isOrigin(origin)) return false;
  if (!s.reflect) {
    let i = 0;
    while (i < patterns.length && !patterns[i]!.test(origin)) i++;
    if (i === patterns.length) return false;
  }
  res.set(ACAO, origin);
  return true;
}

/** Applies what an origin function returned to the request's origin; sets Access-Control-Allow-Origin when it allows it. */
function decide(s: Settings, res: Response, origin: string, value: unknown): boolean {
  if (value === false || value === null || value === undefined) return false;
  if (value === '*' && !s.credentials) {
    res.setPrepared(ANY_ORIGIN);
    return true;
  }
  // true, or '*' with credentials: reflect any well-formed origin, never `null`.
  const allowed = value === true || value === '*' ? isOrigin(origin) : matches(value, origin);
  if (allowed) res.set(ACAO, origin);
  return allowed;
}

function matches(value: unknown, origin: string): boolean {
  if (typeof value === 'string') return value === origin;
  if (value instanceof RegExp) {
    value.lastIndex = 0;
    return isOrigin(origin) && value.test(origin);
  }
  if (Array.isArray(value)) {
    let found = false;
    for (const item of value) {
      if (typeof item !== 'string' && !(item instanceof RegExp)) throw badOriginResult(value);
      if (!found && matches(item, origin)) found = true;
    }
    return found;
  }
  throw badOriginResult(value);
}

/** The headers of a simple request from an allowed origin, besides Access-Control-Allow-Origin. */
function allowSimple(s: Settings, res: Response): void {
  if (s.credentials) res.setPrepared(ALLOW_CREDENTIALS);
  if (s.exposed !== undefined) res.setPrepared(s.exposed);
}

function preflight(s: Settings, req: Request, res: Response, next: Next, origin: string, acrm: string): void {
  const acrh = s.reflectHeaders ? req.firstHeader(ACRH) : '';
  const problem = problemOf(acrm, acrh);
  if (problem !== undefined) {
    if (s.strict) return next(badPreflight(problem));
    return answerPreflight(s, res, next, false, '');
  }
  answerPreflight(s, res, next, allow(s, res, origin), acrh);
}

/** Why a preflight's request headers are malformed, or undefined when they are fine. `acrh` is only given when it is to be reflected. */
function problemOf(acrm: string, acrh: string): string | undefined {
  if (!TOKEN.test(acrm)) return 'Access-Control-Request-Method is not a method name';
  if (acrh === '') return undefined;
  if (acrh.length > MAX_REQUEST_HEADERS_LENGTH) return `Access-Control-Request-Headers is longer than ${MAX_REQUEST_HEADERS_LENGTH} characters`;
  if (!HEADER_LIST.test(acrh)) return 'Access-Control-Request-Headers is not a comma-separated list of header names';
  return undefined;
}

/** A preflight's answer (Access-Control-Allow-Origin already set when allowed), or next() when disallowed or with `preflightContinue`. */
function answerPreflight(s: Settings, res: Response, next: Next, allowed: boolean, acrh: string): void {
  // A disallowed preflight goes on, without Access-Control-* headers, to what the app answers
  // (its OPTIONS route, another cors() under a prefix, or the not-found answer).
  if (!allowed) return next();
  if (s.credentials) res.setPrepared(ALLOW_CREDENTIALS);
  if (s.methods !== undefined) res.setPrepared(s.methods);
  if (s.reflectHeaders) {
    vary(res, VARY_REQUEST_HEADERS, 'Access-Control-Request-Headers');
    if (acrh !== '') res.set(ACAH, acrh);
  } else if (s.allowHeaders !== undefined) res.setPrepared(s.allowHeaders);
  if (s.maxAge !== undefined) res.setPrepared(s.maxAge);
  if (s.preflightContinue) return next();
  if (s.cacheControl !== undefined) res.setPrepared(s.cacheControl);
  res.status(s.status).end();
}

/** Adds a token to Vary: the prepared header when there is no Vary yet, else core's res.vary (which keeps every token once). */
function vary(res: Response, header: PreparedHeader, token: string): void {
  if (res.hasHeader('vary')) res.vary(token);
  else res.setPrepared(header);
}
