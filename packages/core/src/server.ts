/**
 * The server: what an application and its plugins call (options, routes, middlewares, hooks,
 * decorations, plugins, listen, inject and close). The request lifecycle itself lives in the
 * files it delegates to: dispatch.ts (uWS callback → Request/Response → chain), lifecycle.ts
 * (what a request needs while it runs), error-path.ts, decorate.ts, listen.ts, inject.ts,
 * signals.ts and ws-routes.ts (see docs/architecture.md).
 */
import type { TemplatedApp, us_listen_socket } from '@based/uws';
import type { ChainFn } from './compose.ts';
import { type Decoration, decorate } from './decorate.ts';
import { ErrorCodes, invalidOption, VeloxError } from './errors.ts';
import { baseClasses, buildOnto, ownPrototype, type ServerClasses } from './classes.ts';
import { type InjectInit, InjectSocket, inject } from './inject.ts';
import { type HookLists, Lifecycle } from './lifecycle.ts';
import { bind, type CloseOptions, createTlsApp, drain, type ListenCallback, type ListenInfo, type ListenOptions, type ListenTarget, parseListenArgs } from './listen.ts';
import { type Config, type MiddlewareWrapper, parseOptions, type ServerConfig, type ServerOptions, type UseExtension } from './options.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import { sweepSpillFiles } from './body-spill.ts';
import { attachRequestLog } from './request-log.ts';
import { type ConstantAnswer, RouteTable } from './route-table.ts';
import { isMetadataOnly, normalizePrefix, prefixMatcher } from './routing.ts';
import { type CloseOnSignalsOptions, installSignals } from './signals.ts';
import { kClasses, kConfig, kHooks } from './symbols.ts';
import type { ErrorHandler, ErrorMiddleware, Handler, HookName, Hooks, Logger, Method, Middleware, Mountable, ParamsOf, Plugin, RouteDefinition, RouteHandler, RouteInfo } from './types.ts';
import { loadUws, type Uws } from './uws.ts';
import { type PublishOptions, type WebSocketMessage, type WebSocketRoute, WebSocketRoutes } from './ws-routes.ts';



/**
 * A Velox HTTP server on uWebSockets.js.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * const app = new Server({ maxBodyLength: 1024 * 1024 });
 * app.use(async (req, res, next) => { res.set('x-request-id', '1'); next(); });
 * app.get('/', (req, res) => res.send('Hi'));
 * app.get('/id/:id', (req, res) => res.send(`${req.params.id} ${req.query.name}`));
 * app.post('/json', async (req, res) => res.json(await req.json()));
 * const { port } = await app.listen(0, '127.0.0.1');
 * await app.close();
 * ```
 */
export class Server {
  /** @internal */
  readonly [kConfig]: Config;
  /** @internal */
  readonly [kHooks]: HookLists;
  /** @internal This server's Request and Response classes, which its decorations go on. */
  readonly [kClasses]: ServerClasses;

  /** What this server's requests and responses call while they run. */
  #life: Lifecycle;
  #uwsModule: Uws;
  #app: TemplatedApp;
  #ws: WebSocketRoutes;
  #table: RouteTable;
  /** What plugins added with extendUse(). */
  #useExtensions: UseExtension[] = [];
  #publicConfig: ServerConfig | undefined;
  #pending: Promise<void> | undefined;
  #listenSocket: us_listen_socket | undefined;
  /** The hidden listen socket of inject() (inject.ts), made at the first inject. */
  #injector: InjectSocket | undefined;
  /** True from close() until the next listen(): inject() then refuses. */
  #closed = false;
  /** The sweep of body files crashed processes left (body-spill.ts), run once. */
  #swept: Promise<unknown> | undefined;
  #uninstallSignals: (() => void) | undefined;

  constructor(options: ServerOptions = {}) {
    const config: Config = parseOptions(options);
    this[kClasses] = baseClasses();
    this.#life = new Lifecycle(this, config, this[kClasses]);
    this[kConfig] = config;
    this[kHooks] = this.#life.hooks;
    this.#uwsModule = loadUws();
    this.#app = options.tls ? createTlsApp(this.#uwsModule, options.tls) : this.#uwsModule.App();
    this.#ws = new WebSocketRoutes(this.#life, this.#app);
    this.#table = new RouteTable(this.#life, this.#app, this.#ws);
    if (config.requestLog) this.addHook('onClose', attachRequestLog(this, config.requestLog));
  }

