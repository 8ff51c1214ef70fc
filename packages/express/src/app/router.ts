/**
 * Express 4's router, layer by layer: middlewares and routes in one ordered stack, matched with
 * path-to-regexp 0.1 (libs.ts), `router.param`, `next('route')`, `next('router')`, mount points
 * that strip their path from `req.url` and add it to `req.baseUrl`, `mergeParams`, and OPTIONS
 * answered with `Allow` when no route did. Written after Express 4's `lib/router`, for the same
 * behaviour on Velox's request and response.
 */
import { compilePath } from './libs.ts';

// Not an ESM import of node:http: on Node 22 that loads undici for good (see @velox/core's headers.ts).
const { METHODS } = process.getBuiltinModule('node:http');

/** Every HTTP method Node knows, lower-case (Express's `methods`). */
export const methods: string[] = METHODS.map((m) => m.toLowerCase());

/** `GET` → `get`, for the methods Node knows: no new string per request. */
const LOWER_METHODS = new Map<string, string>(METHODS.map((m) => [m, m.toLowerCase()]));

function lowerMethod(method: string): string {
  // The usual ones first: core hands them over as the program's own strings (a pointer compare).
  if (method === 'GET') return 'get';
  if (method === 'POST') return 'post';
  return LOWER_METHODS.get(method) ?? method.toLowerCase();
}

/** True when `record` has an enumerable key (no array of keys made). */
function hasAny(record: object): boolean {
  for (const _ in record) return true;
  return false;
}

/** What `called` is while a router has no `param()` callbacks: never written then. */
const NO_CALLS: Record<string, { error: unknown; match: unknown; value: unknown }> = Object.freeze({}) as never;
/** What `options` is for a method other than OPTIONS: never written then. */
const NO_OPTIONS: string[] = Object.freeze([]) as never;

/** A request as the router sees it. */
export type Req = any;
/** A response as the router sees it. */
export type Res = any;
/** Express's `next`: no argument, an error, `'route'` or `'router'`. */
export type Next = (err?: unknown) => void;
/** A middleware, route handler or error middleware. */
export type HandlerFn = (...args: any[]) => unknown;
/** Express 4's deprecated `router.param(fn)`: turns `(name, arg)` into a param callback, or returns nothing. */
export type ParamTransform = (name: string, arg: unknown) => ParamFn | undefined;
/** A `router.param()` callback. */
export type ParamFn = (req: Req, res: Res, next: Next, value: unknown, name: string) => unknown;

/**
 * Express's options of `express.Router()`.
 * @example
 * ```ts
 * const items = express.Router({ mergeParams: true, strict: false, caseSensitive: false });
 * ```
 */
export interface RouterOptions {
  /** `/Foo` and `/foo` are different paths. Default: false (the app's `case sensitive routing`). */
  caseSensitive?: boolean;
  /** Keep the parent router's `req.params`. Default: false. */
  mergeParams?: boolean;
  /** `/foo` and `/foo/` are different paths. Default: false (the app's `strict routing`). */
  strict?: boolean;
}

function decodeParam(value: unknown): unknown {
  if (typeof value !== 'string' || value.length === 0) return value;
  // Without a '%' there is nothing to decode (and nothing decodeURIComponent could refuse).
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) {
      err.message = `Failed to decode param '${value}'`;
      (err as any).status = (err as any).statusCode = 400;
    }
    throw err;
  }
}

/** A path path-to-regexp reads as plain text (no parameter, group, wildcard or escape). */
const PLAIN = /^[A-Za-z0-9_~./%-]*$/;

/**
 * How path-to-regexp 0.1 matches a plain path, without its regular expression: the text (`base`),
 * then an optional slash unless `strict`, then the end of the path (routes) or, for a middleware,
 * a `/` or the end after it (`lookahead`). Same answers as the expression (a test compares them).
 */
interface PlainPath {
  base: string;
  optionalSlash: boolean;
  end: boolean;
  lookahead: boolean;
  sensitive: boolean;
}

function plainPath(path: unknown, options: { sensitive?: boolean; strict?: boolean; end?: boolean }): PlainPath | undefined {
  if (typeof path !== 'string' || !PLAIN.test(path)) return undefined;
  const strict = options.strict === true;
  const end = options.end !== false;
  const trailing = path.endsWith('/');
  return {
    base: !strict && trailing ? path.slice(0, -1) : path,
    optionalSlash: !strict,
    end,
    lookahead: !end && !(strict && trailing),
    sensitive: options.sensitive === true,
  };
}

