/**
 * `express()`: an Express 4 application on a Velox server. The app is a function with Express's
 * methods (`use`, `get`/`post`/…, `route`, `param`, `set`/`enable`…, `engine`, `render`,
 * `listen`); its router is Express 4's (router.ts). `listen()` starts a Velox `Server` with
 * `nodeCompat`, whose one catch-all route hands each request to the app: the request and
 * response become the app's `express.request`/`express.response` (their prototypes are set, as
 * Express sets them on Node's), and the stack runs in registration order. Called with Node's
 * `req` and `res` (`http.createServer(app)`), the app forwards them to such a server
 * (node-listener.ts).
 */
import cluster from 'node:cluster';
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import { ErrorCodes, Request, Server, type ServerOptions } from '@velox/core';
import { nodeCompat } from '../plugin.ts';
import { constantPaths, mountConstantRoutes } from './constant.ts';
import { finalHandler } from './final.ts';
import { answerNodeRequest } from './node-listener.ts';
import { compileTrust, etagOf, ownEtagFns, parseQueryExtended } from './libs.ts';
import { adoptServerClasses, adoptServerPrototypes, expressRequest, markDualStack, ownsPrototypes } from './request.ts';
import { expressResponse, kAppSettings, setPoweredBy } from './response.ts';
import { createRouter, kInline, methods, type Next, type Req, type Res, type Router } from './router.ts';
import { type Engine, View } from './view.ts';
import { parse as parseSimple } from 'node:querystring';

const kTrustDefault = Symbol('velox.express.trustProxyDefault');
const kStarted = Symbol('velox.express.started');

/**
 * What `app.listen()` returns: the parts of Node's `http.Server` that apps use.
 * @example
 * ```ts
 * const server = app.listen(0, '127.0.0.1', () => console.log(server.address()!.port));
 * process.on('SIGTERM', () => server.close(() => process.exit(0)));
 * ```
 */
export interface ListeningServer extends EventEmitter {
  /** The Velox server answering. */
  readonly server: Server;
  /** True once listening, until closed. */
  readonly listening: boolean;
  /** `{ address, family, port }` once listening, else null (as Node's). */
  address(): { address: string; family: string; port: number } | null;
  /** Stops listening, lets requests in flight finish, then calls `callback`. */
  close(callback?: (err?: Error) => void): this;
  /**
   * Listens again once closed, as Node's `server.listen([port][, host][, callback])`; while the
   * first listen is still binding, waits for it instead (supertest calls this on a server it
   * finds without an address yet).
   */
  listen(...args: unknown[]): this;
}

/** A middleware, route handler or error middleware, as Express takes them. */
type Handler = (...args: any[]) => unknown;

/**
 * An Express 4 application (the function `express()` returns). The members below are typed;
 * every other Express 4 method (`post`, `put`, `delete`, `all`, …) is there too.
 * @example
 * ```ts
 * const app: Application = express();
 * app.set('json spaces', 2).get('/', (req, res) => res.json({ ok: true }));
 * ```
 */
export interface Application extends EventEmitter {
  (req: Req, res: Res, next?: Next): void;
  /** Middlewares, routers and sub-apps, at a path or everywhere. */
  use(...args: unknown[]): this;
  /** A setting's value (one argument), or a GET route. */
  get(setting: string): any;
  get(path: unknown, ...handlers: Handler[]): this;
  /** A setting's value (one argument), or sets it (two). */
  set(setting: string): any;
  set(setting: string, value: unknown): this;
  /** A route for a path, to chain handlers by method. */
  route(path: unknown): any;
  /** Callbacks for a route parameter. */
  param(name: string | string[], fn: (req: any, res: any, next: Next, value: any, name: string) => unknown): this;
  enable(setting: string): this;
  disable(setting: string): this;
  enabled(setting: string): boolean;
  disabled(setting: string): boolean;
  /** A template engine for an extension. */
  engine(ext: string, fn: (path: string, options: object, callback: (err: unknown, html?: string) => void) => void): this;
  /** Renders a view with the app's locals. */
  render(name: string, options?: object | ((err: unknown, html?: string) => void), callback?: (err: unknown, html?: string) => void): void;
  /** Starts a Velox server for the app: `listen([port][, host][, backlog][, callback])`. */
  listen(...args: unknown[]): ListeningServer;
  /** The app's path from the top app (`''` for it). */
  path(): string;
  /** Values every view and request sees. */
  locals: Record<string, any>;
  /** Every setting. */
  settings: Record<string | symbol, any>;
  /** Where the app is mounted (`'/'` for a top app). */
  mountpath: string | string[];
  /** The prototype of this app's requests. */
  request: any;
  /** The prototype of this app's responses. */
  response: any;
  [key: string]: any;
}

