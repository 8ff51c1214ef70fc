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
import { checkName, checkValue, lowerName } from './headers.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { MiddlewareWrapper } from './options.ts';
import { isMetadataOnly, paramNames } from './routing.ts';
import type { Method, RouteDefinition, RouteInfo } from './types.ts';
import { loadUws } from './uws.ts';
import type { WebSocketRoutes } from './ws-routes.ts';

/**
 * The answer of a constant route (`Server.constantRoute()`): status 200, these headers, this body.
 * uWS adds Date and Content-Length.
 */
export interface ConstantAnswer {
  /** Header lines in order, each a name and a value of at most 255 bytes. */
  headers?: ReadonlyArray<readonly [string, string]>;
  /** The body, as UTF-8 text of at most 65,535 bytes. */
  body: string;
}

/** Headers uWS writes itself on every answer, or that a fixed answer must not carry. */
const WRITTEN_BY_UWS = new Set(['content-length', 'transfer-encoding', 'date', 'connection', 'keep-alive', 'upgrade', 'trailer']);

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
  /** Constant routes by path: uWS's declarative answers, built once. */
  #constants = new Map<string, { get: ArrayBuffer; head: (ures: HeadOnly) => void }>();
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
    if ((route.method === 'GET' || route.method === 'HEAD') && this.#constants.has(route.path)) {
      throw new VeloxError(ErrorCodes.DUPLICATE_ROUTE, `GET ${route.path} is already registered as a constant route`);
    }
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

  /** See `Server.constantRoute`. */
  addConstant(path: string, answer: ConstantAnswer): void {
    if (typeof path !== 'string' || !path.startsWith('/') || /[:*?#\s]/.test(path)) {
      throw invalidOption(`constantRoute() takes a plain path (no parameter, wildcard, query or space), starting with /; got ${JSON.stringify(path)}`);
    }
    if (answer === null || typeof answer !== 'object' || typeof answer.body !== 'string') {
      throw invalidOption(`constantRoute(${path}) needs an answer { headers?, body } whose body is a string`);
    }
    const encoder = new TextEncoder();
    const bytes = (text: string) => encoder.encode(text).byteLength;
    if (bytes(answer.body) > 0xffff) throw invalidOption(`constantRoute(${path}): the body is over 65,535 bytes; answer it with a route`);
    const uws = loadUws() as unknown as { DeclarativeResponse?: new () => DeclarativeResponse };
    if (typeof uws.DeclarativeResponse !== 'function') {
      throw invalidOption('constantRoute() needs uWS declarative responses, which this uWS build lacks');
    }
    let declared = new uws.DeclarativeResponse();
    const lines: Array<readonly [string, string]> = [];
    for (const [name, value] of answer.headers ?? []) {
      checkName(name);
      const text = checkValue(name, value);
      if (WRITTEN_BY_UWS.has(lowerName(name))) throw invalidOption(`constantRoute(${path}): ${name} is written by uWS or not allowed on a fixed answer`);
      if (bytes(name) > 255 || bytes(text) > 255) throw invalidOption(`constantRoute(${path}): the header ${name} is over 255 bytes`);
      declared = declared.writeHeader(name, text);
      lines.push([name, text]);
    }
    const twin = this.#life.config.strict ? undefined : twinOf(path);
    for (const each of twin === undefined ? [path] : [path, twin]) {
      if (this.#constants.has(each) || this.#routes.has(`GET ${each}`) || this.#routes.has(`HEAD ${each}`)) {
        throw new VeloxError(ErrorCodes.DUPLICATE_ROUTE, `GET ${each} is already registered`);
      }
    }
    const get = declared.end(answer.body);
    const length = String(bytes(answer.body));
    // HEAD: the same head, no body. uWS's endWithoutBody completes only when called without a
    // length (see response-write.ts), so Content-Length goes as a header.
    const head = (ures: HeadOnly) => {
      ures.cork(() => {
        ures.writeStatus('200 OK');
        for (const [name, value] of lines) ures.writeHeader(name, value);
        ures.writeHeader('Content-Length', length);
        ures.endWithoutBody();
      });
    };
    for (const each of twin === undefined ? [path] : [path, twin]) {
      const constant = { get, head };
      this.#constants.set(each, constant);
      if (this.mounted) this.#mountConstant(each, constant);
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
    for (const [path, constant] of this.#constants) this.#mountConstant(path, constant);
    for (const route of this.#routes.values()) this.#mountRoute(route);
    this.#ws.mount();
    // A user's own ANY /* is the fall-through then (uWS allows one handler per pattern).
    if (this.#routes.has('ANY /*')) return;
    const life = this.#life;
    const notFound: ChainFn = (req, res) => life.notFoundHandler(req, res);
    const chain = this.chainFor('/*', [notFound]);
    this.#app.any('/*', dispatcher(life, 'ANY', '/*', [], chain, life.serverFail, false));
  }

  /** Registers a constant route on uWS: GET answered by uWS itself, HEAD by its head alone. */
  #mountConstant(path: string, constant: { get: ArrayBuffer; head: (ures: HeadOnly) => void }): void {
    this.#app.get(path, constant.get as never);
    this.#app.head(path, constant.head as never);
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

/** What a constant route's HEAD calls on uWS's response. */
interface HeadOnly {
  cork(fn: () => void): void;
  writeStatus(status: string): void;
  writeHeader(name: string, value: string): void;
  endWithoutBody(): void;
}

/** uWS's builder of declarative answers (missing from @based/uws's typings). */
interface DeclarativeResponse {
  writeHeader(name: string, value: string): DeclarativeResponse;
  end(body: string): ArrayBuffer;
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
