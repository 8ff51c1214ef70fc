/**
 * The server: registers routes on uWS's native router, each with its middleware chain
 * computed once, and runs the request lifecycle (see docs/architecture.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import proxyAddr from 'proxy-addr';
import type { AppOptions, HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, WebSocket, WebSocketBehavior } from '@based/uws';
import { type ChainFn, FALL_THROUGH, type Fail, run } from './compose.ts';
import { ErrorCodes, invalidOption, VeloxError } from './errors.ts';
import { HeadCache } from './headers.ts';
import { placeholderOn } from './placeholders.ts';
import { Request } from './request.ts';
import { Response } from './response.ts';
import { normalizePrefix, PrefixRelation, paramNames, prefixMatcher, relateToPrefix } from './routing.ts';
import { kConfig, kContext, kHooks } from './symbols.ts';
import type {
  ErrorHandler,
  ErrorMiddleware,
  Handler,
  HookName,
  Hooks,
  Logger,
  Method,
  Middleware,
  Mountable,
  ParamsOf,
  Plugin,
  RouteDefinition,
  RouteHandler,
  RouteInfo,
} from './types.ts';
import { mountAt } from './mount.ts';
import { loadUws, type Uws } from './uws.ts';

/** TLS settings: each of key, cert, ca and dhParams is a file path or the PEM text itself. */
export interface TlsOptions {
  key: string | Buffer;
  cert: string | Buffer;
  passphrase?: string;
  /** Diffie-Hellman parameters. */
  dhParams?: string | Buffer;
  /** Certificate authorities to trust for client certificates. */
  ca?: string | Buffer;
}

/** Options of {@link Server}. */
export interface ServerOptions {
  /** Largest body `req.text()`, `json()`, `buffer()` and `urlencoded()` accept, in bytes; more answers 413. Default: 1 MiB. */
  maxBodyLength?: number;
  /**
   * Which proxies to believe for `X-Forwarded-For/-Proto/-Host`: `true` (all), a hop count, an
   * address, CIDR range or name (`loopback`, `linklocal`, `uniquelocal`), a list of them, or
   * `(addr, hop) => boolean`. Default: `false` (none).
   */
  trustProxy?: boolean | number | string | string[] | ((addr: string, hop: number) => boolean);
  /**
   * Secret(s) for signed cookies; the first signs, all verify (rotation). Where cookie-parser
   * runs, its secret (`req.secret`) signs and its `req.signedCookies` replace these, as in
   * Express. Default: none.
   */
  cookieSecret?: string | string[];
  /** Serve HTTPS. Default: none (plain HTTP). */
  tls?: TlsOptions;
  /** Send messages and stacks of 5xx errors to the client (development only). Default: `false`. */
  exposeErrors?: boolean;
  /** Where errors are logged; `false` for nowhere. Default: `console`. */
  logger?: Logger | false;
  /**
   * Parse the Cookie header into `req.cookies` and `req.signedCookies` (on first read). With
   * `false`, they are undefined until a middleware sets them. cookie-parser needs neither: on the
   * routes where it runs, it parses and its result wins, as in Express. Default: `true`.
   */
  parseCookies?: boolean;
  /**
   * Treat `/users` and `/users/` as different paths. With `false`, every route (but `/` and
   * `/*` ones) is registered natively under both spellings, as `@velox/router` does, so both
   * match at the same cost. A route can say otherwise with `addRoute({ …, strict })`.
   * WebSocket routes always match exactly. Default: `false`.
   */
  strict?: boolean;
}

/** Options of {@link Server.close}. */
export interface CloseOptions {
  /** Milliseconds to let in-flight requests finish before their connections are cut. Default: 10000. */
  timeout?: number;
}

/**
 * Where an uncaught error came from: a throw nothing caught, or a rejected promise nothing handled.
 */
export type UncaughtOrigin = 'uncaughtException' | 'unhandledRejection';

/**
 * What {@link Server.closeOnSignals} does with an uncaught exception or unhandled rejection, after
 * logging it: `'shutdown'` closes gracefully (in-flight requests finish) and exits 1, `'exit'`
 * exits 1 at once, `'log'` keeps running. A function is called first (to report the error) and
 * returns (or resolves to) one of those; nothing returned means `'shutdown'`. `false` installs
 * nothing (Node's own behaviour: print and exit 1 at once).
 * @example
 * ```ts
 * app.closeOnSignals({ uncaught: async (err) => { await tracker.report(err); return 'shutdown'; } });
 * ```
 */
export type UncaughtPolicy =
  | 'shutdown'
  | 'exit'
  | 'log'
  | false
  | ((error: unknown, origin: UncaughtOrigin) => UncaughtAction | undefined | void | Promise<UncaughtAction | undefined> | Promise<void>);

/**
 * One of the fixed crash policies of {@link UncaughtPolicy}, which a policy function returns.
 * @example
 * ```ts
 * const pick = (err: unknown): UncaughtAction => (err instanceof TypeError ? 'shutdown' : 'log');
 * ```
 */
export type UncaughtAction = 'shutdown' | 'exit' | 'log';

/**
 * Options of {@link Server.closeOnSignals}.
 * @example
 * ```ts
 * app.closeOnSignals({ signals: ['SIGTERM'], timeout: 5000, uncaught: 'exit' });
 * ```
 */
export interface CloseOnSignalsOptions {
  /** The signals that start a graceful shutdown. Default: `['SIGINT', 'SIGTERM']`. */
  signals?: NodeJS.Signals[];
  /** Milliseconds in-flight requests get to finish before their connections are cut. Default: 10000. */
  timeout?: number;
  /** The crash policy for uncaught exceptions and unhandled rejections. Default: `'shutdown'`. */
  uncaught?: UncaughtPolicy;
}

/**
 * Options of {@link Server.listen}.
 * @example
 * ```ts
 * await app.listen(3000, '0.0.0.0', { reusePort: true });
 * ```
 */
export interface ListenOptions {
  /**
   * Share the port with other listeners that ask for sharing too (SO_REUSEPORT; Linux spreads
   * connections among them). Without it the port is taken exclusively, and a port already in use
   * is an error. Has no effect with port 0 (a fresh port, shared with nobody). Default: `false`.
   */
  reusePort?: boolean;
}

/**
 * The Express-form callback of {@link Server.listen}: called once the server listens. Never
 * called with an error: a failure rejects the promise `listen()` returns.
 * @example
 * ```ts
 * const ready: ListenCallback = ({ port }) => console.log(`listening on ${port}`);
 * app.listen(3000, ready);
 * ```
 */
export type ListenCallback = (info: ListenInfo) => void;