function compileETag(value: unknown): ((body: string | Buffer, encoding?: BufferEncoding) => string) | undefined {
  if (typeof value === 'function') return value as never;
  const weak = (body: string | Buffer, encoding?: BufferEncoding) => etagOf(Buffer.isBuffer(body) ? body : Buffer.from(body, encoding), true);
  const strong = (body: string | Buffer, encoding?: BufferEncoding) => etagOf(Buffer.isBuffer(body) ? body : Buffer.from(body, encoding), false);
  ownEtagFns.set(weak, true);
  ownEtagFns.set(strong, false);
  switch (value) {
    case true:
    case 'weak':
      return weak;
    case false:
      return undefined;
    case 'strong':
      return strong;
    default:
      throw new TypeError(`unknown value for etag function: ${value}`);
  }
}

/**
 * @internal A `query parser` setting as a function: `off` is what `false` gives (Express 4: a
 * parser answering `{}`; Express 5: none, and `req.query` is then an empty object without prototype).
 */
export function compileQueryParser<Off>(value: unknown, off: Off): ((text: string | null) => unknown) | Off {
  if (typeof value === 'function') return value as never;
  switch (value) {
    case true:
    case 'simple':
      return (text) => parseSimple(text ?? '');
    case false:
      return off;
    case 'extended':
      return parseQueryExtended;
    default:
      throw new TypeError(`unknown value for query parser function: ${value}`);
  }
}