/**
 * Whether `path` holds `text` at `pos` as path-to-regexp's expression compares it: exactly when
 * `sensitive`, else with ASCII letters case-folded (the `i` flag folds ASCII letters only here,
 * since `text` is ASCII). The caller has checked that `path` is long enough.
 */
function sameText(path: string, pos: number, text: string, sensitive: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const a = path.charCodeAt(pos + i);
    const b = text.charCodeAt(i);
    if (a === b) continue;
    const lower = b | 0x20;
    if (sensitive || lower < 97 || lower > 122 || (a | 0x20) !== lower) return false;
  }
  return true;
}

/** The text a plain path matches at the start of `path` (what `regexp.exec(path)[0]` gives), or undefined. */
function matchPlain(plain: PlainPath, path: string): string | undefined {
  const base = plain.base;
  const n = base.length;
  if (path.length < n || !sameText(path, 0, base, plain.sensitive)) return undefined;
  const slashNext = path.charCodeAt(n) === 47;
  if (plain.end) {
    if (path.length === n || (plain.optionalSlash && slashNext && path.length === n + 1)) return path;
    return undefined;
  }
  if (plain.optionalSlash && slashNext) {
    // Greedy: take the slash if what follows is a slash or the end, else leave it to the lookahead.
    return path.length === n + 1 || path.charCodeAt(n + 1) === 47 ? path.slice(0, n + 1) : path.slice(0, n);
  }
  if (plain.lookahead && !(path.length === n || slashNext)) return undefined;
  return path.slice(0, n);
}

/** A route path of `/text` and `/:name` segments only (`/users/:id/posts`), with one parameter at least. */
const SEGMENTS = /^(?:\/(?:[A-Za-z0-9_~-]+|:\w+))*\/:\w+(?:\/(?:[A-Za-z0-9_~-]+|:\w+))*$/;

/**
 * How path-to-regexp 0.1 matches a route path of plain segments and `:name` segments, without
 * its expression (`^\/users(?:\/([^/]+?))\/?$`, case-folded unless `sensitive`): each literal
 * segment compared, each parameter one or more characters up to the next `/`, then an optional
 * slash unless `strict`, then the end. Same answers as the expression (a test compares them).
 */
interface SegmentPath {
  /** Each segment's text without its slash, or null for a parameter. */
  segments: Array<string | null>;
  optionalSlash: boolean;
  sensitive: boolean;
}

function segmentPath(path: unknown, options: { sensitive?: boolean; strict?: boolean; end?: boolean }): SegmentPath | undefined {
  if (typeof path !== 'string' || options.end === false || !SEGMENTS.test(path)) return undefined;
  return {
    segments: path
      .slice(1)
      .split('/')
      .map((segment) => (segment[0] === ':' ? null : segment)),
    optionalSlash: options.strict !== true,
    sensitive: options.sensitive === true,
  };
}

/**
 * The params of a match: `keys[i]` gets `values[first + i]` decoded, for `count` of them (a malformed escape throws
 * the 400 error); a key named twice keeps its last defined value, as Express's Layer does.
 */
function paramsOf(keys: Array<{ name: string | number }>, values: ArrayLike<string | undefined>, first: number, count: number): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const name = keys[i]!.name;
    const value = decodeParam(values[first + i]);
    if (value !== undefined || !Object.hasOwn(params, name)) params[name] = value;
  }
  return params;
}

/** matchSegments' output, read at once by Layer.match (nothing runs in between). */
const SCRATCH: string[] = [];

/** Fills `values` with the parameters' text (not decoded) when `path` matches, else returns false. */
function matchSegments(spec: SegmentPath, path: string, values: string[]): boolean {
  const segments = spec.segments;
  const n = path.length;
  let pos = 0;
  let k = 0;
  for (let s = 0; s < segments.length; s++) {
    if (path.charCodeAt(pos) !== 47) return false;
    pos++;
    const text = segments[s];
    if (text === null) {
      let end = pos;
      while (end < n && path.charCodeAt(end) !== 47) end++;
      if (end === pos) return false;
      values[k++] = path.slice(pos, end);
      pos = end;
      continue;
    }
    if (n - pos < text!.length || !sameText(path, pos, text!, spec.sensitive)) return false;
    pos += text!.length;
  }
  return pos === n || (spec.optionalSlash && pos === n - 1 && path.charCodeAt(pos) === 47);
}

