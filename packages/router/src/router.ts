/**
 * A Router collects routes, middlewares and nested routers, and flattens itself into native
 * uWS routes when it is mounted: each route becomes one `server.addRoute()` whose handlers are
 * the middlewares that apply to it (outer routers first), then its own functions. Nothing is
 * walked per request, so a route three routers deep costs what a flat one does.
 */
import {
  type ErrorHandler,
  ErrorCodes,
  type Handler,
  isMetadataOnly,
  type Method,
  type Middleware,
  type Mountable,
  PrefixRelation,
  prefixMatcher,
  type RouteDefinition,
  type RouteInfo,
  relateToPrefix,
  type Server,
} from '@velox/core';
import { RouterErrorCodes, routerError } from './errors.ts';
import {
  FoldTable,
  hasTrailingSlash,
  hasWildcard,
  needsFolding,
  parsePattern,
  parsePrefix,
  routeKey,
  type Segment,
  toPath,
} from './paths.ts';
import type { RouterHandler } from './types.ts';

/**
 * Options of {@link Router}.
 *
 * @example
 * ```ts
 * const legacy = new Router({ caseSensitive: false, strict: true });
 * ```
 */
export interface RouterOptions {
  /**
   * Match the literal segments of this router's patterns case-sensitively, as uWS does natively.
   * With `false`, a path that differs from a route only in case is redirected (308) to the
   * registered spelling. Default: `true`.
   */
  caseSensitive?: boolean;
  /**
   * Treat `/a` and `/a/` as different paths. With `false`, every route is registered natively
   * under both spellings. Default: `false`.
   */
  strict?: boolean;
}

type Fn = Middleware<any, any>;

interface RouteEntry {
  kind: 'route';
  method: Method;
  segments: Segment[];
  handlers: Fn[];
}

interface ChildEntry {
  kind: 'child';
  segments: Segment[];
  router: Router<any>;
}

/** A middleware with its prefix, relative to the router (`use(mw)` has none). */
interface Scoped {
  segments: Segment[];
  fn: Fn;
}

/** A middleware with its full prefix, as it applies at one mount. */
interface Scope {
  segments: readonly Segment[];
  fn: Fn;
}

/** The catch-all routes of one router at one mount: case-folding redirects, then its not-found handler. */
interface CatchAll {
  path: string;
  table: FoldTable;
  notFound: Handler<any, any> | undefined;
}

/** Where one router sits in one mount: everything its routes need, computed once. */
interface Place {
  server: Server;
  segments: readonly Segment[];
  scopes: readonly Scope[];
  errorHandlers: Array<ErrorHandler<any, any>>;
  notFound: Handler<any, any> | undefined;
  catchAlls: readonly CatchAll[];
}

/**
 * A modular group of routes with its own middlewares, error handler and not-found handler.
 * Mount it on a server (`app.use('/api', router)`) or nest it in another router, at any depth.
 *
 * The type parameter declares parameters that come from the prefix the router is mounted at,
 * which its own patterns cannot show: `new Router<{ org: string }>()` for `/orgs/:org`.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { Router } from '@velox/router';
 *
 * const users = new Router();
 * users.use(auth);
 * users.get('/:id', (req, res) => res.json({ id: req.params.id }));
 * users.route('/:id/posts').get(listPosts).post(createPost);
 *
 * const api = new Router();
 * api.use('/users', users);
 *
 * const app = new Server();
 * app.use('/api', api);
 * ```
 */
export class Router<Base extends object = {}> implements Mountable {
  readonly #caseSensitive: boolean;
  readonly #strict: boolean;
  #middlewares: Scoped[] = [];
  #entries: Array<RouteEntry | ChildEntry> = [];
  #keys = new Set<string>();
  #errorHandler: ErrorHandler<any, any> | undefined;
  #notFoundHandler: Handler<any, any> | undefined;
  #places: Place[] = [];