export const app: Record<string, any> = {
  init(this: Application) {
    this.cache = {};
    this.engines = {};
    this.settings = {};
    this.defaultConfiguration();
  },

  defaultConfiguration(this: Application) {
    const env = process.env.NODE_ENV || 'development';
    this.enable('x-powered-by');
    this.set('etag', 'weak');
    this.set('env', env);
    this.set('query parser', 'extended');
    this.set('subdomain offset', 2);
    this.set('trust proxy', false);
    Object.defineProperty(this.settings, kTrustDefault, { configurable: true, value: true });
    this.on('mount', function (this: Application, parent: Application) {
      // A sub-app left at the default `trust proxy` follows its parent's.
      if (this.settings[kTrustDefault] === true && typeof parent.settings['trust proxy fn'] === 'function') {
        delete this.settings['trust proxy'];
        delete this.settings['trust proxy fn'];
      }
      Object.setPrototypeOf(this.request, parent.request);
      Object.setPrototypeOf(this.response, parent.response);
      Object.setPrototypeOf(this.engines, parent.engines);
      Object.setPrototypeOf(this.settings, parent.settings);
    });
    this.locals = Object.create(null);
    this.mountpath = '/';
    this.locals.settings = this.settings;
    this.set('view', View);
    this.set('views', resolve('views'));
    this.set('jsonp callback name', 'callback');
    if (env === 'production') this.enable('view cache');
  },

  lazyrouter(this: Application) {
    if (this._router) return;
    this._router = createRouter({ caseSensitive: this.enabled('case sensitive routing'), strict: this.enabled('strict routing') });
    const self = this;
    // Read per request: kept here, since the app itself is a slow object to look a property up on.
    const settings = this.settings;
    // Both run in place when the router reaches them (kInline): they always call next() once.
    const parseQuery = (req: Req): void => {
      if (!req.query) {
        // The settings object (with its parents' beneath): what app.get() reads, without its walk.
        const parse = settings['query parser fn'] as (text: string | null) => unknown;
        // parseurl's query: null without a '?', else the text after it. Core's req.url is its
        // path, then '?' and rawQuery when rawQuery is not empty: read without building the URL.
        const raw: unknown = req.rawQuery;
        if (typeof raw === 'string') req.query = parse(raw === '' ? null : raw);
        else {
          const url: string = req.url;
          const q = url.indexOf('?');
          req.query = parse(q === -1 ? null : url.slice(q + 1));
        }
      }
    };
    const init = (req: Req, res: Res, next: Next): void => {
      // A settings read and core's own set: the name and value are known good, so Node's
      // setHeader checks (two regular expressions) are skipped.
      if (settings['x-powered-by']) setPoweredBy(res);
      req.res = res;
      res.req = req;
      req.next = next;
      // req.app is the app whose request prototype is nearest: this app's means nothing to change.
      if (req.app !== self && !builtOn(req, self.request)) Object.setPrototypeOf(req, self.request);
      if (res.app !== self && !builtOn(res, self.response)) Object.setPrototypeOf(res, self.response);
    };
    const query = function query(req: Req, _res: Res, next: Next) {
      parseQuery(req);
      next();
    };
    const expressInit = function expressInit(req: Req, res: Res, next: Next) {
      init(req, res, next);
      next();
    };
    (query as { [kInline]?: unknown })[kInline] = parseQuery;
    (expressInit as { [kInline]?: unknown })[kInline] = init;
    this._router.use(query);
    this._router.use(expressInit);
  },

  handle(this: Application, req: Req, res: Res, callback?: Next) {
    const router: Router | undefined = this._router;
    const done = callback || finalOf(this, req, res);
    if (!router) {
      done();
      return;
    }
    router.handle(req, res, done);
  },

  use(this: Application, fn: unknown, ...rest: unknown[]) {
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
    const fns = all.slice(offset).flat(Number.POSITIVE_INFINITY);
    if (fns.length === 0) throw new TypeError('app.use() requires a middleware function');
    // Express 4's router is made by lazyrouter(); Express 5's app has none and makes its own on first read.
    let router: Router;
    if (typeof this.lazyrouter === 'function') {
      this.lazyrouter();
      router = this._router;
    } else router = this.router;
    for (const item of fns as any[]) {
      if (!item?.handle || !item.set) {
        router.use(path, item);
        continue;
      }
      item.mountpath = path;
      item.parent = this;
      router.use(path, function mounted_app(req: Req, res: Res, next: Next) {
        const orig = req.app;
        item.handle(req, res, (err?: unknown) => {
          Object.setPrototypeOf(req, orig.request);
          Object.setPrototypeOf(res, orig.response);
          next(err);
        });
      });
      item.emit('mount', this);
    }
    return this;
  },

  route(this: Application, path: unknown) {
    this.lazyrouter();
    return this._router.route(path);
  },

  engine(this: Application, ext: string, fn: Engine) {
    if (typeof fn !== 'function') throw new Error('callback function required');
    const extension = ext[0] !== '.' ? `.${ext}` : ext;
    this.engines[extension] = fn;
    return this;
  },

  param(this: Application, name: any, fn: any) {
    this.lazyrouter();
    if (Array.isArray(name)) {
      for (const n of name) this.param(n, fn);
      return this;
    }
    this._router.param(name, fn);
    return this;
  },

  set(this: Application, ...args: [string, unknown?]) {
    const [setting, value] = args;
    if (args.length === 1) {
      let settings = this.settings;
      while (settings && settings !== Object.prototype) {
        if (Object.hasOwn(settings, setting)) return settings[setting];
        settings = Object.getPrototypeOf(settings);
      }
      return undefined;
    }
    this.settings[setting] = value;
    switch (setting) {
      case 'etag':
        this.set('etag fn', compileETag(value));
        break;
      case 'query parser':
        this.set('query parser fn', compileQueryParser(value, () => ({})));
        break;
      case 'trust proxy':
        this.set('trust proxy fn', compileTrust(value));
        Object.defineProperty(this.settings, kTrustDefault, { configurable: true, value: false });
        break;
    }
    return this;
  },

  path(this: Application): string {
    return this.parent ? this.parent.path() + this.mountpath : '';
  },

  enabled(this: Application, setting: string) {
    return Boolean(this.set(setting));
  },
  disabled(this: Application, setting: string) {
    return !this.set(setting);
  },
  enable(this: Application, setting: string) {
    return this.set(setting, true);
  },
  disable(this: Application, setting: string) {
    return this.set(setting, false);
  },

  all(this: Application, path: unknown, ...handlers: unknown[]) {
    this.lazyrouter();
    const route = this._router.route(path);
    route.all(...handlers);
    return this;
  },

  render(this: Application, name: string, options?: any, callback?: any) {
    const cache = this.cache;
    let done = callback;
    const engines = this.engines;
    let opts = options;
    if (typeof options === 'function') {
      done = options;
      opts = {};
    }
    const renderOptions: Record<string, any> = { ...this.locals, ...opts?._locals, ...opts };
    if (renderOptions.cache == null) renderOptions.cache = this.enabled('view cache');
    let view: View | undefined;
    if (renderOptions.cache) view = cache[name];
    if (!view) {
      const ViewClass = this.get('view');
      try {
        view = new ViewClass(name, { defaultEngine: this.get('view engine'), root: this.get('views'), engines }) as View;
      } catch (err) {
        return done(err);
      }
      if (!view.path) {
        const root = view.root;
        const dirs =
          Array.isArray(root) && root.length > 1
            ? `directories "${root.slice(0, -1).join('", "')}" or "${root[root.length - 1]}"`
            : `directory "${root}"`;
        const err = new Error(`Failed to lookup view "${name}" in views ${dirs}`);
        (err as any).view = view;
        return done(err);
      }
      if (renderOptions.cache) cache[name] = view;
    }
    try {
      view.render(renderOptions, done);
    } catch (err) {
      done(err);
    }
  },

  listen(this: Application, ...args: unknown[]): ListeningServer {
    return listen(this, args);
  },
};