/**
 * Consecutive route layers with plain paths (`/users/list`, not `/users/:id`): which of them a
 * path can match is a lookup instead of a walk. Only a layer the lookup names can match there
 * (matchPlain compares ASCII letters case-folded, and lower-casing the path finds every base it
 * would accept), so the router jumps over the others; the layer it lands on still matches as
 * usual. Layers of one run share case sensitivity and strictness.
 */
interface PlainRun {
  /** Stack position after the run's last layer. */
  end: number;
  /** Case-folded when the run is case-insensitive. */
  sensitive: boolean;
  /** Non-strict: `base/` matches too. */
  optionalSlash: boolean;
  /** Stack positions of the layers by their base (lower-case when insensitive), ascending. */
  byBase: Map<string, number[]>;
}

/** The runs of a stack, by stack position (undefined outside a run); built for one stack length. */
export interface PlainIndex {
  length: number;
  first: Layer | undefined;
  last: Layer | undefined;
  runAt: Array<PlainRun | undefined>;
  hasRuns: boolean;
}

/** Runs shorter than this are walked: the lookup would cost more. */
const MIN_RUN = 4;

/** @internal The plain route runs of `stack`. Exported for its tests. */
export function buildPlainIndex(stack: Layer[]): PlainIndex {
  const runAt: Array<PlainRun | undefined> = new Array(stack.length).fill(undefined);
  let i = 0;
  let hasRuns = false;
  while (i < stack.length) {
    const first = stack[i]!.plainRoute;
    if (first === undefined) {
      i++;
      continue;
    }
    let j = i;
    const byBase = new Map<string, number[]>();
    for (; j < stack.length; j++) {
      const plain = stack[j]!.plainRoute;
      if (plain === undefined || plain.sensitive !== first.sensitive || plain.optionalSlash !== first.optionalSlash) break;
      const key = plain.sensitive ? plain.base : plain.base.toLowerCase();
      const list = byBase.get(key);
      if (list) list.push(j);
      else byBase.set(key, [j]);
    }
    if (j - i >= MIN_RUN) {
      const run: PlainRun = { end: j, sensitive: first.sensitive, optionalSlash: first.optionalSlash, byBase };
      for (let k = i; k < j; k++) runAt[k] = run;
      hasRuns = true;
    }
    i = j;
  }
  return { length: stack.length, first: stack[0], last: stack[stack.length - 1], runAt, hasRuns };
}

/**
 * @internal The first position from `idx` on that holds a layer `path` may match: `idx` itself
 * outside a run. Exported for its tests.
 */
export function skipPlain(index: PlainIndex, idx: number, path: string): number {
  const run = index.runAt[idx];
  if (run === undefined) return idx;
  const key = run.sensitive ? path : path.toLowerCase();
  let to = firstFrom(run.byBase.get(key), idx, run.end);
  // Non-strict: `base/` matches `base` too.
  if (run.optionalSlash && key.length > 0 && key.charCodeAt(key.length - 1) === 47) to = firstFrom(run.byBase.get(key.slice(0, -1)), idx, to);
  return to;
}

/** The first position in `list` (ascending) at or after `idx` and before `limit`, else `limit`. */
function firstFrom(list: number[] | undefined, idx: number, limit: number): number {
  if (list === undefined) return limit;
  for (const at of list) {
    if (at >= limit) return limit;
    if (at >= idx) return at;
  }
  return limit;
}

/**
 * With the app setting `catch async errors` on, a handler's rejected promise goes to `next(err)`
 * (what express-async-errors does to Express 4, and Express 5 always does); off (Express 4's
 * default), the rejection stays unhandled, as in Express 4.
 */
function catchRejection(out: Promise<unknown>, req: Req, next: Next): void {
  if (!req.app?.get?.('catch async errors')) return;
  out.then(undefined, (err: unknown) => next(err ?? new Error('Rejected promise')));
}

