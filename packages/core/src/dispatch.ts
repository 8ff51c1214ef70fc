/**
 * Dispatch: the function uWS calls for a route builds the Request and Response, runs the route's
 * middleware chain (computed once per route, here) and, when the handler goes async, puts the
 * response on the lifecycle's in-flight list with an abort handler.
 */
import type { HttpRequest, HttpResponse } from '@based/uws';
import { internalized } from './bag.ts';
import { type ChainFn, type Fail, run } from './compose.ts';
import { publishStart, requestStart, routeMatch } from './diagnostics.ts';
import { ErrorCodes, invalidOption, VeloxError } from './errors.ts';
import { encode, HeadCache } from './headers.ts';
import type { Lifecycle } from './lifecycle.ts';
import { mountAt } from './mount.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import { PrefixRelation, prefixMatcher, relateToPrefix } from './routing.ts';
import type { MiddlewareWrapper } from './options.ts';
import { kBodyUnstarted, kCloseAfter, kCloseAsked, kDetach, kRelease } from './symbols.ts';
import type { Method, Middleware } from './types.ts';

/** A middleware added with `use()`, with its prefix (`''` for every route). */
export interface ScopedMiddleware {
  prefix: string;
  fn: Middleware<any, any>;
}

/** The server's middlewares that apply to a pattern, then the route's own functions, as the wrappers leave each. */
export function chainFor(life: Lifecycle, middlewares: ScopedMiddleware[], wrappers: MiddlewareWrapper[], pattern: string, own: ChainFn[]): ChainFn[] {
  const chain: ChainFn[] = [];
  for (const hook of life.hooks.onRequest) {
    chain.push((req, res, next) => {
      const result = hook(req, res) as Promise<void> | undefined;
      if (result && typeof result.then === 'function') result.then(() => next(), next);
      else next();
    });
  }
  for (const { prefix, fn: given } of middlewares) {
    const relation = relateToPrefix(pattern, prefix);
    if (relation === PrefixRelation.Never) continue;
    // What plugins' wrappers make of it (wrapMiddleware()); most often the function itself.
    const fn = wrap(wrappers, given as ChainFn);
    // A prefixed middleware sees req.url relative to its prefix (mount.ts); use(mw) runs as is.
    const mounted = prefix === '' ? fn : mountAt(prefix, fn);
    if (relation === PrefixRelation.Always) chain.push(mounted);
    else {
      const matches = prefixMatcher(prefix);
      chain.push((req, res, next) => (matches(req.path) ? mounted(req, res, next) : next()));
    }
  }
  // Where the route's own functions start: next('route') from before here is next() (compose.ts).
  (chain as ChainFn[] & { routeStart?: number }).routeStart = chain.length;
  for (const fn of own) chain.push(wrap(wrappers, fn));
  return chain;
}


/** A chain function as the plugins' wrappers leave it. */
function wrap(wrappers: MiddlewareWrapper[], fn: ChainFn): ChainFn {
  for (let i = 0; i < wrappers.length; i++) {
    const wrapped = wrappers[i]!(fn as Middleware<any, any>);
    if (typeof wrapped !== 'function') throw invalidOption('A wrapMiddleware() wrapper must return a middleware function');
    fn = wrapped as ChainFn;
  }
  return fn;
}


/**
 * The method upper-case, as the program's own string for the usual ones: later comparisons
 * (`req.method === 'GET'`) and lookups by it then need no character compare or hash, and an
 * upper-case name needs no conversion.
 */
function upperMethod(raw: string): string {
  switch (raw) {
    case 'GET':
      return 'GET';
    case 'POST':
      return 'POST';
    case 'HEAD':
      return 'HEAD';
    case 'PUT':
      return 'PUT';
    case 'DELETE':
      return 'DELETE';
    case 'PATCH':
      return 'PATCH';
    case 'OPTIONS':
      return 'OPTIONS';
    default:
      return raw.toUpperCase();
  }
}

const CONNECTION = encode('connection');