for (const method of methods) {
  app[method] = function (this: Application, path: unknown, ...handlers: unknown[]) {
    if (method === 'get' && handlers.length === 0) return this.set(path as string);
    this.lazyrouter();
    const route = this._router.route(path);
    route[method](...handlers);
    return this;
  };
}
app.del = app.delete;

/**
 * The app's final handler for a request (Express's finalhandler): the settings it reads (`env`)
 * are read when it runs, which is rare (a 404 or an error), not for every request.
 */
export function finalOf(application: Application, req: Req, res: Res): Next {
  return (err?: unknown) => {
    const env = application.get('env');
    finalHandler(req, res, env, (error: any) => {
      if (application.get('env') !== 'test') console.error(error?.stack || String(error));
    })(err);
  };
}

/**
 * True when `target` has `proto` as its prototype, or is one the server built onto it
 * (`server.setInstancePrototypes()` puts one empty subclass prototype between them).
 */
export function builtOn(target: object, proto: object): boolean {
  const direct = Object.getPrototypeOf(target);
  return direct === proto || Object.getPrototypeOf(direct) === proto;
}

/** Options of the Velox server `app.listen()` starts (`app.set('velox options', {...})`). */
function serverOptions(application: Application): ServerOptions {
  const given = application.get('velox options') as ServerOptions | undefined;
  // Node's http says Connection: keep-alive and Keep-Alive: timeout=5 (its keepAliveTimeout) on each response.
  return { logger: false, maxBodyLength: 100 * 1024 * 1024, keepAliveHeader: 5, ...given };
}

/**
 * The Velox server that answers for the app (what `app.listen()` listens with, and what its Node
 * listener forwards to): `nodeCompat`, requests and responses built on the app's prototypes, one
 * catch-all route that hands each request to the app, and Express's final handler for errors.
 */
export function buildServer(application: Application): Server {
  const server = new Server(serverOptions(application));
  void server.register(nodeCompat);
  // The server builds its requests and responses straight onto the app's prototypes (with
  // Express's members and the server's own, nodeCompat's decorations, beneath): one hidden class
  // each, as on Node, where req.query is unset until the app's query middleware parses it.
  const own = server.prototypes;
  adoptServerPrototypes(own.request, own.response);
  server.setInstancePrototypes({ request: application.request, response: application.response });
  const run = (req: Req, res: Res): void => {
    req[kStarted] = true;
    // Node's request has no params: core's catch-all gave it its own ('*').
    req.params = undefined;
    // Express's prototypes are shared by every app: another server's may have taken them since.
    if (!ownsPrototypes(own.request)) adoptServerPrototypes(own.request, own.response);
    application.handle(req, res);
  };
  server.any('/*', run);
  server.setErrorHandler((err: unknown, req: Req, res: Res) => {
    // Core refuses a malformed escape in the path before the route runs; Express leaves that to
    // the layers whose parameters hold it (400 "Failed to decode param"), so the app runs as usual.
    if (!req[kStarted] && (err as { code?: string } | null)?.code === ErrorCodes.BAD_ENCODING) return run(req, res);
    finalHandler(req, res, application.get('env'), undefined)(err);
  });
  return server;
}