  /**
   * The raw uWebSockets.js app, for what Velox does not wrap. Routes added here bypass Velox.
   * @example
   * ```ts
   * app.uws.publish('news', 'hello');
   * ```
   */
  get uws(): TemplatedApp {
    return this.#app;
  }

  /** True between a successful `listen()` and `close()` (the socket of `inject()` does not count). */
  get listening(): boolean {
    return this.#listenSocket !== undefined;
  }

  /**
   * The logger from the options (`console` unless told otherwise), or `undefined` with
   * `logger: false`: plugins log through it, so that one option silences or redirects them all.
   * @example
   * ```ts
   * const plugin: Plugin = (server) => {
   *   server.addHook('onListen', () => server.logger?.warn('cache is cold'));
   * };
   * ```
   */
  get logger(): Logger | undefined {
    return this[kConfig].logger;
  }

  /**
   * The options this server was made with, as it applies them (defaults filled in), read-only:
   * for plugins that must follow what the server does (behind which proxies, over TLS or not).
   * The cookie secrets and the logger are not in it (`logger` has its own getter).
   * @example
   * ```ts
   * const plugin: Plugin = (server) => {
   *   if (server.config.tls) server.addHook('onSend', (req, res) => res.set('strict-transport-security', 'max-age=31536000'));
   * };
   * ```
   */
  get config(): ServerConfig {
    // The first read builds it apart: a getter this small is inlined where it is read on every
    // request (@velox/fetch), where the whole of it ran unoptimized on Node 22.
    return this.#publicConfig ?? this.#buildPublicConfig();
  }

  #buildPublicConfig(): ServerConfig {
    const { maxBodyLength, strict, trustProxy, trust, parseCookies, tls, exposeErrors, keepAliveHeader } = this[kConfig];
    return (this.#publicConfig = Object.freeze({ maxBodyLength, strict, trustProxy: trustProxy ?? false, trust, parseCookies, tls, exposeErrors, keepAliveHeader }));
  }