/** The function uWS calls for one route. */
export function dispatcher(life: Lifecycle, method: Method, pattern: string, paramNames: string[], chain: ChainFn[], fail: Fail, head: boolean) {
  // The names as the engine's own copies (what a literal or a property key is): cut from the
  // pattern, they are new strings, and the store `params[name] = value` below then misses its
  // cache on every request, since the cache knows the key by identity (V8 marks the store
  // megamorphic after the second request: about 120 instructions per request under callgrind).
  const names = paramNames.map(internalized);
  const fixedMethod = method === 'ANY' ? undefined : method;
  const wildcard = pattern.endsWith('/*') ? pattern.length - 1 : -1;
  // Where the `*` part starts in the path: at the same offset as in the pattern when no parameter
  // comes before it, else after as many slashes as the pattern has before it (a parameter matches
  // one segment, of any length).
  const starSlashes = wildcard >= 0 && names.length > 0 ? slashesIn(pattern, wildcard) : 0;
  const hasParams = names.length > 0 || wildcard >= 0;
  // uWS matches a pattern without parameters only by the exact same path (no decoding, no
  // case folding, no trailing-slash leniency), so that path need not be asked from uWS.
  const fixedPath = hasParams ? undefined : pattern;
  const shape = paramsShape(names, wildcard >= 0);
  const heads = new HeadCache();
  // The pattern observers see (diagnostics.ts); none for the server's not-found route.
  const route = pattern === '/*' && fail === life.serverFail ? undefined : pattern;
  // The server's classes: core's own until the server adds a decoration, then its subclasses
  // (server.ts). Read per request, since a decoration may come after the routes are mounted.
  const classes = life.classes;
  // keepAliveHeader: a request that asks to close (uWS closes after answering one whose first
  // Connection line has 5 characters) is answered with Connection: close, as Node does. Read here,
  // once, while uWS's request is live; servers without the option never read it.
  const announces = life.keepAlive !== '';
  return (ures: HttpResponse, ureq: HttpRequest): void => {
    let m: string | undefined = fixedMethod;
    let isHead = head;
    if (m === undefined) {
      m = upperMethod(ureq.getCaseSensitiveMethod());
      isHead = m === 'HEAD';
    }
    const res = new classes.BuiltResponse(life, ures, isHead, heads);
    const req = new classes.BuiltRequest(life.server, ureq, ures, res, m, fixedPath);
    res.req = req;
    if (life.closing) res[kCloseAfter]();
    if (announces && ureq.getHeader(CONNECTION).length === 5) res[kCloseAsked] = true;
    if (requestStart.hasSubscribers || routeMatch.hasSubscribers) return observed(ures, ureq, req, res);
    if (hasParams) {
      const params = readParams(ureq, req, names, wildcard, starSlashes, shape);
      if (params === undefined) {
        fail(new VeloxError(ErrorCodes.BAD_ENCODING, 'Malformed percent-escape in the path', { status: 400 }), req, res);
      } else {
        req.params = params;
        run(chain, 0, req, res, fail);
      }
    } else {
      run(chain, 0, req, res, fail);
    }
    if (res.finished || res.aborted) {
      // Kept apart from goAsync so that this common path stays small enough to inline.
      req[kRelease]();
      return;
    }
    if (settlesInCallback === true && req[kBodyUnstarted]) {
      // The handler awaits something. What it awaits may well be settled already (a session in
      // memory, a cache hit): the promises it chains then run before uWS's callback returns, with
      // uWS's request still live and the socket corked, and the answer needs none of the work of
      // going async. Looked at after a few turns of the microtask queue (most handlers are done
      // by then), and at the latest from a tick, which runs once every microtask has run.
      RESOLVED.then(() => settle(life, req, res, ures, SETTLE_TURNS));
      return;
    }
    goAsync(life, req, res, ures);
    if (settlesInCallback === undefined) learn(ureq);
  };

  /**
   * The same start as above, for a request somebody observes (diagnostics.ts): published, and run
   * inside the subscribers' scopes. Kept apart so that the path nobody observes stays as it was.
   */
  function observed(ures: HttpResponse, ureq: HttpRequest, req: Request, res: Response): void {
    if (requestStart.hasSubscribers) publishStart(req, res, route, proceed, ures, ureq, req, res);
    else proceed(ures, ureq, req, res);
  }

  function proceed(ures: HttpResponse, ureq: HttpRequest, req: Request, res: Response): void {
    if (route !== undefined && routeMatch.hasSubscribers) routeMatch.publish({ req, res, route });
    const params = hasParams ? readParams(ureq, req, names, wildcard, starSlashes, shape) : undefined;
    if (hasParams && params === undefined) {
      fail(new VeloxError(ErrorCodes.BAD_ENCODING, 'Malformed percent-escape in the path', { status: 400 }), req, res);
    } else {
      if (params !== undefined) req.params = params;
      run(chain, 0, req, res, fail);
    }
    // Observed requests go async at once (no settling inside the callback): simpler to follow.
    if (res.finished || res.aborted) req[kRelease]();
    else goAsync(life, req, res, ures);
  }
}

const RESOLVED = Promise.resolve();

/**
 * Whether uWS runs the microtasks a route handler queued, and the ticks they queue, before its
 * callback returns, while its HttpRequest is still live. Node does so for a native callback
 * entered through MakeCallback at the top of the stack, as uWS.js v20.51 calls handlers (uWS
 * closes a connection that pipelines a request behind a pending answer, so a handler is never
 * called from inside JavaScript). Never assumed: learned on the first request that goes async
 * (undefined until then), by reading uWS's request from such a tick, which uWS refuses with an
 * exception once its callback has returned.
 */
let settlesInCallback: boolean | undefined;

function learn(ureq: HttpRequest): void {
  settlesInCallback = false;
  RESOLVED.then(() =>
    process.nextTick(() => {
      try {
        ureq.getMethod();
        settlesInCallback = true;
      } catch {
        settlesInCallback = false;
      }
    }),
  );
}