/** The server each app's Node listener forwards to (nodeListener()), built at its first request. */
const nodeServers = new WeakMap<Application, Server>();

/** @internal The Velox server `app(req, res)` forwards Node's requests to: built once, never listening. */
export function nodeServerOf(application: Application): Server {
  let server = nodeServers.get(application);
  if (server === undefined) nodeServers.set(application, (server = buildServer(application)));
  return server;
}

/** Servers whose constant routes were looked for (at their first successful listen). */
const withConstants = new WeakSet<Server>();

/** One listen of a ListeningServer: what it asked for, and how it went. */
interface Binding {
  port: number | string;
  host: string | undefined;
  info?: { port: number; host: string };
  failed: boolean;
  /** True until the bind succeeded or failed. */
  pending: boolean;
}

/**
 * Starts a Velox server for the app: `listen([port][, host][, backlog][, callback])` as Node's
 * `server.listen` takes it (the backlog is ignored: uWS sets its own). The object returned can
 * listen again once closed (`server.listen(…)`, as supertest does with a server it found not yet
 * listening), on the same Velox server.
 */
export function listen(application: Application, args: unknown[], flags: { errorToCallback?: boolean } = {}): ListeningServer {
  const server = buildServer(application);
  /** The latest listen: what it asked for, and how it went. */
  let target: Binding;
  const handle = new EventEmitter() as ListeningServer & { [key: string]: unknown };
  Object.defineProperties(handle, {
    server: { value: server },
    listening: { get: () => server.listening },
  });
  const start = (given: unknown[]): void => {
    const callback = typeof given[given.length - 1] === 'function' ? (given.pop() as (err?: unknown) => void) : undefined;
    const port = given[0] === undefined || given[0] === null ? 0 : typeof given[0] === 'string' && /^\d+$/.test(given[0]) ? Number(given[0]) : (given[0] as number | string);
    const host = typeof given[1] === 'string' ? given[1] : undefined;
    // Node listens on :: when given no host, and shows IPv4 peers as ::ffff:a.b.c.d there.
    markDualStack(server, typeof port === 'number' && (host === undefined || host === '::'));
    const current: Binding = (target = { port, host, failed: false, pending: true });
    // Workers of a cluster share their port, as Node's cluster module makes them (uWS: SO_REUSEPORT).
    const options = cluster.isWorker ? { reusePort: true } : {};
    server.listen(port as number, host, options).then(
      (result) => {
        current.info = result;
        current.pending = false;
        handle.emit('listening');
        callback?.call(handle);
        // Constant routes (constant.ts), once per server (a listen again after close() keeps them):
        // routes added right after listen() are in the stack by now.
        if (typeof port === 'number' && !withConstants.has(server)) {
          withConstants.add(server);
          const given = serverOptions(application);
          const logs = Boolean(given.logger) && given.logRequests !== false;
          const constants = logs ? [] : constantPaths(application, expressResponse as Record<string, unknown>);
          if (constants.length > 0) void mountConstantRoutes(server, constants, result.port, host ?? result.host);
        }
      },
      (err: unknown) => {
        current.failed = true;
        current.pending = false;
        // Core's error has the reason Node's listen would give as its cause (listen EADDRINUSE…):
        // that is what an Express app's 'error' handler or uncaughtException sees.
        const cause = (err as { cause?: { syscall?: string } } | null)?.cause;
        const nodeError = cause?.syscall === 'listen' ? cause : err;
        // Express 5 hands the error to listen()'s callback (its 'error' listener, once).
        if (flags.errorToCallback && callback) {
          callback.call(handle, nodeError);
          if (handle.listenerCount('error') > 0) handle.emit('error', nodeError);
          return;
        }
        if (handle.listenerCount('error') > 0) handle.emit('error', nodeError);
        else throw nodeError;
      },
    );
  };
  handle.address = () => {
    const { port, host, info, failed } = target;
    if (!info || !server.listening) {
      // Node binds a port given without a host within listen() itself (a host is looked up
      // first), and apps read server.address() right after it; Velox binds a moment later:
      // until then the address asked for is the answer, as Node's would be.
      if (info || failed || typeof port !== 'number' || port <= 0 || host !== undefined) return null;
      return { address: '::', family: 'IPv6', port };
    }
    if (typeof port === 'string') return info.host as never;
    const address = host === undefined ? '::' : info.host;
    return { address, family: address.includes(':') ? 'IPv6' : 'IPv4', port: info.port };
  };
  handle.close = (cb?: (err?: Error) => void) => {
    if (!server.listening) {
      const err = new Error('Server is not running.');
      (err as any).code = 'ERR_SERVER_NOT_RUNNING';
      if (cb) process.nextTick(cb, err);
      return handle;
    }
    server.close({ timeout: 5000 }).then(
      () => {
        handle.emit('close');
        cb?.();
      },
      (err: Error) => cb?.(err),
    );
    return handle;
  };
  handle.listen = (...again: unknown[]) => {
    // Still binding (the app.listen() that made this object, a moment ago): that bind answers;
    // a callback waits for it, as Node's listen(…, callback) waits for 'listening'.
    if (target.pending) {
      const callback = again[again.length - 1];
      if (typeof callback === 'function') handle.once('listening', callback as () => void);
      return handle;
    }
    if (server.listening) {
      const err = new Error('Listen method has been called more than once without closing.');
      (err as any).code = 'ERR_SERVER_ALREADY_LISTEN';
      throw err;
    }
    start(again);
    return handle;
  };
  start(args);
  return handle;
}