/** What {@link Server.listen} resolves to. */
export interface ListenInfo {
  /** The port listened on (0 for a Unix socket). */
  port: number;
  /** The host listened on, or the Unix socket path. */
  host: string;
}

/**
 * What a WebSocket message can be: text, or bytes (a Buffer or any other view, or an ArrayBuffer).
 * @example
 * ```ts
 * const messages: WebSocketMessage[] = ['text', Buffer.from('bytes'), new Uint8Array([1, 2]).buffer];
 * ```
 */
export type WebSocketMessage = string | ArrayBuffer | ArrayBufferView;

/**
 * Options of {@link Server.publish}.
 * @example
 * ```ts
 * // An adapter delivering a message from another process, without forwarding it again:
 * app.publish(topic, bytes, isBinary, { local: true });
 * ```
 */
export interface PublishOptions {
  /**
   * Deliver in this process only: `onPublish` hooks do not run. A cross-process adapter delivers
   * the messages it receives from other processes this way, so they are not sent back out.
   */
  local?: boolean;
  /** A socket (uWS's) that must not receive the message: a socket publishing to the others. */
  exclude?: WebSocket<any>;
  /** Compress the message (permessage-deflate) for subscribers whose route and client agreed to it. Default: false. */
  compress?: boolean;
}

/**
 * A WebSocket route: uWS's behavior, with `upgrade` taking Velox's request and response and
 * returning the user data for the socket (or answering the response itself to refuse).
 */
export interface WebSocketRoute<UserData = unknown, Params = Record<string, string>> extends Omit<WebSocketBehavior<UserData>, 'upgrade'> {
  upgrade?: (req: Request<Params>, res: Response) => UserData | Promise<UserData>;
  /**
   * Called once, when `ws()` adds the route, with the server and the route's pattern: for a
   * behavior that needs the server (its logger, its hooks) or must check something before it can
   * serve. A promise it returns holds back `listen()` like an async plugin, and a rejection makes
   * `listen()` reject with that error (after `listen()`, the rejection is logged).
   */
  setup?: (server: Server, pattern: string) => void | Promise<void>;
}

/**
 * A property added to every request or response by {@link Server.decorateRequest} or
 * {@link Server.decorateResponse}: a method or value (`value`), or an accessor (`get`, and
 * `set` if it may be assigned). Functions are called with the request (or response) as `this`.
 */
export type Decoration<Target> =
  | { value: unknown; get?: never; set?: never }
  | { get: (this: Target) => unknown; set?: (this: Target, value: any) => void; value?: never };

/** Properties decorations added, by prototype, with their definitions (to accept the same one twice). */
const decorated = new WeakMap<object, Map<PropertyKey, PropertyDescriptor>>();

function decorate(proto: object, kind: 'Request' | 'Response', name: string | symbol, definition: Decoration<any>): void {
  if (!((typeof name === 'string' && name !== '') || typeof name === 'symbol') || !definition || typeof definition !== 'object') {
    throw invalidOption(`decorate${kind}() takes a property name (a string or a symbol) and { value } or { get, set? }`);
  }
  const label = String(name);
  const hasValue = 'value' in definition && definition.value !== undefined;
  if (hasValue === (typeof definition.get === 'function')) {
    throw invalidOption(`decorate${kind}("${label}") takes either { value } or { get, set? }`);
  }
  const descriptor: PropertyDescriptor = hasValue
    ? { value: definition.value, writable: true, configurable: true, enumerable: false }
    : { get: definition.get, set: definition.set, configurable: true, enumerable: false };
  let own = decorated.get(proto);
  const previous = own?.get(name);
  if (previous) {
    if (previous.value === descriptor.value && previous.get === descriptor.get && previous.set === descriptor.set) return;
    throw new VeloxError(ErrorCodes.DECORATION_CONFLICT, `${kind} already has a decoration "${label}" with another definition`);
  }
  // A placeholder (placeholders.ts) stands for what a plugin adds: the plugin's decoration replaces it.
  if (name in proto && !(typeof name === 'string' && placeholderOn(proto, name))) {
    throw new VeloxError(ErrorCodes.DECORATION_CONFLICT, `${kind} already has a property "${label}"; choose another name`);
  }
  Object.defineProperty(proto, name, descriptor);
  if (!own) decorated.set(proto, (own = new Map()));
  own.set(name, descriptor);
}

/**
 * The options a server was made with, as core applies them: what {@link Server.config} gives.
 * @example
 * ```ts
 * const plugin: Plugin = (server) => {
 *   if (server.config.trustProxy === false) server.logger?.warn('behind a proxy? set trustProxy');
 * };
 * ```
 */
export interface ServerConfig {
  /** `maxBodyLength` (1048576 unless given). */
  readonly maxBodyLength: number;
  /** `strict` (false unless given). */
  readonly strict: boolean;
  /** `trustProxy` as given (false unless given). */
  readonly trustProxy: NonNullable<ServerOptions['trustProxy']>;
  /** The test `trustProxy` compiles to, `(address, hop) => trusted`; undefined when no proxy is trusted. */
  readonly trust: ((addr: string, hop: number) => boolean) | undefined;
  /** `parseCookies` (true unless given). */
  readonly parseCookies: boolean;
  /** Whether the server serves HTTPS (`tls` was given). */
  readonly tls: boolean;
  /** `exposeErrors` (false unless given). */
  readonly exposeErrors: boolean;
}

/**
 * What a plugin registers with {@link Server.extendUse}: offered each argument `use()` gets, in
 * order, with its prefix (`''` for none); returns true when it took the argument.
 * @example
 * ```ts
 * const takeMaps: UseExtension = (item, prefix) => item instanceof Map && (register(prefix, item), true);
 * ```
 */
export type UseExtension = (item: unknown, prefix: string) => boolean;

/**
 * What a plugin registers with {@link Server.wrapMiddleware}: given each middleware and handler
 * of a route's chain as the chain is built, returns the function to run in its place (or the same one).
 * @example
 * ```ts
 * const named: MiddlewareWrapper = (fn) => (req, res, next) => { req.locals.last = fn.name; return fn(req, res, next); };
 * ```
 */
export type MiddlewareWrapper = (fn: Middleware<any, any>) => Middleware<any, any>;

interface ScopedMiddleware {
  prefix: string;
  fn: Middleware<any, any>;
}

/** An error handler `(err, req, res, next)` added with `addErrorHandler()`, with its prefix. */
interface ScopedErrorMiddleware {
  matches: ((path: string) => boolean) | undefined;
  fn: ErrorMiddleware<any, any>;
}

