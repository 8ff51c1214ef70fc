/**
 * The route table: the routes an application registered, the middlewares added with `use()`, and
 * how they become uWS routes: at `listen()` (or when added after it) each route gets its chain,
 * computed once (dispatch.ts), and is registered on uWS's native router.
 */
import type { TemplatedApp } from '@based/uws';
import type { ChainFn } from './compose.ts';
import { chainFor, dispatcher, type ScopedMiddleware } from './dispatch.ts';
import { makeFail } from './error-path.ts';
import { ErrorCodes, invalidOption, VeloxError } from './errors.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { MiddlewareWrapper } from './options.ts';
import { isMetadataOnly, paramNames } from './routing.ts';
import type { Method, RouteDefinition, RouteInfo } from './types.ts';
import type { WebSocketRoutes } from './ws-routes.ts';

const METHODS: Record<Method, 'get' | 'post' | 'put' | 'patch' | 'del' | 'head' | 'options' | 'any'> = {
  GET: 'get',
  POST: 'post',
  PUT: 'put',
  PATCH: 'patch',
  DELETE: 'del',
  HEAD: 'head',
  OPTIONS: 'options',
  ANY: 'any',
};

/** One server's routes and middlewares. */
export class RouteTable {
  /** Middlewares added with `use()`, in order. */
  readonly middlewares: ScopedMiddleware[] = [];
  /** What plugins added with `wrapMiddleware()`. */
  readonly wrappers: MiddlewareWrapper[] = [];
  /** True once the routes are registered on uWS (at the first `listen()`). */
  mounted = false;
  #routes = new Map<string, RouteDefinition>();
  /** The trailing-slash twins core added itself (strict off), to explain a clash with one. */
  #twins = new WeakSet<RouteDefinition>();
  #life: Lifecycle;
  #app: TemplatedApp;
  #ws: WebSocketRoutes;

  constructor(life: Lifecycle, app: TemplatedApp, ws: WebSocketRoutes) {
    this.#life = life;
    this.#app = app;
    this.#ws = ws;
  }

  /** See `Server.addRoute`. */
  add(route: RouteDefinition): void {
    if (!(route.method in METHODS)) throw invalidOption(`Unknown method ${route.method}; use one of ${Object.keys(METHODS).join(', ')}`);
    paramNames(route.path);
    if (route.handlers.length === 0 || route.handlers.some((h) => typeof h !== 'function')) {
      throw invalidOption(`${route.method} ${route.path} needs a handler function`);
    }
    if (route.handlers.every(isMetadataOnly)) {
      throw invalidOption(
        `${route.method} ${route.path} has only metadata-only middlewares (describeRoute(), say), which never run: add its handler function, last`,
      );
    }
    if (route.strict !== undefined && typeof route.strict !== 'boolean') {
      throw invalidOption(`${route.method} ${route.path}: strict must be true or false; got ${String(route.strict)}`);
    }
    const key = `${route.method} ${route.path}`;
    const existing = this.#routes.get(key);
    if (existing) {
      const why = this.#twins.has(existing) ? `, as the twin of ${route.method} ${twinOf(route.path)}: ${ONE_PATH}` : '';
      throw new VeloxError(ErrorCodes.DUPLICATE_ROUTE, `${route.method} ${route.path} is already registered${why}`);
    }
    const twin = (route.strict ?? this.#life.config.strict) ? undefined : twinOf(route.path);
    if (twin !== undefined && this.#routes.has(`${route.method} ${twin}`)) {
      throw new VeloxError(
        ErrorCodes.DUPLICATE_ROUTE,
        `${route.method} ${route.path} is already registered as ${route.method} ${twin}: ${ONE_PATH}`,
      );
    }
    if (key === 'ANY /*' && this.mounted) {
      throw new VeloxError(
        ErrorCodes.DUPLICATE_ROUTE,
        'ANY /* is the not-found route once the server listens; register your catch-all before listen(), or use setNotFoundHandler()',
      );
    }
    this.#routes.set(key, route);
    for (const hook of this.#life.hooks.onRoute) hook(route);
    if (this.mounted) this.#mountRoute(route);
    if (twin !== undefined) {
      const definition: RouteDefinition = { ...route, path: twin, strict: true };
      this.#twins.add(definition);
      this.add(definition);
    }
  }

  /** Every registered route. */
  list(): RouteInfo[] {
    return [...this.#routes.values()].map(({ method, path }) => ({ method, path }));
  }

  /** Every registered route as it was given to `add()` (twins as core made them), in order. */
  definitions(): readonly RouteDefinition[] {
    return Object.freeze([...this.#routes.values()]);
  }

  /** Registers every route on uWS, then the WebSocket routes, then the not-found route. */
  mount(): void {
    this.mounted = true;
    for (const route of this.#routes.values()) this.#mountRoute(route);
    this.#ws.mount();
    // A user's own ANY /* is the fall-through then (uWS allows one handler per pattern).
    if (this.#routes.has('ANY /*')) return;
    const life = this.#life;
    const notFound: ChainFn = (req, res) => life.notFoundHandler(req, res);
    const chain = this.chainFor('/*', [notFound]);
    this.#app.any('/*', dispatcher(life, 'ANY', '/*', [], chain, life.serverFail, false));
  }

  /** Registers one route on uWS, and its HEAD twin for GET routes. */
  #mountRoute(route: RouteDefinition): void {
    const life = this.#life;
    const names = paramNames(route.path);
    const chain = this.chainFor(route.path, route.handlers as ChainFn[]);
    const fail = makeFail(life, route.errorHandlers ?? []);
    const method = route.method;
    this.#app[METHODS[method]](route.path, dispatcher(life, method, route.path, names, chain, fail, method === 'HEAD'));
    if (method === 'GET' && !this.#routes.has(`HEAD ${route.path}`)) {
      this.#app.head(route.path, dispatcher(life, 'HEAD', route.path, names, chain, fail, true));
    }
  }

  /**
   * The server's middlewares that apply to a pattern, then the route's own functions, less those
   * marked metadata only (markMetadataOnly()): they describe the route and never run.
   */
  chainFor(pattern: string, own: ChainFn[]): ChainFn[] {
    const run = own.some(isMetadataOnly) ? own.filter((fn) => !isMetadataOnly(fn)) : own;
    return chainFor(this.#life, this.middlewares, this.wrappers, pattern, run);
  }
}

const ONE_PATH =
  "with strict off, a path with and without a trailing slash is one path (new Server({ strict: true }) or addRoute({ strict: true }) tells them apart)";

/**
 * The other spelling of a route's path, with or without a trailing slash; none for `/` and for
 * a `/*` route (which matches what follows the slash already).
 */
function twinOf(path: string): string | undefined {
  if (path === '/' || path.endsWith('/*')) return undefined;
  return path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
}