/** Turns of the microtask queue to wait for an answer before waiting for the tick. */
const SETTLE_TURNS = 2;

/** Still inside uWS's callback: done, another turn, or going async once every microtask ran. */
function settle(life: Lifecycle, req: Request, res: Response, ures: HttpResponse, turns: number): void {
  if (res.finished || res.aborted) req[kRelease]();
  else if (turns > 0) RESOLVED.then(() => settle(life, req, res, ures, turns - 1));
  else if (turns === 0) process.nextTick(settle, life, req, res, ures, -1);
  else goAsync(life, req, res, ures);
}

/** The handler went async: uWS needs an abort handler now, and its request dies on return. */
function goAsync(life: Lifecycle, req: Request, res: Response, ures: HttpResponse): void {
  res[kDetach]();
  req[kDetach]();
  // Bound rather than an arrow function: one object for uWS to keep, not a closure and its context.
  ures.onAborted(life.abort.bind(life, req, res));
  life.track(res);
}

/** For tests: whether the settle path is in use in this process (undefined until learned). */
export function settlesInUwsCallback(): boolean | undefined {
  return settlesInCallback;
}

/**
 * How a route builds `req.params`: a function made for the route that returns them as an object
 * literal (`{ id: …, '*': … }`), or, where the engine may not compile code from a string
 * (`--disallow-code-generation-from-strings`) or a name is `__proto__`, a template object that
 * each request copies. A literal is allocated whole, with its final hidden class; the copy goes
 * through the engine's object-clone path (about 100 instructions more per request, callgrind).
 * The names go in as JSON string literals: nothing of the pattern is ever read as code.
 */
type ParamsShape = ((ureq: HttpRequest, decode: (text: string) => string, star: string) => Record<string, string>) | Record<string, string>;

function paramsShape(names: string[], wildcard: boolean): ParamsShape {
  if (!names.includes('__proto__') && names.length > 0) {
    const reads = names.map((_, i) => `const v${i} = ureq.getParameter(${i});`);
    const fields = names.map((name, i) => `${JSON.stringify(name)}: decode(v${i})`);
    if (wildcard) fields.push(`'*': star`);
    try {
      return new Function('ureq', 'decode', 'star', `'use strict';\n${reads.join('\n')}\nreturn { ${fields.join(', ')} };`) as ParamsShape;
    } catch {
      // No code generation from strings here: the template below.
    }
  }
  // Defined rather than assigned: `shape.__proto__ = ''` would set no key at all.
  const shape: Record<string, string> = {};
  for (const name of names) Object.defineProperty(shape, name, { value: '', writable: true, enumerable: true, configurable: true });
  if (wildcard) shape['*'] = '';
  return shape;
}

/** Reads and decodes route parameters; undefined when an escape is malformed. */
function readParams(ureq: HttpRequest, req: Request, names: string[], wildcard: number, starSlashes: number, shape: ParamsShape): Record<string, string> | undefined {
  try {
    // A route whose only parameter is the wildcard (`/*`: the server's not-found route, the
    // catch-all of @velox/fetch) gets a literal: no copy of the template, and a store with a
    // constant key (about 150 instructions fewer per request under callgrind, Node 22).
    if (names.length === 0) return { '*': wildcardValue(req, wildcard, 0) };
    if (typeof shape === 'function') return shape(ureq, decoded, wildcard >= 0 ? wildcardValue(req, wildcard, starSlashes) : '');
    // A copy of the route's own template: every request's params share one hidden class, and the
    // stores below overwrite existing keys instead of adding properties.
    const params = { ...shape };
    for (let i = 0; i < names.length; i++) {
      // Never undefined for an index below the route's parameter count.
      params[names[i]!] = decoded(ureq.getParameter(i) as string);
    }
    if (wildcard >= 0) params['*'] = wildcardValue(req, wildcard, starSlashes);
    return params;
  } catch {
    return undefined;
  }
}

/**
 * What a route's `*` matched, decoded (throws on a malformed escape): the path from `wildcard` on,
 * or, with `slashes` > 0 (parameters before the `*`), from after that many slashes.
 */
function wildcardValue(req: Request, wildcard: number, slashes: number): string {
  // The request's path (read from uWS once, and kept for req.path and req.url).
  const path = req.path;
  let start = wildcard;
  if (slashes > 0) {
    start = 0;
    for (let n = 0; n < slashes; n++) {
      const at = path.indexOf('/', start);
      if (at < 0) return '';
      start = at + 1;
    }
  }
  return decoded(path.slice(start));
}

/** A part of the path percent-decoded (throws on a malformed escape); most have no `%` at all. */
function decoded(raw: string): string {
  return raw.indexOf('%') < 0 ? raw : decodeURIComponent(raw);
}

/** How many slashes `pattern` has before `end`. */
function slashesIn(pattern: string, end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) if (pattern.charCodeAt(i) === 47) count++;
  return count;
}