/**
 * What an Express major is made of: the application's members and the request and response
 * prototypes its apps' own prototypes inherit (Express 4's by default; `@velox/express/5` passes
 * Express 5's).
 */
export interface Flavor {
  app: Record<string, any>;
  request: object;
  response: object;
}

const express4: Flavor = { app, request: expressRequest, response: expressResponse };

/**
 * Creates an Express application that runs on Velox (Express 4's, or the flavor given).
 * @example
 * ```ts
 * import express from '@velox/express';
 * const app = express();
 * app.get('/', (req, res) => res.send('Hello'));
 * app.listen(3000, () => console.log('ready'));
 * ```
 */
export function createApplication(flavor: Flavor = express4): Application {
  const application = ((req: Req, res: Res, next?: Next) => {
    // A request of Node's http (`http.createServer(app)`, supertest): forwarded to the Velox
    // server the app answers on (node-listener.ts).
    if (!(req instanceof Request)) return answerNodeRequest(() => nodeServerOf(application), req, res);
    // Mounted in a Velox server (`server.use(app)`): the request takes the app's prototypes
    // while the app runs (its query parser and helpers), and gets its own back on leaving.
    adoptServerClasses(req, res);
    const reqProto = Object.getPrototypeOf(req);
    const resProto = Object.getPrototypeOf(res);
    if (!builtOn(req, application.request)) {
      Object.setPrototypeOf(req, application.request);
      Object.setPrototypeOf(res, application.response);
    }
    const leave =
      next &&
      ((err?: unknown) => {
        Object.setPrototypeOf(req, reqProto);
        Object.setPrototypeOf(res, resProto);
        next(err);
      });
    application.handle(req, res, leave);
  }) as Application;
  for (const key of Object.getOwnPropertyNames(EventEmitter.prototype)) {
    if (key !== 'constructor') (application as any)[key] = (EventEmitter.prototype as any)[key];
  }
  for (const key of Object.keys(flavor.app)) (application as any)[key] = flavor.app[key];
  EventEmitter.call(application as never);
  application.request = Object.create(flavor.request, { app: { configurable: true, enumerable: true, writable: true, value: application } });
  application.response = Object.create(flavor.response, { app: { configurable: true, enumerable: true, writable: true, value: application } });
  application.init();
  // The settings as the response reads them per request (the app, a function with Express's
  // members mixed in, is a slow object to look a property up on; its response prototype is not).
  Object.defineProperty(application.response, kAppSettings, { value: application.settings, configurable: true });
  Object.defineProperty(application.request, kAppSettings, { value: application.settings, configurable: true });
  return application;
}