  /**
   * Adds middleware for every route, or for the routes under a prefix; also mounts routers.
   * While a prefixed middleware runs, `req.url` and `req.path` are relative to the prefix and
   * `req.baseUrl` holds it, as in Express. Arguments a plugin took with {@link Server.extendUse}
   * go to that plugin instead. A function of four arguments `(err, req, res, next)` is an Express
   * error middleware: it needs `nodeCompat` of `@velox/express` (registered before this call),
   * else this throws `VELOX_ERR_PLUGIN_MISSING`; {@link Server.addErrorHandler} adds an error
   * handler on any server.
   * @example
   * ```ts
   * app.use(cors());
   * app.use('/admin', requireAdmin);
   * app.use('/api', apiRouter);
   * ```
   */
  use(...args: Array<string | Middleware<any, any> | Mountable>): this;
  use(...args: unknown[]): this {
    if (this.#table.mounted) throw invalidOption('use() must come before listen() and the first inject(): middleware chains are computed once, then');
    let prefix = '';
    if (typeof args[0] === 'string') prefix = normalizePrefix(args.shift() as string);
    if (args.length === 0) throw invalidOption('use() needs at least one middleware or router');
    items: for (const item of args) {
      for (const take of this.#useExtensions) if (take(item, prefix)) continue items;
      // Express tells error middlewares by their four declared arguments.
      if (typeof item === 'function' && item.length === 4) {
        throw new VeloxError(
          ErrorCodes.PLUGIN_MISSING,
          "use() got a function of four arguments, an Express error middleware (err, req, res, next): it needs the nodeCompat plugin of @velox/express: import { nodeCompat } from '@velox/express'; await app.register(nodeCompat) before this use(), or add it with app.addErrorHandler()",
        );
      }
      if (isMetadataOnly(item)) {
        throw invalidOption(
          'use() got a metadata-only middleware (describeRoute(), say): it describes the routes it is given to and never runs, and a server-wide middleware is in no route: give it to a route, or to a router (router.use())',
        );
      }
      if (typeof item === 'function') this.#table.middlewares.push({ prefix, fn: item as Middleware<any, any> });
      else if (item && typeof (item as Mountable).mount === 'function') (item as Mountable).mount(this, prefix);
      else throw invalidOption(`use() takes middleware functions or routers, got ${item === null ? 'null' : typeof item}`);
    }
    return this;
  }

  /**
   * Adds an error handler `(err, req, res, next)` for every request, or for those under a prefix
   * (matched on the URL as received). Error handlers run when an error reaches the error path
   * (thrown, rejected or passed to `next(err)`), after the `onError` hooks and router-scoped
   * handlers and before the server's ({@link Server.setErrorHandler}), in the order added. Each
   * answers, or hands an error on with `next(err)`; `next()` with nothing hands the request to the
   * not-found handler. (`nodeCompat` of `@velox/express` adds Express error middlewares given to
   * `use()` here.)
   * @example
   * ```ts
   * app.addErrorHandler('/api', (err, req, res, next) => {
   *   if (err.code !== 'EBADCSRFTOKEN') return next(err);
   *   res.status(403).json({ error: 'form tampered with' });
   * });
   * ```
   */
  addErrorHandler(handler: ErrorMiddleware<any, any>): this;
  addErrorHandler(prefix: string, handler: ErrorMiddleware<any, any>): this;
  addErrorHandler(prefixOrHandler: string | ErrorMiddleware<any, any>, maybe?: ErrorMiddleware<any, any>): this {
    const prefix = typeof prefixOrHandler === 'string' ? normalizePrefix(prefixOrHandler) : '';
    const handler = typeof prefixOrHandler === 'string' ? maybe : prefixOrHandler;
    if (typeof handler !== 'function') throw invalidOption('addErrorHandler() takes a prefix (optional) and a function (err, req, res, next) => …');
    this.#life.errorMiddlewares.push({ matches: prefix ? prefixMatcher(prefix) : undefined, fn: handler });
    return this;
  }

  /**
   * Lets a plugin take arguments of `use()` that core does not take, or takes otherwise: from
   * now on, each argument `use()` gets is offered to `take(item, prefix)` (prefix `''` when none
   * was given), extensions in the order added; the first that returns true has taken it, and core
   * does nothing more with it. This runs when `use()` is called, never per request. `nodeCompat`
   * of `@velox/express` takes Express error middlewares (four arguments) this way.
   * @example
   * ```ts
   * // Accept `{ onError }` objects in use(), as error handlers.
   * app.extendUse((item, prefix) => {
   *   if (typeof item !== 'object' || item === null || !('onError' in item)) return false;
   *   const { onError } = item as { onError: ErrorMiddleware };
   *   if (prefix === '') app.addErrorHandler(onError);
   *   else app.addErrorHandler(prefix, onError);
   *   return true;
   * });
   * ```
   */
  extendUse(take: UseExtension): this {
    if (typeof take !== 'function') throw invalidOption('extendUse() takes a function (item, prefix) => boolean');
    this.#useExtensions.push(take);
    return this;
  }

  /**
   * Lets a plugin wrap each middleware and handler of every route: when a route's chain is built
   * (at `listen()`, or when a route is added after it), each function added with `use()` that
   * applies to the route, and each of the route's own functions, is passed through the wrappers,
   * in the order added, and the chain runs what they return. A wrapper that returns the function
   * it was given changes nothing, and nothing runs per request but what it returns. A middleware
   * that applies to many routes is passed once per route: keep what you learn about a function in
   * a WeakMap. Must be added before `listen()`. `nodeCompat` of `@velox/express` finds
   * cookie-parser this way.
   * @example
   * ```ts
   * // Time every middleware and handler.
   * app.wrapMiddleware((fn) => (req, res, next) => {
   *   const started = performance.now();
   *   try {
   *     return fn(req, res, next);
   *   } finally {
   *     timings.record(fn.name, performance.now() - started);
   *   }
   * });
   * ```
   */
  wrapMiddleware(wrap: MiddlewareWrapper): this {
    if (typeof wrap !== 'function') throw invalidOption('wrapMiddleware() takes a function (middleware) => middleware');
    if (this.#table.mounted) throw invalidOption('wrapMiddleware() must come before listen() and the first inject(): middleware chains are computed once, then');
    this.#table.wrappers.push(wrap);
    return this;
  }

  /** @example app.get('/users/:id', (req, res) => res.json({ id: req.params.id })); */
  get<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('GET', pattern, handlers as ChainFn[]);
  }
  /** @example app.post('/users', async (req, res) => res.status(201).json(await req.json())); */
  post<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('POST', pattern, handlers as ChainFn[]);
  }
  /** @example app.put('/users/:id', handler); */
  put<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('PUT', pattern, handlers as ChainFn[]);
  }
  /** @example app.patch('/users/:id', handler); */
  patch<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('PATCH', pattern, handlers as ChainFn[]);
  }
  /** @example app.delete('/users/:id', handler); */
  delete<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('DELETE', pattern, handlers as ChainFn[]);
  }
  /** @example app.head('/big', (req, res) => res.set('content-length', '1000').end()); */
  head<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('HEAD', pattern, handlers as ChainFn[]);
  }
  /** @example app.options('/x', (req, res) => res.set('allow', 'GET').sendStatus(204)); */
  options<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('OPTIONS', pattern, handlers as ChainFn[]);
  }
  /** Every method. @example app.any('/proxy/*', handler); */
  any<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('ANY', pattern, handlers as ChainFn[]);
  }
  /** Every method: Express's name for {@link Server.any}. @example app.all('/api/*', handler); */
  all<const Path extends string, const M extends Middleware[]>(pattern: Path, ...handlers: [...M, RouteHandler<Path, M>]): this {
    return this.#add('ANY', pattern, handlers as ChainFn[]);
  }

  /**
   * Registers a prepared route; routers flatten themselves into these. Throws if the same method
   * and pattern is already registered. Unless the route or the server is `strict`, the route is
   * registered under its other spelling too (`/a/` for `/a`, and `/a` for `/a/`): that twin is a
   * route of its own, listed by `routes()` and reported to `onRoute` hooks.
   * @example
   * ```ts
   * app.addRoute({ method: 'GET', path: '/ping', handlers: [(req, res) => res.send('pong')] });
   * ```
   */
  addRoute(route: RouteDefinition): this {
    this.#table.add(route);
    return this;
  }

  /**
   * Every registered route, for debugging and docs.
   * @example
   * ```ts
   * console.table(app.routes());
   * ```
   */
  routes(): RouteInfo[] {
    return this.#table.list();
  }

  /**
   * Every registered route as it was registered: method, path, `handlers` (metadata-only
   * middlewares included, see `markMetadataOnly()`), `errorHandlers` and `strict`, in the order
   * registered, trailing-slash twins included (a twin shares its route's `handlers` array). For
   * plugins that document or inspect routes whatever the order they were registered in (an
   * `onRoute` hook sees only the routes added after it). Read them; do not change them.
   * @example
   * ```ts
   * const plugin: Plugin = (server) => {
   *   server.addHook('onListen', () => {
   *     for (const route of server.routeDefinitions()) console.log(route.method, route.path, route.handlers.length);
   *   });
   * };
   * ```
   */
  routeDefinitions(): readonly RouteDefinition[] {
    return this.#table.definitions();
  }

  /**
   * A GET route whose answer never changes, answered by uWS itself from bytes prepared once
   * (uWS's declarative responses): status 200, the given headers in order, the body, and the
   * Date and Content-Length uWS adds; its HEAD gets the same head without the body. No
   * JavaScript runs for it: no middleware, hook, error handler, request log or diagnostics
   * channel sees these requests. For health checks and fixed pages. With `strict` off the path
   * with a trailing slash is answered too. Before or after `listen()`.
   *
   * @throws VeloxError `VELOX_ERR_INVALID_OPTION` for a path with a parameter or wildcard, a
   *   header uWS writes itself (Content-Length, Date, Connection…), a header over 255 bytes or a
   *   body over 65,535 bytes; `VELOX_ERR_DUPLICATE_ROUTE` when GET or HEAD of the path is taken.
   * @example
   * ```ts
   * app.constantRoute('/health', { headers: [['Content-Type', 'text/plain; charset=utf-8']], body: 'ok' });
   * ```
   */
  constantRoute(path: string, answer: ConstantAnswer): this {
    this.#table.addConstant(path, answer);
    return this;
  }

  /**
   * Adds a WebSocket route. The middlewares run on the upgrade request, as for any HTTP route;
   * one that answers (say 401) refuses the upgrade. `close()` ends the route's open sockets with
   * 1001 (going away). The behavior's `upgrade` sees `req.params` typed from the pattern, and a
   * behavior made by a generic function (`websocket()` of `@velox/ws`) infers them from it too.
   * @example
   * ```ts
   * app.ws('/chat', requireUser, {
   *   upgrade: (req) => ({ user: req.get('x-user') }),
   *   message: (ws, message, isBinary) => ws.send(message, isBinary),
   * });
   * ```
   */
  ws<UserData = unknown, const Path extends string = string>(
    pattern: Path,
    ...args: [...Array<Middleware<any, any>>, WebSocketRoute<UserData, ParamsOf<Path>>]
  ): this {
    const behavior = args.pop() as WebSocketRoute<UserData, any>;
    this.#ws.add(this, pattern, args as Array<Middleware<any, any>>, behavior, (p, own) => this.#table.chainFor(p, own), this.#table.mounted);
    return this;
  }

  /**
   * Sends a message to every WebSocket subscribed to `topic`, on every route, and returns how many
   * subscribers in this process it reached. `onPublish` hooks then see it (a cross-process
   * adapter forwards it to other processes there). `isBinary` defaults to true for bytes and
   * false for a string.
   * @example
   * ```ts
   * const reached = app.publish('room:lobby', JSON.stringify({ type: 'notice', text: 'restarting' }));
   * ```
   */
  publish(topic: string, message: WebSocketMessage, isBinary?: boolean, options?: PublishOptions): number {
    return this.#ws.publish(topic, message, isBinary, options);
  }

  /**
   * Replaces the error handler. It gets every error thrown, rejected or passed to `next(err)`.
   * @example
   * ```ts
   * app.setErrorHandler((err, req, res) => res.status(err.status ?? 500).json({ error: err.message }));
   * ```
   */
  setErrorHandler(handler: ErrorHandler<any, any>): this {
    if (typeof handler !== 'function') throw invalidOption('setErrorHandler() takes a function (err, req, res) => …');
    this.#life.errorHandler = handler;
    return this;
  }

  /**
   * Replaces the answer for requests no route matched (404 by default). Server middlewares run first.
   * @example
   * ```ts
   * app.setNotFoundHandler((req, res) => res.status(404).html('<h1>Not here</h1>'));
   * ```
   */
  setNotFoundHandler(handler: Handler<any, any>): this {
    if (typeof handler !== 'function') throw invalidOption('setNotFoundHandler() takes a function (req, res) => …');
    this.#life.notFoundHandler = handler;
    return this;
  }

  /**
   * Adds a lifecycle hook. Names: onRoute, onRequest, onSend, onResponse, onError, onListen, onClose, onPublish.
   * @example
   * ```ts
   * app.addHook('onResponse', (req, res) => metrics.count(res.statusCode));
   * ```
   */
  addHook<K extends HookName>(name: K, hook: Hooks[K]): this {
    const list = this[kHooks][name] as Array<Hooks[K]> | undefined;
    if (!list) throw invalidOption(`Unknown hook "${String(name)}"; hooks are ${Object.keys(this[kHooks]).join(', ')}`);
    if (typeof hook !== 'function') throw invalidOption(`Hook ${name} must be a function`);
    if (this.#table.mounted && (name === 'onRequest' || name === 'onRoute')) {
      throw invalidOption(`${name} hooks must be added before listen() and the first inject()`);
    }
    list.push(hook);
    return this;
  }

  /**
   * Adds a property to every request: a method (`{ value }`) or an accessor (`{ get, set? }`),
   * for plugins such as sessions (`req.session`) and uploads (`req.multipart()`). The name is a
   * string, or a symbol for a member only the plugin's code reaches (Node's own internal symbols,
   * say). Declare its type with module augmentation of `Request`. Requests pay nothing for a
   * decoration until they use it. The property lives on this server's own `Request` class (a
   * subclass of core's `Request`, built per server): another server in the same process does not
   * see it (a placeholder there still names the plugin that adds it). Adding the same definition again (same
   * functions) does nothing; a name already taken by core or by another definition throws
   * `VELOX_ERR_DECORATION_CONFLICT`. A placeholder (see `definePlaceholder`: a member such as
   * `res.sendFile` that stands for a plugin's) is replaced without a conflict.
   * @example
   * ```ts
   * declare module '@velox/core' {
   *   interface Request { userAgent(): string }
   * }
   * function userAgent(this: Request) { return this.get('user-agent') ?? 'unknown'; }
   * app.decorateRequest('userAgent', { value: userAgent });
   * app.get('/ua', (req, res) => res.send(req.userAgent()));
   * ```
   */
  decorateRequest(name: string | symbol, definition: Decoration<Request>): this {
    decorate(ownPrototype(this[kClasses], 'Request'), 'Request', name, definition);
    return this;
  }

  /**
   * Adds a property to every response of this server, as {@link Server.decorateRequest} does for
   * requests (on this server's own `Response` class; other servers do not see it).
   * @example
   * ```ts
   * declare module '@velox/core' {
   *   interface Response { ok(body?: unknown): void }
   * }
   * function ok(this: Response, body?: unknown) { this.status(200).json({ ok: true, body }); }
   * app.decorateResponse('ok', { value: ok });
   * ```
   */
  decorateResponse(name: string | symbol, definition: Decoration<Response>): this {
    decorate(ownPrototype(this[kClasses], 'Response'), 'Response', name, definition);
    return this;
  }

  /**
   * This server's own `Request` and `Response` prototypes, where its decorations go (made at the
   * first read or decoration; other servers never see them): what a prototype given to
   * {@link Server.setInstancePrototypes} must inherit from.
   * @example
   * ```ts
   * const appRequest = Object.create(app.prototypes.request, { isApi: { get() { return this.path.startsWith('/api'); } } });
   * ```
   */
  get prototypes(): { readonly request: Request; readonly response: Response } {
    const classes = this[kClasses];
    return { request: ownPrototype(classes, 'Request') as Request, response: ownPrototype(classes, 'Response') as Response };
  }

  /**
   * Builds this server's requests and responses from now on as objects that inherit from the
   * prototypes given (through the empty prototype of one more subclass), each of which must inherit
   * from {@link Server.prototypes} (else `VELOX_ERR_INVALID_OPTION`), for a
   * framework layered on Velox that keeps its own prototypes, as Express keeps `app.request` and
   * `app.response`: its requests then have one hidden class, with no `Object.setPrototypeOf` each.
   * Decorations made later still reach them (they go on the server's prototypes underneath).
   * @example
   * ```ts
   * const request = Object.create(app.prototypes.request);
   * app.setInstancePrototypes({ request });
   * app.get('/', (req, res) => res.send(String(request.isPrototypeOf(req)))); // 'true'
   * ```
   */
  setInstancePrototypes(prototypes: { request?: object; response?: object }): this {
    if (prototypes.request !== undefined) buildOnto(this[kClasses], 'Request', prototypes.request);
    if (prototypes.response !== undefined) buildOnto(this[kClasses], 'Response', prototypes.response);
    return this;
  }

  /**
   * Adds a property to this server (not to other servers), such as a method a plugin offers its
   * users (`app.metrics()`, say). Declare its type with module augmentation of `Server`. A name
   * the server already has throws `VELOX_ERR_DECORATION_CONFLICT`.
   * @example
   * ```ts
   * declare module '@velox/core' {
   *   interface Server { version: string }
   * }
   * app.decorate('version', '1.2.3');
   * ```
   */
  decorate(name: string, value: unknown): this {
    if (typeof name !== 'string' || name === '') throw invalidOption('decorate() takes a property name and a value');
    if (name in this) {
      throw new VeloxError(ErrorCodes.DECORATION_CONFLICT, `The server already has a property "${name}"`);
    }
    Object.defineProperty(this, name, { value, writable: true, configurable: true, enumerable: false });
    return this;
  }

  /**
   * Registers a plugin. Plugins run in order; an async plugin holds back later ones and `listen()`.
   * @example
   * ```ts
   * await app.register(sessions, { secret: 'keyboard cat' });
   * ```
   */
  register<Options>(plugin: Plugin<Options>, options?: Options): Promise<void> {
    if (typeof plugin !== 'function') throw invalidOption('register() takes a plugin function (server, options) => …');
    const previous = this.#pending;
    const start = (): void | Promise<void> => plugin(this, (options ?? {}) as Options);
    const result = previous ? previous.then(start) : start();
    if (result && typeof (result as Promise<void>).then === 'function') {
      const pending = Promise.resolve(result);
      this.#pending = pending;
      pending.then(
        () => {
          if (this.#pending === pending) this.#pending = undefined;
        },
        () => {},
      );
      return pending;
    }
    return Promise.resolve();
  }

  /**
   * Resolves once every registered plugin has finished loading.
   * @example
   * ```ts
   * await app.ready();
   * ```
   */
  async ready(): Promise<void> {
    while (this.#pending) await this.#pending;
  }

  /**
   * Listens on a port (0 picks a free one) and host, or on a Unix socket path. The port is taken
   * exclusively: a port another server or program already listens on rejects with
   * `VELOX_ERR_LISTEN_FAILED`, saying it is in use. `{ reusePort: true }` shares it on purpose
   * with other listeners that set it too (the kernel spreads connections among them).
   * A callback last (the Express form) is called with the {@link ListenInfo} once listening; it is
   * never called with an error: a failure rejects the returned promise.
   * @example
   * ```ts
   * const { port } = await app.listen(3000, '0.0.0.0');
   * await app.listen(3000, '0.0.0.0', { reusePort: true });
   * app.listen(3000, ({ port }) => console.log(`listening on ${port}`));
   * await app.listen('/run/app.sock');
   * ```
   */
  listen(portOrPath: number | string, callback?: ListenCallback): Promise<ListenInfo>;
  listen(portOrPath: number | string, host: string | undefined, callback?: ListenCallback): Promise<ListenInfo>;
  listen(portOrPath: number | string, options: ListenOptions, callback?: ListenCallback): Promise<ListenInfo>;
  listen(portOrPath: number | string, host: string | undefined, options: ListenOptions, callback?: ListenCallback): Promise<ListenInfo>;
  listen(portOrPath: number | string, ...rest: unknown[]): Promise<ListenInfo> {
    let target: ListenTarget;
    let callback: ListenCallback | undefined;
    try {
      ({ target, callback } = parseListenArgs(portOrPath, rest));
    } catch (err) {
      return Promise.reject(err);
    }
    const listening = this.#listen(target);
    if (!callback) return listening;
    const cb = callback;
    // Chained on, so a callback user who never awaits still sees a failure as an unhandled
    // rejection (the process stops with the message), as Node's http does with EADDRINUSE.
    return listening.then((info) => {
      cb(info);
      return info;
    });
  }

  async #listen(target: ListenTarget): Promise<ListenInfo> {
    if (this.#listenSocket) throw invalidOption('The server is already listening');
    await this.#prepare();
    const { socket, info } = await bind(this.#uwsModule, this.#app, target);
    this.#listenSocket = socket;
    this.#life.closing = false;
    this.#closed = false;
    for (const hook of this[kHooks].onListen) await hook(this);
    return info;
  }

  /** What listen() and inject() run before the first request: plugins loaded, routes mounted, old body files swept. */
  async #prepare(): Promise<void> {
    await this.ready();
    if (!this.#table.mounted) this.#table.mount();
    // Body files a crashed process left behind (body-spill.ts): once, before the first request.
    await (this.#swept ??= sweepSpillFiles(this[kConfig].bodyTempDir));
  }

  /**
   * Answers a request through the whole lifecycle (hooks, middlewares, plugins, the error path,
   * streaming, `onSend`) without `listen()`, and resolves with a WHATWG `Response`, as `fetch()`
   * does: for tests, from vitest or node:test, several at once. Takes what `fetch()` takes: a
   * path (`'/users/42?tab=a'`, resolved against `http://localhost`), a URL or a `Request`, and a
   * `RequestInit` (every body kind `fetch()` sends; a stream needs `duplex: 'half'`; `signal`
   * aborts). The request goes over a real loopback connection to a listen socket the server opens
   * for itself on 127.0.0.1 (TLS for a TLS server), so what answers is uWS itself. `Host` is the
   * URL's host (`localhost` for a path) unless `headers` give one. Redirects are not followed and
   * a compressed body is not decoded: the Response is the app's answer as sent. Runs the steps
   * `listen()` runs first (plugins awaited, routes mounted), but not the `onListen` hooks; after
   * it, as after `listen()`, `use()` and `onRequest` hooks are refused. Works before, during and
   * after `listen()`, which does not count the inject socket (`listening`); the socket closes
   * when no inject waits, so the process can exit without `close()`. After `close()` (until the
   * next `listen()`) it rejects with `VELOX_ERR_SERVER_CLOSED`; bad input rejects with fetch's
   * TypeError (a forbidden method, a GET with a body, a bad URL).
   * @example
   * ```ts
   * const res = await app.inject('/users/42?tab=a');
   * expect(res.status).toBe(200);
   * expect(await res.json()).toEqual({ id: '42', tab: 'a' });
   *
   * const created = await app.inject('/users', {
   *   method: 'POST',
   *   headers: { 'content-type': 'application/json' },
   *   body: JSON.stringify({ name: 'ana' }),
   * });
   * const cookie = created.headers.getSetCookie()[0];
   * ```
   */
  inject(input: string | URL | globalThis.Request, init?: InjectInit): Promise<globalThis.Response> {
    this.#injector ??= new InjectSocket({
      prepare: () => this.#prepare(),
      bind: async () => {
        const { socket, info } = await bind(this.#uwsModule, this.#app, { port: 0, host: '127.0.0.1', reusePort: false });
        return { socket, port: info.port };
      },
      unbind: (socket) => this.#uwsModule.us_listen_socket_close(socket),
      closed: () => this.#closed,
      tls: this[kConfig].tls,
    });
    return inject(this.#injector, input, init);
  }

  /**
   * Stops accepting connections and ends every open WebSocket with 1001 (going away); lets
   * in-flight requests and the promises of WebSocket close handlers finish (up to `timeout` ms),
   * then closes every connection. Responses sent meanwhile carry `Connection: close`. A request
   * already sent on an open connection when `close()` is called is read and answered too. The
   * socket of {@link Server.inject} closes as well, and `inject()` rejects from now on (until the
   * next `listen()`) with `VELOX_ERR_SERVER_CLOSED`. A server that never listened nor injected
   * has nothing to close: its `onClose` hooks do not run.
   * @example
   * ```ts
   * process.on('SIGTERM', () => app.close({ timeout: 5000 }));
   * ```
   */
  async close(options: CloseOptions = {}): Promise<void> {
    this.#closed = true;
    const socket = this.#listenSocket;
    const injected = this.#injector?.started === true;
    if (!socket && !injected) return;
    const timeout = options.timeout ?? 10_000;
    this.#life.closing = true;
    this.#listenSocket = undefined;
    if (socket) this.#uwsModule.us_listen_socket_close(socket);
    this.#injector?.close();
    this.#ws.endAll();
    await drain(this.#life, this.#app, () => this.#ws.closing(), timeout);
    for (const hook of this[kHooks].onClose) await hook(this);
  }

  /**
   * Shuts the process down cleanly on a signal, and installs the crash policy. On the first of
   * `signals` it stops accepting, lets in-flight requests finish (up to `timeout` ms), runs
   * `onClose` hooks (via {@link Server.close}) and exits 0; a second signal exits at once
   * (128 + the signal's number). An uncaught exception or unhandled rejection is logged with the
   * logger, then handled by `uncaught`: `'shutdown'` (default: the same graceful close, exit 1),
   * `'exit'` (exit 1 at once), `'log'` (keep running), a function that reports the error and
   * returns one of those, or `false` (leave Node's own behaviour). Returns a function that removes
   * every handler it installed.
   * @example
   * ```ts
   * const app = new Server();
   * app.get('/', (req, res) => res.send('Hi'));
   * await app.listen(3000);
   * const uninstall = app.closeOnSignals({ timeout: 5000 });
   * ```
   */
  closeOnSignals(options: CloseOnSignalsOptions = {}): () => void {
    if (this.#uninstallSignals) {
      throw invalidOption('closeOnSignals() is already installed on this server; call the function it returned to remove it first');
    }
    const remove = installSignals(this, this[kConfig].logger, options);
    const uninstall = (): void => {
      remove();
      if (this.#uninstallSignals === uninstall) this.#uninstallSignals = undefined;
    };
    this.#uninstallSignals = uninstall;
    return uninstall;
  }

  /**
   * Answers a request with the not-found handler, for a route that found nothing to do
   * (a router's catch-all, say). A handler that calls `next()` ends up here too.
   * @example
   * ```ts
   * app.get('/files/*', (req, res) => (exists(req.params['*']) ? serve(req, res) : app.notFound(req, res)));
   * ```
   */
  notFound(req: Request, res: Response): void {
    this.#life.notFound(req, res);
  }

  /**
   * Sends an error through the server's error path (onError hooks, then the error handler), as
   * an error thrown by a handler would go: for code that answers outside the middleware chain,
   * such as a plugin's method whose promise nobody awaits, or a callback.
   * @example
   * ```ts
   * app.get('/report', (req, res) => {
   *   readReport().then((text) => res.send(text), (err) => app.handleError(err, req, res));
   * });
   * ```
   */
  handleError(err: unknown, req: Request, res: Response): void {
    this.#life.fail(err, req, res);
  }

  #add(method: Method, pattern: string, handlers: ChainFn[]): this {
    return this.addRoute({ method, path: pattern, handlers });
  }
}