interface Config {
  maxBodyLength: number;
  strict: boolean;
  secrets: string[];
  trust: ((addr: string, hop: number) => boolean) | undefined;
  /** The trustProxy option as given, for `req.app.get('trust proxy')`. */
  trustProxy: ServerOptions['trustProxy'] | false;
  parseCookies: boolean;
  tls: boolean;
  exposeErrors: boolean;
  logger: Logger | undefined;
}

type HookLists = { [K in HookName]: Array<Hooks[K]> };

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
  readonly [kHooks]: HookLists = {
    onRoute: [],
    onRequest: [],
    onSend: [],
    onResponse: [],
    onError: [],
    onListen: [],
    onClose: [],
    onPublish: [],
  };

  #uwsModule: Uws;
  #app: TemplatedApp;
  #middlewares: ScopedMiddleware[] = [];
  #errorMiddlewares: ScopedErrorMiddleware[] = [];
  /** What plugins added with extendUse() and wrapMiddleware(). */
  #useExtensions: UseExtension[] = [];
  #wrappers: MiddlewareWrapper[] = [];
  #publicConfig: ServerConfig | undefined;
  #routes = new Map<string, RouteDefinition>();
  /** The trailing-slash twins core added itself (strict off), to explain a clash with one. */
  #twins = new WeakSet<RouteDefinition>();
  #errorHandler: ErrorHandler<any, any> = defaultErrorHandler;
  #notFoundHandler: Handler<any, any> = defaultNotFoundHandler;
  #pending: Promise<void> | undefined;
  #listenSocket: us_listen_socket | undefined;
  #mounted = false;
  #closing = false;
  /** Responses still in progress after their uWS callback returned: an intrusive list (no hashing per request). */
  #inflight: Response | null = null;
  #inflightCount = 0;
  #drained: (() => void) | undefined;
  /** The error path with no router-scoped handlers; made once (it reads the error handler when called). */
  #serverFail: Fail | undefined;

  constructor(options: ServerOptions = {}) {
    const maxBodyLength = options.maxBodyLength ?? 1024 * 1024;
    if (!(Number.isInteger(maxBodyLength) && maxBodyLength >= 0)) {
      throw invalidOption(`maxBodyLength must be a whole number of bytes, e.g. 1048576 for 1 MiB; got ${options.maxBodyLength}`);
    }
    const strict = options.strict ?? false;
    if (typeof strict !== 'boolean') throw invalidOption(`strict must be true or false; got ${String(options.strict)}`);
    const secrets = options.cookieSecret === undefined ? [] : ([] as string[]).concat(options.cookieSecret);
    if (secrets.some((s) => typeof s !== 'string' || s.length === 0)) {
      throw invalidOption('cookieSecret must be a non-empty string or a list of them (first signs, all verify)');
    }
    this[kConfig] = {
      maxBodyLength,
      strict,
      secrets,
      trust: compileTrust(options.trustProxy),
      trustProxy: options.trustProxy ?? false,
      parseCookies: options.parseCookies ?? true,
      tls: options.tls !== undefined,
      exposeErrors: options.exposeErrors ?? false,
      logger: options.logger === false ? undefined : (options.logger ?? console),
    };
    this.#uwsModule = loadUws();
    this.#app = options.tls ? createTlsApp(this.#uwsModule, options.tls) : this.#uwsModule.App();
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

  /** True between a successful `listen()` and `close()`. */
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
    if (this.#publicConfig) return this.#publicConfig;
    const { maxBodyLength, strict, trustProxy, trust, parseCookies, tls, exposeErrors } = this[kConfig];
    return (this.#publicConfig = Object.freeze({ maxBodyLength, strict, trustProxy: trustProxy ?? false, trust, parseCookies, tls, exposeErrors }));
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
    if (this.#mounted) throw invalidOption('use() must come before listen(): middleware chains are computed once, at listen');
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
      if (typeof item === 'function') this.#middlewares.push({ prefix, fn: item as Middleware<any, any> });
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
    this.#errorMiddlewares.push({ matches: prefix ? prefixMatcher(prefix) : undefined, fn: handler });
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
    if (this.#mounted) throw invalidOption('wrapMiddleware() must come before listen(): middleware chains are computed once, at listen');
    this.#wrappers.push(wrap);
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
    if (!(route.method in METHODS)) throw invalidOption(`Unknown method ${route.method}; use one of ${Object.keys(METHODS).join(', ')}`);
    paramNames(route.path);
    if (route.handlers.length === 0 || route.handlers.some((h) => typeof h !== 'function')) {
      throw invalidOption(`${route.method} ${route.path} needs a handler function`);
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
    const twin = (route.strict ?? this[kConfig].strict) ? undefined : twinOf(route.path);
    if (twin !== undefined && this.#routes.has(`${route.method} ${twin}`)) {
      throw new VeloxError(
        ErrorCodes.DUPLICATE_ROUTE,
        `${route.method} ${route.path} is already registered as ${route.method} ${twin}: ${ONE_PATH}`,
      );
    }
    if (key === 'ANY /*' && this.#mounted) {
      throw new VeloxError(
        ErrorCodes.DUPLICATE_ROUTE,
        'ANY /* is the not-found route once the server listens; register your catch-all before listen(), or use setNotFoundHandler()',
      );
    }
    this.#routes.set(key, route);
    for (const hook of this[kHooks].onRoute) hook(route);
    if (this.#mounted) this.#mount(route);
    if (twin !== undefined) {
      const definition: RouteDefinition = { ...route, path: twin, strict: true };
      this.#twins.add(definition);
      this.addRoute(definition);
    }
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
    return [...this.#routes.values()].map(({ method, path }) => ({ method, path }));
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
    if (!behavior || typeof behavior !== 'object') throw invalidOption('ws() needs a behavior object last');
    if (behavior.setup !== undefined && typeof behavior.setup !== 'function') throw invalidOption('ws(): behavior.setup must be a function (server, pattern) => …');
    const middlewares = args as Array<Middleware<any, any>>;
    const names = paramNames(pattern);
    const ready = behavior.setup?.(this, pattern);
    if (ready && typeof ready.then === 'function') {
      if (this.#mounted) ready.then(undefined, (err: unknown) => this[kConfig].logger?.error(err));
      else this.register(() => ready);
    }
    const register = () => {
      const finish = (req: Request, res: Response, data: UserData): void => {
        if (res.finished || res.aborted) return;
        if (this.#closing) {
          // Its socket would open after close() ended the others.
          res.status(503).set('connection', 'close').send('The server is shutting down');
          return;
        }
        res._upgrade(data, req.get('sec-websocket-key') ?? '', req.get('sec-websocket-protocol') ?? '', req.get('sec-websocket-extensions') ?? '');
      };
      const upgrade: ChainFn = (req, res) => {
        const data = behavior.upgrade ? behavior.upgrade(req, res) : ({} as UserData);
        if (data !== null && typeof (data as Promise<UserData> | undefined)?.then === 'function') {
          return (data as Promise<UserData>).then((value) => finish(req, res, value));
        }
        finish(req, res, data as UserData);
      };
      const chain = this.#chainFor(pattern, [...middlewares, upgrade]);
      const dispatch = this.#dispatcher('GET', pattern, names, chain, this.#fail([]), false);
      const { upgrade: _upgrade, setup: _setup, open, close, ...rest } = behavior;
      const sockets = this.#sockets;
      this.#topics = true;
      this.#app.ws<UserData>(pattern, {
        ...(rest as WebSocketBehavior<UserData>),
        upgrade: (ures, ureq, context) => {
          (ures as unknown as Record<symbol, unknown>)[kContext] = context;
          dispatch(ures, ureq);
        },
        open: (ws) => {
          sockets.add(ws as WebSocket<unknown>);
          if (open) return open(ws);
        },
        close: (ws, code, message) => {
          sockets.delete(ws as WebSocket<unknown>);
          if (!close) return;
          const result = close(ws, code, message) as unknown;
          if (result && typeof (result as Promise<unknown>).then === 'function') this.#trackClose(result as Promise<unknown>);
        },
      });
    };
    if (this.#mounted) register();
    else this.#wsRoutes.push(register);
    return this;
  }
  #wsRoutes: Array<() => void> = [];
  /** Whether uWS has a WebSocket route, and so a topic tree to publish to. */
  #topics = false;
  /** Open WebSockets of every route, for close(); only WebSocket routes add to it. */
  #sockets = new Set<WebSocket<unknown>>();
  /** Promises returned by WebSocket close handlers that have not settled yet. */
  #closeHandlers = new Set<Promise<unknown>>();

  #trackClose(result: Promise<unknown>): void {
    const pending = result.then(
      () => {
        this.#closeHandlers.delete(pending);
      },
      (err: unknown) => {
        this.#closeHandlers.delete(pending);
        this[kConfig].logger?.error(err);
      },
    );
    this.#closeHandlers.add(pending);
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
    if (typeof topic !== 'string') throw invalidOption(`publish() takes a topic string, got ${typeof topic}`);
    const bytes = messageBytes(message, 'publish()');
    const binary = isBinary ?? typeof message !== 'string';
    const exclude = options?.exclude;
    // uWS makes its topic tree with the first WebSocket route; before that, asking it crashes.
    let count = this.#topics ? this.#app.numSubscribers(topic) : 0;
    if (count > 0) {
      const compress = options?.compress === true;
      // uWS's publish from a socket skips that socket, but sends nothing at all from a socket
      // with no subscriptions: one not subscribed to the topic cannot receive it anyway.
      if (exclude?.isSubscribed(topic)) {
        if (--count > 0) exclude.publish(topic, bytes, binary, compress);
      } else this.#app.publish(topic, bytes, binary, compress);
    }
    if (options?.local !== true) {
      const hooks = this[kHooks].onPublish;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i]!(topic, message, binary);
        } catch (err) {
          this[kConfig].logger?.error(err);
        }
      }
    }
    return count;
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
    this.#errorHandler = handler;
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
    this.#notFoundHandler = handler;
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
    if (this.#mounted && (name === 'onRequest' || name === 'onRoute')) {
      throw invalidOption(`${name} hooks must be added before listen()`);
    }
    list.push(hook);
    return this;
  }

  /**
   * Adds a property to every request: a method (`{ value }`) or an accessor (`{ get, set? }`),
   * for plugins such as sessions (`req.session`) and uploads (`req.multipart()`). The name is a
   * string, or a symbol for a member only the plugin's code reaches (Node's own internal symbols,
   * say). Declare its type with module augmentation of `Request`. Requests pay nothing for a
   * decoration until they use it. The property lives on the shared `Request` prototype, so it
   * exists for every server in the process: keep per-server state elsewhere (say, under a symbol
   * on `this.server`) and read it through `this.server`. Adding the same definition again (same
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
    decorate(Request.prototype, 'Request', name, definition);
    return this;
  }

  /**
   * Adds a property to every response, as {@link Server.decorateRequest} does for requests.
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
    decorate(Response.prototype, 'Response', name, definition);
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
    await this.ready();
    if (!this.#mounted) {
      this.#mounted = true;
      this.#mountAll();
    }
    const uws = this.#uwsModule;
    if (target.path !== undefined) {
      // uWS unlinks whatever is at the path before binding: a live server's socket or any file.
      const refusal = await checkSocketPath(target.path);
      if (refusal) throw refusal;
    }
    const socket = await new Promise<us_listen_socket | false>((resolve) => {
      if (target.path !== undefined) this.#app.listen_unix(resolve, target.path);
      else {
        // The native listen reads (host?, port, options, callback); its typings lack the host form.
        const options = target.reusePort ? LIBUS_LISTEN_DEFAULT : LIBUS_LISTEN_EXCLUSIVE_PORT;
        const listen = this.#app.listen as unknown as (...args: unknown[]) => void;
        if (target.host) listen.call(this.#app, target.host, target.port, options, resolve);
        else listen.call(this.#app, target.port, options, resolve);
      }
    });
    if (!socket) throw await listenFailed(target);
    this.#listenSocket = socket;
    const info: ListenInfo =
      target.path !== undefined ? { port: 0, host: target.path } : { port: uws.us_socket_local_port(socket), host: target.host ?? '0.0.0.0' };
    this.#closing = false;
    for (const hook of this[kHooks].onListen) await hook(this);
    return info;
  }

  /**
   * Stops accepting connections and ends every open WebSocket with 1001 (going away); lets
   * in-flight requests and the promises of WebSocket close handlers finish (up to `timeout` ms),
   * then closes every connection. Responses sent meanwhile carry `Connection: close`. A request
   * already sent on an open connection when `close()` is called is read and answered too.
   * @example
   * ```ts
   * process.on('SIGTERM', () => app.close({ timeout: 5000 }));
   * ```
   */
  async close(options: CloseOptions = {}): Promise<void> {
    const socket = this.#listenSocket;
    if (!socket) return;
    const timeout = options.timeout ?? 10_000;
    this.#closing = true;
    this.#listenSocket = undefined;
    this.#uwsModule.us_listen_socket_close(socket);
    // Each end() sends a close frame and runs the socket's close handler at once.
    for (const ws of [...this.#sockets]) {
      try {
        ws.end(1001, 'Server shutting down');
      } catch (err) {
        this[kConfig].logger?.error(err);
      }
    }
    // uWS reads sockets only when the event loop polls: a request already sent on an open
    // connection may wait unread in the kernel, and closing the idle connections now would reset
    // it. After one poll it runs (with Connection: close) and counts as in flight.
    await afterPoll();
    const waits: Array<Promise<unknown>> = [];
    if (this.#inflightCount > 0) {
      for (const res of this.#inflightList()) res._closeAfter();
      waits.push(new Promise<void>((resolve) => (this.#drained = resolve)));
    }
    if (this.#closeHandlers.size > 0) waits.push(Promise.all([...this.#closeHandlers]));
    if (waits.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        Promise.all(waits).then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(resolve, timeout, false))),
      ]);
      clearTimeout(timer);
      if (!finished) for (const res of this.#inflightList()) res.destroy();
      this.#drained = undefined;
    }
    // Closes the sockets still open (idle keep-alive ones); present in the native binary, missing from its .d.ts.
    (this.#app as TemplatedApp & { close(): void }).close();
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
    const { signals, timeout, uncaught } = parseSignalOptions(options);
    const logger = this[kConfig].logger;
    let shutting = false;
    let exitCode = 0;
    const shutdown = (code: number): void => {
      exitCode = Math.max(exitCode, code);
      if (shutting) return;
      shutting = true;
      // The drain is bounded by close() itself; this bounds the onClose hooks that follow it.
      const limit = timeout + ON_CLOSE_GRACE;
      const force = setTimeout(() => {
        logger?.error(`Shutdown did not finish within ${limit} ms (an onClose hook still runs); exiting now`);
        process.exit(exitCode || 1);
      }, limit);
      this.close({ timeout }).then(
        () => {
          clearTimeout(force);
          process.exit(exitCode);
        },
        (err: unknown) => {
          clearTimeout(force);
          logger?.error(err);
          process.exit(exitCode || 1);
        },
      );
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      if (shutting) {
        logger?.warn(`${signal} received again: exiting now`);
        process.exit(128 + (osConstants.signals[signal] ?? 0));
      }
      logger?.info?.(`${signal} received: closing (in-flight requests get up to ${timeout} ms)`);
      shutdown(0);
    };
    const apply = (policy: UncaughtAction): void => {
      if (policy === 'log') return;
      if (policy === 'exit') process.exit(1);
      shutdown(1);
    };
    const onCrash = (error: unknown, origin: UncaughtOrigin): void => {
      logger?.error(origin === 'unhandledRejection' ? 'Unhandled promise rejection:' : 'Uncaught exception:', error);
      if (typeof uncaught !== 'function') return apply(uncaught as UncaughtAction);
      let decided: unknown;
      try {
        decided = uncaught(error, origin);
      } catch (err) {
        logger?.error('The uncaught handler of closeOnSignals() threw:', err);
        return apply('shutdown');
      }
      Promise.resolve(decided).then(
        (policy) => {
          if (policy === undefined) return apply('shutdown');
          if (policy === 'shutdown' || policy === 'exit' || policy === 'log') return apply(policy);
          logger?.error(`The uncaught handler of closeOnSignals() returned ${String(policy)}; expected 'shutdown', 'exit' or 'log'. Shutting down.`);
          apply('shutdown');
        },
        (err: unknown) => {
          logger?.error('The uncaught handler of closeOnSignals() failed:', err);
          apply('shutdown');
        },
      );
    };
    const listeners: Array<[string, (...args: any[]) => void]> = signals.map((signal) => [signal, onSignal]);
    if (uncaught !== false) {
      listeners.push(['uncaughtException', (error: unknown) => onCrash(error, 'uncaughtException')]);
      listeners.push(['unhandledRejection', (reason: unknown) => onCrash(reason, 'unhandledRejection')]);
    }
    for (const [event, listener] of listeners) process.on(event, listener);
    const uninstall = (): void => {
      for (const [event, listener] of listeners) process.removeListener(event, listener);
      if (this.#uninstallSignals === uninstall) this.#uninstallSignals = undefined;
    };
    this.#uninstallSignals = uninstall;
    return uninstall;
  }
  #uninstallSignals: (() => void) | undefined;

  /**
   * Answers a request with the not-found handler, for a route that found nothing to do
   * (a router's catch-all, say). A handler that calls `next()` ends up here too.
   * @example
   * ```ts
   * app.get('/files/*', (req, res) => (exists(req.params['*']) ? serve(req, res) : app.notFound(req, res)));
   * ```
   */
  notFound(req: Request, res: Response): void {
    const fail = (this.#serverFail ??= this.#fail([]));
    try {
      const result: unknown = this.#notFoundHandler(req, res);
      if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, (err: unknown) => fail(err, req, res));
    } catch (err) {
      fail(err, req, res);
    }
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
    (this.#serverFail ??= this.#fail([]))(err, req, res);
  }

  /** @internal Sends an error through the server's error path (onError hooks, then the error handler). */
  _fail(err: unknown, req: Request, res: Response): void {
    (this.#serverFail ??= this.#fail([]))(err, req, res);
  }

  /** @internal Runs onSend hooks; a hook that throws is logged and skipped. */
  _beforeHead(req: Request, res: Response): void {
    const hooks = this[kHooks].onSend;
    for (let i = 0; i < hooks.length; i++) {
      try {
        hooks[i]!(req, res);
      } catch (err) {
        this[kConfig].logger?.error(err);
      }
    }
  }

  /** @internal The response was sent, or the client left. */
  _finished(req: Request, res: Response, aborted: boolean): void {
    if (res._inflight && this.#untrack(res) === 0) this.#drained?.();
    if (!aborted) {
      const hooks = this[kHooks].onResponse;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i]!(req, res);
        } catch (err) {
          this[kConfig].logger?.error(err);
        }
      }
    }
    if (res._hasListeners) {
      if (!aborted) res.emit('finish');
      res.emit('close');
    }
  }

  #add(method: Method, pattern: string, handlers: ChainFn[]): this {
    return this.addRoute({ method, path: pattern, handlers });
  }

  #mountAll(): void {
    for (const route of this.#routes.values()) this.#mount(route);
    for (const register of this.#wsRoutes) register();
    this.#wsRoutes = [];
    // A user's own ANY /* is the fall-through then (uWS allows one handler per pattern).
    if (this.#routes.has('ANY /*')) return;
    const notFound: ChainFn = (req, res) => this.#notFoundHandler(req, res);
    const chain = this.#chainFor('/*', [notFound]);
    this.#app.any('/*', this.#dispatcher('ANY', '/*', [], chain, (this.#serverFail ??= this.#fail([])), false));
  }

  /** Registers one route on uWS, and its HEAD twin for GET routes. */
  #mount(route: RouteDefinition): void {
    const names = paramNames(route.path);
    const chain = this.#chainFor(route.path, route.handlers as ChainFn[]);
    const fail = this.#fail(route.errorHandlers ?? []);
    const method = route.method;
    this.#app[METHODS[method]](route.path, this.#dispatcher(method, route.path, names, chain, fail, method === 'HEAD'));
    if (method === 'GET' && !this.#routes.has(`HEAD ${route.path}`)) {
      this.#app.head(route.path, this.#dispatcher('HEAD', route.path, names, chain, fail, true));
    }
  }

  /** The server's middlewares that apply to a pattern, then the route's own functions. */
  #chainFor(pattern: string, own: ChainFn[]): ChainFn[] {
    const chain: ChainFn[] = [];
    for (const hook of this[kHooks].onRequest) {
      chain.push((req, res, next) => {
        const result = hook(req, res) as Promise<void> | undefined;
        if (result && typeof result.then === 'function') result.then(() => next(), next);
        else next();
      });
    }
    for (const { prefix, fn: given } of this.#middlewares) {
      const relation = relateToPrefix(pattern, prefix);
      if (relation === PrefixRelation.Never) continue;
      // What plugins' wrappers make of it (wrapMiddleware()); most often the function itself.
      const fn = this.#wrap(given as ChainFn);
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
    for (const fn of own) chain.push(this.#wrap(fn));
    return chain;
  }

  /** A chain function as the plugins' wrappers leave it. */
  #wrap(fn: ChainFn): ChainFn {
    const wrappers = this.#wrappers;
    for (let i = 0; i < wrappers.length; i++) {
      const wrapped = wrappers[i]!(fn as Middleware<any, any>);
      if (typeof wrapped !== 'function') throw invalidOption('A wrapMiddleware() wrapper must return a middleware function');
      fn = wrapped as ChainFn;
    }
    return fn;
  }

  /** The function uWS calls for one route. */
  #dispatcher(method: Method, pattern: string, names: string[], chain: ChainFn[], fail: Fail, head: boolean) {
    const fixedMethod = method === 'ANY' ? undefined : method;
    const wildcard = pattern.endsWith('/*') ? pattern.length - 1 : -1;
    const hasParams = names.length > 0 || wildcard >= 0;
    // uWS matches a pattern without parameters only by the exact same path (no decoding, no
    // case folding, no trailing-slash leniency), so that path need not be asked from uWS.
    const fixedPath = hasParams ? undefined : pattern;
    const shape: Record<string, string> = {};
    for (const name of names) shape[name] = '';
    if (wildcard >= 0) shape['*'] = '';
    const heads = new HeadCache();
    return (ures: HttpResponse, ureq: HttpRequest): void => {
      let m: string | undefined = fixedMethod;
      let isHead = head;
      if (m === undefined) {
        m = ureq.getCaseSensitiveMethod().toUpperCase();
        isHead = m === 'HEAD';
      }
      const res = new Response(this, ures, isHead, heads);
      const req = new Request(this, ureq, ures, res, m, fixedPath);
      res.req = req;
      if (this.#closing) res._closeAfter();
      if (hasParams) {
        const params = readParams(ureq, names, wildcard, shape);
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
        // Kept apart from _detach so that this common path stays small enough to inline.
        req._release();
        return;
      }
      // The handler went async: uWS needs an abort handler now, and its request dies on return.
      res._detach();
      req._detach();
      ures.onAborted(() => this.#abort(req, res));
      this.#track(res);
    };
  }

  #track(res: Response): void {
    const head = this.#inflight;
    res._inflight = true;
    res._prevInflight = null;
    res._nextInflight = head;
    if (head) head._prevInflight = res;
    this.#inflight = res;
    this.#inflightCount++;
  }

  /** Takes a response off the in-flight list; returns how many are left. */
  #untrack(res: Response): number {
    const prev = res._prevInflight;
    const next = res._nextInflight;
    if (prev) prev._nextInflight = next;
    else this.#inflight = next;
    if (next) next._prevInflight = prev;
    res._inflight = false;
    res._prevInflight = res._nextInflight = null;
    return --this.#inflightCount;
  }

  #inflightList(): Response[] {
    const list: Response[] = [];
    for (let res = this.#inflight; res; res = res._nextInflight) list.push(res);
    return list;
  }

  #abort(req: Request, res: Response): void {
    if (!res._abort()) return;
    req._abort();
    this._finished(req, res, true);
  }

  /** Error path for one route: its own error handlers first, then the server's. */
  #fail(scoped: Array<ErrorHandler<any, any>>): Fail {
    return (err, req, res) => {
      if (err === FALL_THROUGH) return this.notFound(req, res);
      for (const hook of this[kHooks].onError) {
        try {
          hook(err, req, res);
        } catch (hookError) {
          this[kConfig].logger?.error(hookError);
        }
      }
      if (res.aborted) return;
      if (res.headersSent) {
        // Too late for an error answer: log it, and cut a response still in progress.
        this[kConfig].logger?.error(err);
        if (!res.finished) res.destroy();
        return;
      }
      this.#handleError(err, req, res, this.#errorHandlers(scoped, req), 0);
    };
  }

  /** Router-scoped handlers, then the error middlewares that apply to the request's path, then the server's. */
  #errorHandlers(scoped: Array<ErrorHandler<any, any>>, req: Request): Array<ErrorHandler<any, any>> {
    const list = this.#errorMiddlewares;
    if (list.length === 0) return [...scoped, this.#errorHandler];
    const handlers: Array<ErrorHandler<any, any>> = [...scoped];
    let path: string | undefined;
    for (const { matches, fn } of list) {
      if (matches) {
        path ??= req.originalUrl.split('?')[0]!;
        if (!matches(path)) continue;
      }
      handlers.push(fn as ErrorHandler<any, any>);
    }
    handlers.push(this.#errorHandler);
    return handlers;
  }

  #handleError(err: unknown, req: Request, res: Response, handlers: Array<ErrorHandler<any, any>>, i: number): void {
    const handler = handlers[i] ?? defaultErrorHandler;
    // Error handlers get a `next` too, as Express error middlewares do: next(err) hands an error
    // to the next handler; next() with nothing means nobody answered, so the not-found handler does.
    let passed = false;
    const pass = (passedOn?: unknown) => {
      if (passed || res.finished || res.aborted) return;
      passed = true;
      if (passedOn === undefined || passedOn === null || passedOn === 'route' || passedOn === 'router') {
        if (res.headersSent) return res.destroy();
        return this.notFound(req, res);
      }
      next(passedOn);
    };
    const next = (thrown: unknown) => {
      if (res.finished || res.aborted) return this[kConfig].logger?.error(thrown);
      if (res.headersSent) return res.destroy();
      if (handler === defaultErrorHandler) {
        // The last resort failed too: answer a bare 500, through core's own end (an end a
        // middleware replaced may be what failed, as an Express middleware does on a server
        // without nodeCompat).
        this[kConfig].logger?.error(thrown);
        res.statusCode = 500;
        res.remove('content-type');
        return void Response.prototype.end.call(res, 'Internal Server Error');
      }
      this.#handleError(thrown, req, res, handlers, i + 1);
    };
    try {
      const result: unknown = (handler as ErrorMiddleware<any, any>)(err, req, res, pass);
      if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, next);
    } catch (thrown) {
      next(thrown);
    }
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

function defaultErrorHandler(err: any, req: Request, res: Response): void {
  const raw = Number(err?.status ?? err?.statusCode);
  const status = Number.isInteger(raw) && raw >= 400 && raw <= 599 ? raw : 500;
  const expose = typeof err?.expose === 'boolean' ? err.expose : status < 500;
  const config = req.server[kConfig];
  if (status >= 500) config.logger?.error(err);
  const body: Record<string, unknown> = { statusCode: status, error: STATUS_CODES[status] ?? 'Error' };
  if (expose || config.exposeErrors) {
    body.message = String(err?.message ?? err);
    if (typeof err?.code === 'string') body.code = err.code;
    const details = err?.details;
    if (details !== undefined) {
      if (details && typeof details === 'object' && !Array.isArray(details)) Object.assign(body, details);
      else body.details = details;
    }
    if (config.exposeErrors && status >= 500 && err?.stack) body.stack = String(err.stack);
  } else {
    body.message = STATUS_CODES[status] ?? 'Error';
  }
  res.status(status);
  res.remove('content-type');
  res.json(body);
}

function defaultNotFoundHandler(req: Request, res: Response): void {
  res.status(404).json({ statusCode: 404, error: 'Not Found', message: `Cannot ${req.method} ${req.path}` });
}

/** Reads and decodes route parameters; undefined when an escape is malformed. */
function readParams(ureq: HttpRequest, names: string[], wildcard: number, shape: Record<string, string>): Record<string, string> | undefined {
  // A copy of the route's own template: every request's params share one hidden class, and the
  // stores below overwrite existing keys instead of adding properties.
  const params = { ...shape };
  try {
    for (let i = 0; i < names.length; i++) {
      // Never undefined for an index below the route's parameter count.
      const raw = ureq.getParameter(i) as string;
      params[names[i]!] = raw.indexOf('%') < 0 ? raw : decodeURIComponent(raw);
    }
    if (wildcard >= 0) {
      const rest = ureq.getUrl().slice(wildcard);
      params['*'] = rest.indexOf('%') < 0 ? rest : decodeURIComponent(rest);
    }
  } catch {
    return undefined;
  }
  return params;
}

function compileTrust(trust: ServerOptions['trustProxy']): Config['trust'] {
  if (trust === undefined || trust === false) return undefined;
  if (trust === true) return () => true;
  if (typeof trust === 'number') {
    if (!Number.isInteger(trust) || trust < 0) throw invalidOption('trustProxy as a number is a hop count: 1 for one proxy');
    return (_addr, hop) => hop < trust;
  }
  if (typeof trust === 'function') return trust;
  const list = typeof trust === 'string' ? trust.split(',').map((s) => s.trim()) : trust;
  try {
    return proxyAddr.compile(list);
  } catch (cause) {
    throw invalidOption(`trustProxy: ${(cause as Error).message}; give addresses, CIDR ranges or loopback/linklocal/uniquelocal`);
  }
}

/** uWS reads TLS material from files: PEM text given inline goes to a private temp file for the moment it takes. */
function createTlsApp(uws: Uws, tls: TlsOptions): TemplatedApp {
  if (!tls.key || !tls.cert) throw invalidOption('tls needs key and cert (file paths or PEM text)');
  let dir: string | undefined;
  const file = (value: string | Buffer, name: string): string => {
    if (typeof value === 'string' && !value.includes('-----BEGIN')) return value;
    dir ??= mkdtempSync(join(tmpdir(), 'velox-tls-'));
    const path = join(dir, name);
    writeFileSync(path, value, { mode: 0o600 });
    return path;
  };
  try {
    const options: AppOptions = { key_file_name: file(tls.key, 'key.pem'), cert_file_name: file(tls.cert, 'cert.pem') };
    if (tls.passphrase) options.passphrase = tls.passphrase;
    if (tls.dhParams) options.dh_params_file_name = file(tls.dhParams, 'dh.pem');
    if (tls.ca) options.ca_file_name = file(tls.ca, 'ca.pem');
    try {
      return uws.SSLApp(options);
    } catch (cause) {
      throw invalidOption(
        `TLS setup failed (${(cause as Error).message}): key, cert${tls.dhParams ? ', dhParams' : ''}${tls.ca ? ', ca' : ''} must be readable PEM files or PEM text, and the passphrase must open the key`,
      );
    }
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** A message as uWS takes it: strings, ArrayBuffers and typed arrays as they are, a DataView as bytes. */
function messageBytes(message: WebSocketMessage, where: string): string | ArrayBuffer | Uint8Array {
  if (typeof message === 'string' || message instanceof ArrayBuffer) return message;
  if (ArrayBuffer.isView(message)) {
    return message instanceof Uint8Array ? message : new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
  }
  throw invalidOption(`${where} sends a string, an ArrayBuffer or a Buffer (any typed array); got ${message === null ? 'null' : typeof message}`);
}

/** Time the onClose hooks get after the drain, before a shutdown from closeOnSignals() gives up and exits 1. */
const ON_CLOSE_GRACE = 5_000;

/**
 * Resolves once the event loop has polled for I/O at least once after the call (uWS runs in
 * libuv's poll phase). One immediate is not enough when called from the poll phase itself (a
 * signal, a request handler): it runs in the same iteration, before any new poll.
 */
function afterPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

function parseSignalOptions(options: CloseOnSignalsOptions): Required<CloseOnSignalsOptions> {
  if (options === null || typeof options !== 'object') throw invalidOption('closeOnSignals() takes an options object: { signals, timeout, uncaught }');
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  if (!Array.isArray(signals) || signals.length === 0) throw invalidOption("closeOnSignals(): signals is a non-empty list such as ['SIGINT', 'SIGTERM']");
  for (const signal of signals) {
    if (typeof signal !== 'string' || !(signal in osConstants.signals)) throw invalidOption(`closeOnSignals(): unknown signal ${String(signal)}; use names such as 'SIGTERM'`);
    if (signal === 'SIGKILL' || signal === 'SIGSTOP') throw invalidOption(`closeOnSignals(): ${signal} cannot be caught; use SIGTERM or SIGINT`);
  }
  const timeout = options.timeout ?? 10_000;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0) {
    throw invalidOption(`closeOnSignals(): timeout is the milliseconds in-flight requests get, e.g. 10000; got ${String(options.timeout)}`);
  }
  const uncaught = options.uncaught ?? 'shutdown';
  if (!(uncaught === false || uncaught === 'shutdown' || uncaught === 'exit' || uncaught === 'log' || typeof uncaught === 'function')) {
    throw invalidOption(`closeOnSignals(): uncaught is 'shutdown', 'exit', 'log', false or a function (error, origin) => policy; got ${String(uncaught)}`);
  }
  return { signals, timeout, uncaught };
}

/** uSockets' listen options (uWS's `ListenOptions` enum, which its typings declare as a const-less enum). */
const LIBUS_LISTEN_DEFAULT = 0;
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

interface ListenTarget {
  port: number;
  host?: string;
  path?: string;
  reusePort: boolean;
}

/** Reads listen()'s arguments: port or path, then host?, options?, callback? in that order. */
function parseListenArgs(portOrPath: unknown, rest: unknown[]): { target: ListenTarget; callback: ListenCallback | undefined } {
  const usage = 'write listen(port, host?, { reusePort }?, callback?), e.g. listen(3000, "0.0.0.0"), or listen("/path/to.sock")';
  let callback: ListenCallback | undefined;
  if (typeof rest[rest.length - 1] === 'function') callback = rest.pop() as ListenCallback;
  let host: string | undefined;
  let options: ListenOptions = {};
  if (rest.length > 0 && (typeof rest[0] === 'string' || rest[0] === undefined)) host = rest.shift() as string | undefined;
  if (rest.length > 0 && rest[0] !== undefined) {
    if (typeof rest[0] !== 'object' || rest[0] === null) throw invalidOption(`listen(): unexpected ${describeArg(rest[0])}; ${usage}`);
    options = rest.shift() as ListenOptions;
  } else if (rest.length > 0) rest.shift();
  if (rest.length > 0) throw invalidOption(`listen(): too many arguments; ${usage}`);
  if (host !== undefined && (host.length === 0 || /\s/.test(host))) throw invalidOption(`listen(): host must be an address or name such as "127.0.0.1" or "::", got ${JSON.stringify(host)}`);
  const unknown = Object.keys(options).filter((key) => key !== 'reusePort');
  if (unknown.length > 0) throw invalidOption(`listen(): unknown option ${unknown.join(', ')}; the options are { reusePort }`);
  if (options.reusePort !== undefined && typeof options.reusePort !== 'boolean') throw invalidOption('listen(): reusePort must be true or false');
  const reusePort = options.reusePort === true;
  if (typeof portOrPath === 'string' && portOrPath.length > 0 && !/^\d+$/.test(portOrPath)) {
    if (host !== undefined || reusePort) throw invalidOption(`listen("${portOrPath}") is a Unix socket path: it takes no host and no reusePort`);
    return { target: { port: 0, path: portOrPath, reusePort: false }, callback };
  }
  const port = typeof portOrPath === 'string' ? Number(portOrPath) : portOrPath;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw invalidOption(`listen(): the port must be a whole number from 0 to 65535 (0 picks a free one), got ${describeArg(portOrPath)}; ${usage}`);
  }
  return { target: host === undefined ? { port, reusePort } : { port, host, reusePort }, callback };
}

function describeArg(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' || typeof value === 'function' ? typeof value : String(value);
}

/** Refuses a Unix socket path that holds something other than a socket, or a socket a server accepts on. */
async function checkSocketPath(path: string): Promise<VeloxError | undefined> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return new VeloxError(ErrorCodes.LISTEN_FAILED, `Could not listen on ${path}: ${(cause as Error).message}`, { cause });
  }
  if (!isSocket) return new VeloxError(ErrorCodes.LISTEN_FAILED, `Could not listen on ${path}: a file that is not a socket is there, and Velox does not replace it`);
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (!live) return undefined; // a stale socket file left by a server that stopped: uWS replaces it
  const cause = Object.assign(new Error(`listen EADDRINUSE: address already in use ${path}`), { code: 'EADDRINUSE' });
  return new VeloxError(ErrorCodes.LISTEN_FAILED, `Could not listen on ${path}: the socket path is in use (another server accepts connections there)`, { cause });
}

/**
 * uWS only says that listening failed. Binding the same address with node:net gives the reason
 * (EADDRINUSE, EACCES, EADDRNOTAVAIL…), which becomes the message and the error's cause.
 */
async function listenFailed(target: ListenTarget): Promise<VeloxError> {
  const where = target.path ?? `${target.host ?? 'every address'}, port ${target.port}`;
  const cause = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const probe = createNetServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    const address = target.path !== undefined ? { path: target.path } : { port: target.port, host: target.host, exclusive: true };
    probe.listen(address, () => probe.close(() => resolve(undefined)));
  });
  let why: string;
  switch (cause?.code) {
    case 'EADDRINUSE':
      why =
        target.path !== undefined
          ? 'the socket path is in use (another server listens there, or a stale socket file is left: remove it)'
          : target.reusePort
            ? 'the port is already in use by a listener that does not share it'
            : 'the port is already in use (by another server or program; stop it, choose another port, or share the port on purpose: both sides listen with { reusePort: true })';
      break;
    case 'EACCES':
    case 'EPERM':
      why = target.path !== undefined ? 'permission denied' : 'permission denied (ports below 1024 need privileges)';
      break;
    case 'EADDRNOTAVAIL':
      why = `${target.host} is not an address of this machine`;
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      why = `the host name ${target.host} does not resolve`;
      break;
    default:
      why = cause ? (cause.message ?? String(cause)) : 'the address could not be bound';
  }
  return new VeloxError(ErrorCodes.LISTEN_FAILED, `Could not listen on ${where}: ${why}`, { cause });
}