/**
 * @internal A middleware's body that the router may run in place (`fn[kInline] = body`): it always
 * ends by calling `next()` once, synchronously and without an error, so the router runs `body(req,
 * res, next)` and goes on walking instead of being called back (the app's own `query` and
 * `expressInit`). A throw still reaches the error path, as from any layer.
 */
export const kInline: unique symbol = Symbol('velox.express.inline');
type InlineFn = (req: Req, res: Res, next: Next) => void;

/** One entry of a stack: a path pattern and its function. */
export class Layer {
  handle: HandlerFn;
  name: string;
  params: Record<string, unknown> | undefined = undefined;
  path: string | undefined = undefined;
  regexp: RegExp;
  keys: Array<{ name: string | number }>;
  route: Route | undefined = undefined;
  method: string | undefined = undefined;
  #fastStar: boolean;
  #fastSlash: boolean;
  #plain: PlainPath | undefined;
  #segments: SegmentPath | undefined;
  /** `handle.length`, read once per function (a function's length getter is slow to call per request). */
  #arityOf: HandlerFn | undefined = undefined;
  #arity = 0;
  /** The function given, and its in-place body when it has one (see kInline). */
  #given: HandlerFn;
  #inline: InlineFn | undefined;

  constructor(path: unknown, options: { sensitive?: boolean; strict?: boolean; end?: boolean }, fn: HandlerFn) {
    this.handle = fn;
    this.#given = fn;
    // In place only where the layer matches every path: a middleware at '/'.
    this.#inline = path === '/' && options.end === false ? (fn as { [kInline]?: InlineFn })[kInline] : undefined;
    this.name = fn.name || '<anonymous>';
    const compiled = compilePath(path, options);
    this.regexp = compiled.regexp;
    this.keys = compiled.keys;
    this.#fastStar = path === '*';
    this.#fastSlash = path === '/' && options.end === false;
    this.#plain = plainPath(path, options);
    this.#segments = this.#plain === undefined ? segmentPath(path, options) : undefined;
  }