  constructor(options: RouterOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw invalid('new Router() takes an options object, such as { caseSensitive: true, strict: false }');
    }
    const { caseSensitive = true, strict = false } = options;
    if (typeof caseSensitive !== 'boolean') throw invalid(`caseSensitive must be true or false; got ${String(caseSensitive)}`);
    if (typeof strict !== 'boolean') throw invalid(`strict must be true or false; got ${String(strict)}`);
    this.#caseSensitive = caseSensitive;
    this.#strict = strict;
  }

  /**
   * Adds middlewares for every route of this router (and of its nested routers), or for those
   * under a prefix; nests routers. Middlewares run in the order they were added, after the
   * server's and outer routers' ones, whether added before or after the routes.
   * @example
   * ```ts
   * router.use(auth);
   * router.use('/admin', requireAdmin);
   * router.use('/users', usersRouter);
   * ```
   */
  use(...args: Array<string | Middleware<any, any> | Router<any>>): this {
    let segments: Segment[] = [];
    let prefix = '';
    if (typeof args[0] === 'string') {
      prefix = args.shift() as string;
      segments = parsePrefix(prefix, !this.#caseSensitive);
    }
    if (args.length === 0) throw invalid('use() needs at least one middleware or router');
    for (const item of args) {
      if (item instanceof Router) this.#nest(segments, item);
      else if (typeof item === 'function') {
        this.#assertUnmounted('use(middleware)');
        this.#middlewares.push({ segments, fn: item });
      } else {
        throw invalid(`use() takes middleware functions or Routers${prefix ? ` after the prefix ${prefix}` : ''}; got ${typeof item}`);
      }
    }
    return this;
  }

  /** @example router.get('/users/:id', (req, res) => res.json({ id: req.params.id })); */
  get<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#add('GET', pattern, handlers as Fn[]);
  }
  /** @example router.post('/users', async (req, res) => res.status(201).json(await req.json())); */
  post<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#add('POST', pattern, handlers as Fn[]);
  }
  /** @example router.put('/users/:id', handler); */
  put<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#add('PUT', pattern, handlers as Fn[]);
  }
  /** @example router.patch('/users/:id', handler); */
  patch<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#add('PATCH', pattern, handlers as Fn[]);
  }
  /** @example router.delete('/users/:id', handler); */
  delete<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#add('DELETE', pattern, handlers as Fn[]);
  }
  /** @example router.head('/big', (req, res) => res.set('content-length', '1000').end()); */
  head<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#add('HEAD', pattern, handlers as Fn[]);
  }
  /** @example router.options('/x', (req, res) => res.set('allow', 'GET').sendStatus(204)); */
  options<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#add('OPTIONS', pattern, handlers as Fn[]);
  }
  /** Every method. @example router.any('/proxy/*', handler); */
  any<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#add('ANY', pattern, handlers as Fn[]);
  }

  /**
   * One pattern, several methods, chained.
   * @example
   * ```ts
   * router.route('/users/:id').get(show).put(update).delete(remove);
   * ```
   */
  route<const Path extends string>(pattern: Path): Route<Path, Base> {
    parsePattern(pattern, !this.#caseSensitive);
    return new Route<Path, Base>(pattern, (method, handlers) => this.#add(method, pattern, handlers));
  }

  /**
   * Sets the error handler for this router's routes and its nested routers' routes (after
   * theirs, before the server's). Throwing or rejecting in it hands the thrown error on.
   * @example
   * ```ts
   * router.setErrorHandler((err, req, res) => res.status(err.status ?? 500).json({ error: err.message }));
   * ```
   */
  setErrorHandler(handler: ErrorHandler<any, any>): this {
    if (typeof handler !== 'function') throw invalid('setErrorHandler() takes a function (err, req, res) => …');
    this.#assertUnmounted('setErrorHandler()');
    this.#errorHandler = handler;
    return this;
  }

  /**
   * Answers the paths under this router's prefix that no route matches (and methods no route
   * takes). The router's middlewares run first. It can be mounted at the root too, before
   * `listen()`: it then answers the paths no route takes, in place of the server's not-found handler.
   * @example
   * ```ts
   * api.setNotFoundHandler((req, res) => res.status(404).json({ error: `No ${req.method} ${req.path}` }));
   * app.use('/api', api);
   * ```
   */
  setNotFoundHandler(handler: Handler<any, any>): this {
    if (typeof handler !== 'function') throw invalid('setNotFoundHandler() takes a function (req, res) => …');
    this.#assertUnmounted('setNotFoundHandler()');
    this.#notFoundHandler = handler;
    return this;
  }

  /**
   * This router's routes, nested routers' included, with paths relative to the router, as
   * declared (without the trailing-slash twins and catch-alls that mounting adds; the server's
   * `app.routes()` lists those with full paths).
   * @example
   * ```ts
   * console.table(api.routes()); // [{ method: 'GET', path: '/users/:id' }, …]
   * ```
   */
  routes(): RouteInfo[] {
    const out: RouteInfo[] = [];
    this.#list([], out);
    return out;
  }

  /**
   * Flattens the router into the server's routes under a prefix (`''` for the root). Called by
   * `server.use(prefix, router)`; mounting one router at several prefixes works. Afterwards,
   * routes and nested routers added to it are registered at once wherever it is mounted, while
   * middlewares, error and not-found handlers are fixed.
   * @example
   * ```ts
   * app.use('/v1', api); // calls api.mount(app, '/v1')
   * app.use('/v2', api);
   * ```
   */
  mount(server: Server, prefix: string): void {
    if (!server || typeof (server as Server).addRoute !== 'function') throw invalid('mount() needs a @velox/core Server');
    this.#place(server, parsePrefix(prefix, false), undefined);
  }

  #add(method: Method, pattern: string, handlers: Fn[]): this {
    const segments = parsePattern(pattern, !this.#caseSensitive);
    if (handlers.length === 0 || handlers.some((h) => typeof h !== 'function')) {
      throw invalid(`${method} ${pattern} needs a handler function, last, after any middlewares`);
    }
    const key = routeKey(method, segments, this.#strict);
    if (this.#keys.has(key)) {
      const rules = [!this.#strict && 'with strict off, /a and /a/ are one path', !this.#caseSensitive && 'case is ignored', 'parameter names do not count'];
      throw routerError(
        RouterErrorCodes.DUPLICATE_ROUTE,
        `${method} ${pattern} is already registered on this router (${rules.filter(Boolean).join('; ')})`,
      );
    }
    this.#keys.add(key);
    const entry: RouteEntry = { kind: 'route', method, segments, handlers: [...handlers] };
    this.#entries.push(entry);
    for (const place of this.#places) this.#registerRoute(place, entry);
    return this;
  }

  #nest(segments: Segment[], child: Router<any>): void {
    if (child === this || child.#contains(this)) {
      throw routerError(RouterErrorCodes.CYCLE, 'A router cannot be nested inside itself, directly or through other routers');
    }
    // Placed first, so that a mount refused by the server (a catch-all at the root after
    // listen(), say) does not leave the router listed as nested.
    for (const place of this.#places) child.#place(place.server, [...place.segments, ...segments], place);
    this.#entries.push({ kind: 'child', segments, router: child });
  }

  #contains(router: Router<any>): boolean {
    for (const entry of this.#entries) {
      if (entry.kind === 'child' && (entry.router === router || entry.router.#contains(router))) return true;
    }
    return false;
  }

  #assertUnmounted(what: string): void {
    if (this.#places.length > 0) {
      throw routerError(
        RouterErrorCodes.MOUNTED,
        `${what} was called after the router was mounted, when its routes' chains are already built: call it before app.use(prefix, router). Routes and nested routers can still be added.`,
      );
    }
  }

  /** Mounts this router at one place: its routes, its catch-alls, its nested routers. */
  #place(server: Server, segments: readonly Segment[], parent: Place | undefined): void {
    const scopes: Scope[] = parent ? [...parent.scopes] : [];
    for (const mw of this.#middlewares) scopes.push({ segments: [...segments, ...mw.segments], fn: mw.fn });
    const inherited = parent?.errorHandlers ?? [];
    const place: Place = {
      server,
      segments,
      scopes,
      errorHandlers: this.#errorHandler ? [this.#errorHandler, ...inherited] : inherited,
      notFound: this.#notFoundHandler ?? parent?.notFound,
      catchAlls: parent?.catchAlls ?? [],
    };
    if (this.#notFoundHandler || !this.#caseSensitive) this.#registerCatchAll(place, parent);
    this.#places.push(place);
    for (const entry of this.#entries) {
      if (entry.kind === 'route') this.#registerRoute(place, entry);
      else entry.router.#place(server, [...segments, ...entry.segments], place);
    }
  }

  #registerRoute(place: Place, entry: RouteEntry): void {
    const full = [...place.segments, ...entry.segments];
    const handlers = this.#chain(place, full, entry.handlers);
    const errorHandlers = place.errorHandlers.length > 0 ? place.errorHandlers : undefined;
    const variants = this.#variants(full);
    for (const variant of variants) {
      // strict: the router has made the trailing-slash twins itself (or been told not to).
      place.server.addRoute({ method: entry.method, path: toPath(variant), handlers, errorHandlers, strict: true });
    }
    if (place.catchAlls.length > 0 && needsFolding(full)) {
      for (const catchAll of place.catchAlls) for (const variant of variants) catchAll.table.add(entry.method, variant);
    }
  }

  /** The middlewares that apply to a full pattern, outermost first, then the route's own functions. */
  #chain(place: Place, full: readonly Segment[], own: readonly Fn[]): Fn[] {
    const chain: Fn[] = [];
    for (const scope of place.scopes) {
      const relation = relateToPrefix(full, scope.segments);
      if (relation === PrefixRelation.Always) chain.push(scope.fn);
      else if (relation === PrefixRelation.Sometimes && !isMetadataOnly(scope.fn)) {
        // A metadata-only middleware (describeRoute()) describes the routes surely under its
        // prefix; core drops it from chains, but wrapped in this test it would run per request.
        const matches = prefixMatcher(scope.segments, full);
        const fn = scope.fn;
        chain.push((req, res, next) => (matches(req.path) ? fn(req, res, next) : next()));
      }
    }
    for (const fn of own) chain.push(fn);
    return chain;
  }

  /** The spellings a pattern is registered under: with `strict` off, with and without a trailing slash. */
  #variants(full: Segment[]): Segment[][] {
    if (this.#strict || full.length === 0 || hasWildcard(full)) return [full];
    if (hasTrailingSlash(full)) return full.length === 1 ? [full] : [full.slice(0, -1), full];
    return [full, [...full, { text: '', fold: false, lower: '' }]];
  }

  /**
   * Registers `ANY <prefix>/*` (case-folding redirects, then the not-found handler) and, with a
   * not-found handler, `ANY <prefix>` itself. uWS prefers literal and parameter routes to a
   * wildcard, and a method to ANY, so these only see what no route of the router takes. At the
   * root, `ANY /*` takes the place of core's own not-found route, which core allows before listen().
   */
  #registerCatchAll(place: Place, parent: Place | undefined): void {
    const path = toPath(place.segments);
    if (parent?.catchAlls.some((c) => c.path === path)) {
      // Nested without a prefix in a router that has a catch-all there already: share it.
      if (this.#notFoundHandler) {
        throw invalid(
          `A router nested without a prefix cannot have its own not-found handler when the outer router has a catch-all at ${path} ` +
            '(a not-found handler or caseSensitive: false): set the handler on the outer router, or nest under a prefix',
        );
      }
      return;
    }
    const catchAll: CatchAll = { path, table: new FoldTable(), notFound: place.notFound };
    const errorHandlers = place.errorHandlers.length > 0 ? place.errorHandlers : undefined;
    const table = catchAll.table;
    const redirect: Fn = (req, res, next) => {
      const target = table.canonical(req.method, req.path);
      if (target === undefined) return next();
      const query = req.rawQuery;
      res.redirect(308, query ? `${target}?${query}` : target);
    };
    const notFound = catchAll.notFound;
    const last: Fn = notFound
      ? (req, res) => notFound(req, res)
      : (_req, _res, next) => next(); // from the last function, core hands the request to the server's not-found handler
    const own = this.#keys;
    if (!own.has('ANY /*')) {
      const wildcard = [...place.segments, { text: '*', fold: false, lower: '*' }];
      const handlers = [redirect, ...this.#chain(place, wildcard, [last])];
      const route = { method: 'ANY' as const, path: toPath(wildcard), handlers, errorHandlers, strict: true };
      if (place.segments.length > 0) place.server.addRoute(route);
      else addRootCatchAll(place.server, route);
    }
    if (this.#notFoundHandler && !own.has('ANY /')) {
      // Exactly the prefix: `<prefix>/` falls into the `<prefix>/*` catch-all, which does the same.
      place.server.addRoute({ method: 'ANY', path, handlers: this.#chain(place, place.segments, [last]), errorHandlers, strict: true });
    }
    place.catchAlls = [...place.catchAlls, catchAll];
  }

  #list(prefix: readonly Segment[], out: RouteInfo[]): void {
    for (const entry of this.#entries) {
      if (entry.kind === 'route') out.push({ method: entry.method, path: toPath([...prefix, ...entry.segments]) });
      else entry.router.#list([...prefix, ...entry.segments], out);
    }
  }
}

/**
 * One pattern of a router, for chaining methods: what `router.route(pattern)` returns.
 *
 * @example
 * ```ts
 * router.route('/books/:isbn').get(show).put(requireAdmin, update);
 * ```
 */
export class Route<Path extends string, Base extends object = {}> {
  /** The pattern, as given to `route()`. */
  readonly pattern: Path;
  readonly #add: (method: Method, handlers: Fn[]) => void;

  /** @internal Made by {@link Router.route}. */
  constructor(pattern: Path, add: (method: Method, handlers: Fn[]) => void) {
    this.pattern = pattern;
    this.#add = add;
  }

  /** @example router.route('/a').get(handler); */
  get<const M extends Middleware[]>(...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#on('GET', handlers);
  }
  /** @example router.route('/a').post(handler); */
  post<const M extends Middleware[]>(...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#on('POST', handlers);
  }
  /** @example router.route('/a').put(handler); */
  put<const M extends Middleware[]>(...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#on('PUT', handlers);
  }
  /** @example router.route('/a').patch(handler); */
  patch<const M extends Middleware[]>(...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#on('PATCH', handlers);
  }
  /** @example router.route('/a').delete(handler); */
  delete<const M extends Middleware[]>(...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#on('DELETE', handlers);
  }
  /** @example router.route('/a').head(handler); */
  head<const M extends Middleware[]>(...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#on('HEAD', handlers);
  }
  /** @example router.route('/a').options(handler); */
  options<const M extends Middleware[]>(...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#on('OPTIONS', handlers);
  }
  /** Every method not given its own handler. @example router.route('/a').get(show).any(fallback); */
  any<const M extends Middleware[]>(...handlers: [...M, RouterHandler<Base, Path, M>]): this {
    return this.#on('ANY', handlers);
  }

  #on(method: Method, handlers: unknown[]): this {
    this.#add(method, handlers as Fn[]);
    return this;
  }
}

function invalid(message: string) {
  return routerError(RouterErrorCodes.INVALID_OPTION, message);
}

/**
 * Registers a router's `ANY /*`, which replaces core's not-found route. Core refuses it after
 * listen() (uWS is already routing) and when the server has an `ANY /*` already: say why, in
 * the router's terms.
 */
function addRootCatchAll(server: Server, route: RouteDefinition): void {
  try {
    server.addRoute(route);
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code !== ErrorCodes.DUPLICATE_ROUTE) throw err;
    const taken = server.routes().some((r) => r.method === 'ANY' && r.path === '/*');
    const why = taken
      ? "the server has one already (app.any('/*'), or another such router at the root): keep one catch-all at the root"
      : 'at the root it replaces the server\'s not-found route, which can only happen before listen(): mount or nest the router before listen()';
    throw routerError(
      RouterErrorCodes.ROOT_CATCH_ALL,
      `A router with a not-found handler or caseSensitive: false needs the catch-all route ANY /*, and ${why}, ` +
        "or mount it under a prefix (app.use('/api', router))",
      err,
    );
  }
}