  handleError(error: unknown, req: Req, res: Res, next: Next): void {
    const fn = this.handle;
    if (this.#arityFor(fn) !== 4) return next(error);
    try {
      const out = fn(error, req, res, next);
      if (out instanceof Promise) catchRejection(out, req, next);
    } catch (err) {
      next(err);
    }
  }

  handleRequest(req: Req, res: Res, next: Next): void {
    const fn = this.handle;
    if (this.#arityFor(fn) > 3) return next();
    try {
      const out = fn(req, res, next);
      if (out instanceof Promise) catchRejection(out, req, next);
    } catch (err) {
      next(err);
    }
  }

  /**
   * @internal The in-place body of the layer's function, for a middleware of every path (`use(fn)`);
   * undefined otherwise, or when `handle` was replaced.
   */
  get inline(): InlineFn | undefined {
    return this.handle === this.#given ? this.#inline : undefined;
  }

  /** @internal True while `handle` is the function the layer was made with (not replaced). */
  get original(): boolean {
    return this.handle === this.#given;
  }

  /** @internal The plain path of a route's layer (matched whole), for the router's index; else undefined. */
  get plainRoute(): PlainPath | undefined {
    return this.route !== undefined && this.#plain !== undefined && this.#plain.end ? this.#plain : undefined;
  }

  #arityFor(fn: HandlerFn): number {
    if (fn !== this.#arityOf) {
      this.#arityOf = fn;
      this.#arity = fn.length;
    }
    return this.#arity;
  }

  /** Whether the layer matches `path`; sets `params` and `path`. Throws a 400 error for a malformed escape. */
  match(path: string | undefined): boolean {
    if (path != null) {
      if (this.#fastSlash) {
        this.params = {};
        this.path = '';
        return true;
      }
      if (this.#fastStar) {
        this.params = { 0: decodeParam(path) };
        this.path = path;
        return true;
      }
    }
    if (this.#plain !== undefined && path != null) {
      const matched = matchPlain(this.#plain, path);
      if (matched === undefined) {
        this.params = undefined;
        this.path = undefined;
        return false;
      }
      this.params = {};
      this.path = matched;
      return true;
    }
    if (this.#segments !== undefined && path != null) {
      const values = SCRATCH;
      if (!matchSegments(this.#segments, path, values)) {
        this.params = undefined;
        this.path = undefined;
        return false;
      }
      this.path = path;
      this.params = paramsOf(this.keys, values, 0, this.keys.length);
      return true;
    }
    const match = path == null ? null : this.regexp.exec(path);
    if (!match) {
      this.params = undefined;
      this.path = undefined;
      return false;
    }
    this.path = match[0];
    this.params = paramsOf(this.keys, match, 1, match.length - 1);
    return true;
  }
}

function flatten(list: unknown[]): unknown[] {
  return list.flat(Number.POSITIVE_INFINITY);
}

function typeName(value: unknown): string {
  const type = typeof value;
  if (type !== 'object') return type;
  return Object.prototype.toString.call(value).replace(/^\[object (\S+)\]$/, '$1');
}

/**
 * A route: one path, handlers by method (`router.route(path)`, `app.route(path)`).
 * @example
 * ```ts
 * app.route('/book/:id').get(show).put(update);
 * ```
 */
export class Route {
  path: unknown;
  stack: Layer[] = [];
  methods: Record<string, boolean> = {};

  constructor(path: unknown) {
    this.path = path;
  }

  /** @internal Whether the route answers `method` (HEAD by its GET handlers). */
  handlesMethod(method: string): boolean {
    if (this.methods._all) return true;
    let name = lowerMethod(method);
    if (name === 'head' && !this.methods.head) name = 'get';
    return Boolean(this.methods[name]);
  }

  /** @internal The methods this route answers, for `Allow`. */
  allowedMethods(): string[] {
    const list = Object.keys(this.methods);
    if (this.methods.get && !this.methods.head) list.push('head');
    return list.map((m) => m.toUpperCase());
  }

  /** @internal Runs the route's handlers for a request. */
  dispatch(req: Req, res: Res, done: Next): void {
    let idx = 0;
    const stack = this.stack;
    let sync = 0;
    if (stack.length === 0) return done();
    let method = lowerMethod(req.method);
    if (method === 'head' && !this.methods.head) method = 'get';
    req.route = this;
    if (stack.length === 1) {
      // One handler: its next('route'), next('router'), next(err) and next() are what the
      // router's own next does with them once the route's stack is done, so it gets that one.
      const only = stack[0]!;
      if (only.method && only.method !== method) return done();
      only.handleRequest(req, res, done);
      return;
    }
    const next = (err?: unknown): void => {
      if (err && err === 'route') return done();
      if (err && err === 'router') return done(err);
      if (++sync > 100) {
        setImmediate(next, err);
        return;
      }
      const layer = stack[idx++];
      if (!layer) return done(err);
      if (layer.method && layer.method !== method) next(err);
      else if (err) layer.handleError(err, req, res, next);
      else layer.handleRequest(req, res, next);
      sync = 0;
    };
    next();
  }

  /**
   * Handlers for every method.
   * @example
   * ```ts
   * app.route('/book').all(authenticate).get(show);
   * ```
   */
  all(...handlers: unknown[]): this {
    for (const handle of flatten(handlers)) {
      if (typeof handle !== 'function') throw new TypeError(`Route.all() requires a callback function but got a ${Object.prototype.toString.call(handle)}`);
      const layer = new Layer('/', {}, handle as HandlerFn);
      layer.method = undefined;
      this.methods._all = true;
      this.stack.push(layer);
    }
    return this;
  }

  /** @internal Handlers for one method. */
  add(method: string, handlers: unknown[]): this {
    for (const handle of flatten(handlers)) {
      if (typeof handle !== 'function') {
        throw new Error(`Route.${method}() requires a callback function but got a ${Object.prototype.toString.call(handle)}`);
      }
      const layer = new Layer('/', {}, handle as HandlerFn);
      layer.method = method;
      this.methods[method] = true;
      this.stack.push(layer);
    }
    return this;
  }
}

for (const method of methods) {
  (Route.prototype as any)[method] = function (this: Route, ...handlers: unknown[]) {
    return this.add(method, handlers);
  };
}

/** Express's `mergeParams`: the parent's params under the layer's, numeric keys shifted. */
function mergeParams(params: Record<string, unknown>, parent: unknown): Record<string, unknown> {
  if (typeof parent !== 'object' || !parent) return params;
  const merged: Record<string, unknown> = { ...(parent as Record<string, unknown>) };
  if (!(0 in params) || !(0 in parent)) return Object.assign(merged, params);
  let i = 0;
  let o = 0;
  while (i in params) i++;
  while (o in parent) o++;
  for (i--; i >= 0; i--) {
    params[i + o] = params[i];
    if (i < o) delete params[i];
  }
  return Object.assign(merged, params);
}

/** The scheme and host of an absolute request target (`http://host`), else ''. */
function protohost(url: string): string {
  if (url.length === 0 || url[0] === '/') return '';
  const search = url.indexOf('?');
  const length = search !== -1 ? search : url.length;
  const fqdn = url.slice(0, length).indexOf('://');
  return fqdn !== -1 ? url.substring(0, url.indexOf('/', 3 + fqdn)) : '';
}

/** The path part of `req.url` (parseurl's pathname). */
function pathname(req: Req): string | undefined {
  const url: unknown = req.url;
  if (typeof url !== 'string') return undefined;
  const host = protohost(url);
  const rest = host ? url.slice(host.length) || '/' : url;
  const q = rest.indexOf('?');
  const hash = rest.indexOf('#');
  let end = q === -1 ? rest.length : q;
  if (hash !== -1 && hash < end) end = hash;
  return rest.slice(0, end);
}

/** The methods an OPTIONS request found, answered with `Allow` when nothing else answered. */
function optionsResponder(res: Res, options: string[], done: Next): Next {
  return (err?: unknown) => {
    if (err || options.length === 0) return done(err);
    try {
      const body = options.join(',');
      res.set('Allow', body);
      res.send(body);
    } catch (e) {
      done(e);
    }
  };
}

/**
 * Express 4's Router: call it as a middleware, or mount it with `use()`.
 * @example
 * ```ts
 * const api: Router = express.Router();
 * api.get('/ping', (req, res) => res.send('pong'));
 * app.use('/api', api);
 * ```
 */
export interface Router {
  (req: Req, res: Res, next: Next): void;
  params: Record<string, ParamFn[]>;
  paramTransforms: ParamTransform[];
  caseSensitive: boolean | undefined;
  mergeParams: boolean | undefined;
  strict: boolean | undefined;
  stack: Layer[];
  handle(req: Req, res: Res, out: Next): void;
  use(...args: unknown[]): Router;
  route(path: unknown): Route & Record<string, (...handlers: unknown[]) => Route>;
  param(name: string | string[] | ParamTransform, fn?: any): Router;
  all(path: unknown, ...handlers: unknown[]): Router;
  [method: string]: unknown;
}

const proto: Record<string, unknown> = {
  param(this: Router, name: string | string[] | ParamTransform, fn: ParamFn): Router {
    // Express 4's deprecated form: param(fn) adds a function that turns (name, arg) into the callback.
    if (typeof name === 'function') {
      this.paramTransforms.push(name);
      return this;
    }
    if (Array.isArray(name)) {
      for (const n of name) this.param(n, fn);
      return this;
    }
    if (name[0] === ':') name = name.slice(1);
    for (const transform of this.paramTransforms) {
      const made = transform(name, fn);
      if (made) fn = made;
    }
    if (typeof fn !== 'function') throw new Error(`invalid param() call for ${name}, got ${fn}`);
    (this.params[name] ??= []).push(fn);
    return this;
  },

  handle(this: Router, req: Req, res: Res, out: Next): void {
    const stack = this.stack;
    let idx = 0;
    let removed = '';
    let slashAdded = false;
    let sync = 0;
    const index = plainIndexOf(this);
    // Made when a layer with parameters meets a router with param() callbacks.
    let called: Record<string, { error: unknown; match: unknown; value: unknown }> = NO_CALLS;
    const host = protohost(req.url);
    let options: string[] = req.method === 'OPTIONS' ? [] : NO_OPTIONS;
    // pathname() of the last req.url seen: the same for every layer until a mount point trims it.
    let lastUrl: string | undefined;
    let lastPath: string | undefined;
    const parentParams = req.params;
    const parentUrl = req.baseUrl || '';
    const savedBase = req.baseUrl;
    const savedNext = req.next;
    const savedParams = req.params;
    let done: Next = (err?: unknown) => {
      req.baseUrl = savedBase;
      req.next = savedNext;
      req.params = savedParams;
      out(err);
    };
    if (req.method === 'OPTIONS') done = optionsResponder(res, options, done);

    const next = (err?: unknown): void => {
      let layerError = err === 'route' ? null : err;
      if (slashAdded) {
        req.url = req.url.slice(1);
        slashAdded = false;
      }
      if (removed.length !== 0) {
        req.baseUrl = parentUrl;
        req.url = host + removed + req.url.slice(host.length);
        removed = '';
      }
      if (layerError === 'router') {
        setImmediate(done, null);
        return;
      }
      if (idx >= stack.length) {
        setImmediate(done, layerError);
        return;
      }
      if (++sync > 100) {
        setImmediate(next, err);
        return;
      }
      const url = req.url;
      if (url !== lastUrl) {
        lastUrl = url;
        lastPath = pathname(req);
      }
      const path = lastPath;
      if (path == null) return done(layerError);

      let layer: Layer | undefined;
      let match: boolean | unknown = false;
      let route: Route | undefined;
      while (match !== true && idx < stack.length) {
        // (A stack changed while this request walks it is walked, not looked up.)
        if (index !== null && index.length === stack.length) {
          idx = skipPlain(index, idx, path);
          if (idx >= stack.length) break;
        }
        layer = stack[idx++]!;
        if (!layerError) {
          // A middleware of every path that runs in place (the app's query and expressInit): it
          // runs here and the walk goes on. It reads neither params nor the path, so the layer
          // is not matched (it matches every path) and req.params is left to the next layer.
          const inline = layer.inline;
          if (inline !== undefined) {
            try {
              inline(req, res, next);
            } catch (e) {
              layerError = e;
            }
            continue;
          }
        }
        try {
          match = layer.match(path);
        } catch (e) {
          match = e;
        }
        route = layer.route;
        if (typeof match !== 'boolean') layerError = layerError || match;
        if (match !== true) continue;
        if (!route) continue;
        if (layerError) {
          match = false;
          continue;
        }
        const method = req.method;
        const hasMethod = route.handlesMethod(method);
        if (!hasMethod && method === 'OPTIONS') {
          // A middleware may have made the request an OPTIONS one since (method-override).
          if (options === NO_OPTIONS) options = [];
          for (const m of route.allowedMethods()) if (!options.includes(m)) options.push(m);
        }
        if (!hasMethod && method !== 'HEAD') match = false;
      }
      if (match !== true || !layer) return done(layerError);
      if (route) req.route = route;
      req.params = this.mergeParams ? mergeParams(layer.params!, parentParams) : layer.params;
      const layerPath = layer.path!;
      const current = layer;
      if (current.keys.length === 0 || !hasAny(this.params)) {
        // No parameters, or no param() callbacks: the layer runs now (no continuation to make).
        if (route) {
          if (current.original) route.dispatch(req, res, next);
          else current.handleRequest(req, res, next);
        } else trimPrefix(current, layerError, layerPath, path);
        sync = 0;
        return;
      }
      if (called === NO_CALLS) called = {};
      processParams(this, current, called, req, res, (e?: unknown) => {
        if (e) next(layerError || e);
        else if (route) current.handleRequest(req, res, next);
        else trimPrefix(current, layerError, layerPath, path);
        sync = 0;
      });
    };

    const trimPrefix = (layer: Layer, layerError: unknown, layerPath: string, path: string): void => {
      if (layerPath.length !== 0) {
        if (layerPath !== path.slice(0, layerPath.length)) return next(layerError);
        const c = path[layerPath.length];
        if (c && c !== '/' && c !== '.') return next(layerError);
        removed = layerPath;
        req.url = host + req.url.slice(host.length + removed.length);
        if (!host && req.url[0] !== '/') {
          req.url = `/${req.url}`;
          slashAdded = true;
        }
        req.baseUrl = parentUrl + (removed[removed.length - 1] === '/' ? removed.slice(0, -1) : removed);
      }
      if (layerError) layer.handleError(layerError, req, res, next);
      else layer.handleRequest(req, res, next);
    };

    req.next = next;
    req.baseUrl = parentUrl;
    req.originalUrl = req.originalUrl || req.url;
    next();
  },

  use(this: Router, fn: unknown, ...rest: unknown[]): Router {
    let offset = 0;
    let path: unknown = '/';
    const all = [fn, ...rest];
    if (typeof fn !== 'function') {
      let arg = fn;
      while (Array.isArray(arg) && arg.length !== 0) arg = arg[0];
      if (typeof arg !== 'function') {
        offset = 1;
        path = fn;
      }
    }
    const callbacks = flatten(all.slice(offset));
    if (callbacks.length === 0) throw new TypeError('Router.use() requires a middleware function');
    for (const cb of callbacks) {
      if (typeof cb !== 'function') throw new TypeError(`Router.use() requires a middleware function but got a ${typeName(cb)}`);
      const layer = new Layer(path, { sensitive: this.caseSensitive, strict: false, end: false }, cb as HandlerFn);
      layer.route = undefined;
      this.stack.push(layer);
    }
    return this;
  },

  route(this: Router, path: unknown): Route {
    const route = new Route(path);
    const layer = new Layer(path, { sensitive: this.caseSensitive, strict: this.strict, end: true }, (req: Req, res: Res, next: Next) =>
      route.dispatch(req, res, next),
    );
    layer.route = route;
    this.stack.push(layer);
    return route;
  },
};

for (const method of [...methods, 'all']) {
  proto[method] = function (this: Router, path: unknown, ...handlers: unknown[]) {
    const route = this.route(path) as any;
    route[method === 'all' ? 'all' : method](...handlers);
    return this;
  };
}

const kPlainIndex = Symbol('velox.express.plainIndex');

/**
 * The router's index of plain route runs (null when it has none), made again when its stack
 * changed length or its first or last layer. A layer replaced in place by another at the same
 * position inside the stack is not seen: add or remove layers instead (as Express's API does).
 */
function plainIndexOf(router: Router): PlainIndex | null {
  const stack = router.stack;
  let index = (router as any)[kPlainIndex] as PlainIndex | undefined;
  if (index === undefined || index.length !== stack.length || index.first !== stack[0] || index.last !== stack[stack.length - 1]) {
    index = buildPlainIndex(stack);
    (router as any)[kPlainIndex] = index;
  }
  return index.hasRuns ? index : null;
}

/** Runs the `param()` callbacks of the layer's keys, each once per value per request. */
function processParams(router: Router, layer: Layer, called: Record<string, { error: unknown; match: unknown; value: unknown }>, req: Req, res: Res, done: Next): void {
  const params = router.params;
  const keys = layer.keys;
  if (!keys || keys.length === 0) return done();
  let i = 0;
  let paramIndex = 0;
  let key: { name: string | number };
  let paramVal: unknown;
  let paramCallbacks: ParamFn[] | undefined;
  let paramCalled: { error: unknown; match: unknown; value: unknown } | undefined;

  const param = (err?: unknown): void => {
    if (err) return done(err);
    if (i >= keys.length) return done();
    paramIndex = 0;
    key = keys[i++]!;
    const name = String(key.name);
    paramVal = req.params[name];
    paramCallbacks = params[name];
    paramCalled = called[name];
    if (paramVal === undefined || !paramCallbacks) return param();
    if (paramCalled && (paramCalled.match === paramVal || (paramCalled.error && paramCalled.error !== 'route'))) {
      req.params[name] = paramCalled.value;
      return param(paramCalled.error);
    }
    called[name] = paramCalled = { error: null, match: paramVal, value: paramVal };
    paramCallback();
  };

  const paramCallback = (err?: unknown): void => {
    const fn = paramCallbacks![paramIndex++];
    paramCalled!.value = req.params[String(key.name)];
    if (err) {
      paramCalled!.error = err;
      param(err);
      return;
    }
    if (!fn) return param();
    try {
      fn(req, res, paramCallback, paramVal, String(key.name));
    } catch (e) {
      paramCallback(e);
    }
  };
  param();
}

/**
 * Makes an Express 4 router (`express.Router()`).
 * @example
 * ```ts
 * const api = express.Router({ mergeParams: true });
 * api.param('id', loadUser);
 * api.route('/users/:id').get(show).put(update);
 * app.use('/api', api);
 * ```
 */
export function createRouter(options: RouterOptions = {}): Router {
  const router = function router(req: Req, res: Res, next: Next) {
    (router as Router).handle(req, res, next);
  } as Router;
  Object.setPrototypeOf(router, proto);
  router.params = {};
  router.paramTransforms = [];
  router.caseSensitive = options.caseSensitive;
  router.mergeParams = options.mergeParams;
  router.strict = options.strict;
  router.stack = [];
  return router;
}
