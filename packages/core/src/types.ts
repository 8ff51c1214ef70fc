/**
 * The shared interface every Velox package plugs into. These types are the contract
 * between core and the router, session, multipart, static and ws packages, and the
 * plugins users publish themselves.
 */
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import type { Server } from './server.ts';

/**
 * Answers a request. May be sync or async; a thrown or rejected error reaches the error handler.
 *
 * @example
 * ```ts
 * const hello: Handler = (req, res) => res.send(`Hello ${req.query.name ?? 'you'}`);
 * app.get('/hello', hello);
 * ```
 */
export type Handler<Req = Request, Res = Response> = (
  req: Req,
  res: Res,
) => unknown;

/**
 * Calls the next middleware; `next(err)` skips to the error handler instead. `next('route')`
 * skips the rest of the route's own functions (to the not-found handler, as no other route
 * matches a flattened route), and is `next()` from a middleware added with `use()`;
 * `next('router')` leaves the route for the not-found handler. Calling it twice from one
 * middleware is an error, unless the second call carries an error (connect-timeout's way).
 *
 * @example
 * ```ts
 * const mw: Middleware = (req, res, next) => (req.get('x-token') ? next() : next(new Error('no token')));
 * ```
 */
export type Next = (err?: unknown) => void;

/**
 * Runs before the handler. Sync or async; call `next()` to go on, `next(err)` or throw to fail,
 * or answer the request yourself and don't call `next` at all.
 *
 * @example
 * ```ts
 * const timing: Middleware = async (req, res, next) => {
 *   res.set('x-started', String(Date.now()));
 *   next();
 * };
 * app.use(timing);
 * ```
 */
export type Middleware<Req = Request, Res = Response> = (
  req: Req,
  res: Res,
  next: Next,
) => unknown;

/**
 * Turns an error into an answer. The default one answers `err.status` (500 when absent) with a
 * short JSON body, and hides the message of 5xx errors.
 *
 * @example
 * ```ts
 * app.setErrorHandler((err, req, res) => {
 *   res.status(err instanceof VeloxError ? err.status : 500).json({ oops: true });
 * });
 * ```
 */
export type ErrorHandler<Req = Request, Res = Response> = (
  err: any,
  req: Req,
  res: Res,
) => unknown;

/**
 * An error handler that may pass the error on, added with `addErrorHandler()` (and, with
 * `nodeCompat` of `@velox/express`, an Express error middleware given to `use()`, told apart by
 * its four arguments). It runs when an error reaches the error path: answer, or `next(err)` to
 * hand an error on (`next()` with nothing hands the request to the not-found handler).
 *
 * @example
 * ```ts
 * const onError: ErrorMiddleware = (err, req, res, next) => {
 *   if (err.code !== 'EBADCSRFTOKEN') return next(err);
 *   res.status(403).send('Form tampered with');
 * };
 * app.addErrorHandler(onError);
 * ```
 */
export type ErrorMiddleware<Req = Request, Res = Response> = (err: any, req: Req, res: Res, next: Next) => unknown;

/**
 * Extends a server at boot time: adds routes, middlewares, hooks. May be async; `listen()` waits for it.
 *
 * @example
 * ```ts
 * const health: Plugin<{ path?: string }> = (server, options) => {
 *   server.get(options.path ?? '/health', (req, res) => res.json({ ok: true }));
 * };
 * await app.register(health, { path: '/healthz' });
 * ```
 */
export type Plugin<Options = any> = (server: Server, options: Options) => void | Promise<void>;

/** HTTP methods a route can be registered for; `ANY` matches every method. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS' | 'ANY';

/**
 * A route as core registers it on uWS: its method, full pattern and the prepared chain
 * (middlewares, then the handler last). Routers flatten themselves into these.
 *
 * @example
 * ```ts
 * app.addRoute({ method: 'GET', path: '/ping', handlers: [(req, res) => res.send('pong')] });
 * ```
 */
export interface RouteDefinition {
  method: Method;
  /** uWS pattern: `/literal`, `/:param`, and a trailing `/*`. */
  path: string;
  /** Middlewares then the handler, last. The server's own middlewares run before these. */
  handlers: Array<Middleware<any, any> | Handler<any, any>>;
  /** Error handlers tried before the server's, innermost first (router-scoped handlers). */
  errorHandlers?: Array<ErrorHandler<any, any>>;
  /**
   * Register this exact path only (`true`), or its trailing-slash twin too (`false`). Default:
   * the server's `strict` option (`false` unless set). Routers pass their own setting.
   */
  strict?: boolean;
}

/** A route as listed by `server.routes()`. */
export interface RouteInfo {
  method: Method;
  path: string;
}

/**
 * Something `use(prefix, x)` can mount: routers implement this to flatten themselves into
 * routes under the prefix.
 *
 * @example
 * ```ts
 * const mountable: Mountable = { mount: (server, prefix) => server.get(`${prefix}/x`, (req, res) => res.send('x')) };
 * app.use('/api', mountable);
 * ```
 */
export interface Mountable {
  mount(server: Server, prefix: string): void;
}

/**
 * The lifecycle hooks, by name, with their signatures.
 * - `onRoute`: a route was registered (sync).
 * - `onRequest`: a request arrived, before any middleware (may be async).
 * - `onSend`: the status and headers are about to be written; headers can still change (sync).
 * - `onResponse`: the response has been handed to the socket; sessions persist here (sync; errors are logged).
 * - `onError`: an error reached the error handler (sync; for logging).
 * - `onListen`: the server listens (may be async).
 * - `onClose`: the server closed (may be async).
 * - `onPublish`: `server.publish()` sent a message to a topic in this process (sync; errors are
 *   logged). A cross-process adapter forwards the message here; `message` is only valid during
 *   the call (copy the bytes to keep them).
 *
 * @example
 * ```ts
 * app.addHook('onResponse', (req, res) => log.info(`${req.method} ${req.path} ${res.statusCode}`));
 * ```
 */
export interface Hooks {
  onRoute: (route: RouteDefinition) => void;
  onRequest: (req: Request, res: Response) => void | Promise<void>;
  onSend: (req: Request, res: Response) => void;
  onResponse: (req: Request, res: Response) => void;
  onError: (err: unknown, req: Request, res: Response) => void;
  onListen: (server: Server) => void | Promise<void>;
  onClose: (server: Server) => void | Promise<void>;
  onPublish: (topic: string, message: string | ArrayBuffer | ArrayBufferView, isBinary: boolean) => void;
}

/** The name of a lifecycle hook. */
export type HookName = keyof Hooks;

/** Something that logs; `console` works. */
export interface Logger {
  error(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  info?(...args: unknown[]): void;
}

type ParamsOfSegment<S extends string> = S extends `:${infer Name}`
  ? { [K in Name]: string }
  : S extends '*'
    ? { '*': string }
    : {};
type ParamsOfPath<P extends string> = P extends `${infer Head}/${infer Rest}`
  ? ParamsOfSegment<Head> & ParamsOfPath<Rest>
  : ParamsOfSegment<P>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The `req.params` type of a route pattern: `'/users/:id/posts/:postId'` gives
 * `{ id: string; postId: string }`, and a trailing `/*` adds `'*'`.
 *
 * @example
 * ```ts
 * type P = ParamsOf<'/users/:id'>; // { id: string }
 * ```
 */
export type ParamsOf<Path extends string> = string extends Path ? Record<string, string> : Simplify<ParamsOfPath<Path>>;

/**
 * What a typed middleware adds to the request it hands on, declared through the optional
 * `'~velox'` property (type-only: nothing is stored there at run time). Route methods merge
 * these into the type of `req` the handler sees, later keys replacing earlier ones. `req` stays a
 * `Request`: `params` and `query` become its type parameters (of any type), and every other key
 * is intersected with it, so that a key `Request` already has may be narrowed (`body?: unknown`
 * to `body: { name: string }`, `user?: User` to `user: User`, `method: string` to `'POST'`). A
 * key whose type cannot hold together with the member's (`method: number`: `string & number` is
 * `never`) replaces the member instead, and then `req` is no longer assignable to `Request`,
 * as at run time.
 *
 * @example
 * ```ts
 * const withUser: TypedMiddleware<{ user: { id: string } }> = (req, res, next) => {
 *   (req as any).user = { id: '1' };
 *   next();
 * };
 * app.get('/me', withUser, (req, res) => res.send(req.user.id));
 * ```
 */
export type TypedMiddleware<Adds extends object> = Middleware & { readonly '~velox'?: { request: Adds } };

type AddsOf<M> = M extends { readonly '~velox'?: infer T } ? (NonNullable<T> extends { request: infer R } ? R : {}) : {};

/** The request type being built from a route's middlewares: its params, its query, the other keys added. */
interface Typed {
  params: unknown;
  query: unknown;
  adds: object;
}
type Step<T extends Typed, A> = {
  params: 'params' extends keyof A ? A['params'] : T['params'];
  query: 'query' extends keyof A ? A['query'] : T['query'];
  adds: Simplify<Omit<T['adds'], keyof A> & Omit<A, 'params' | 'query'>>;
};
type StepAll<T extends Typed, M extends readonly unknown[]> = M extends readonly [infer First, ...infer Rest]
  ? StepAll<Step<T, AddsOf<First>>, Rest>
  : T;
/** The keys added with a type that cannot hold together with the type `Request` gives them. */
type Clashes<Adds> = {
  [K in keyof Adds]-?: K extends keyof Request ? ([Request[K] & Adds[K]] extends [never] ? K : never) : never;
}[keyof Adds];
// Intersected, not Omit-ed: Request has #private fields, so only a type built on Request itself
// (not a copy of its public keys) is assignable to Request. Only clashing keys are Omit-ed.
type RequestOf<T extends Typed, C = Clashes<T['adds']>> = keyof T['adds'] extends never
  ? Request<T['params'], T['query']>
  : [C] extends [never]
    ? Request<T['params'], T['query']> & T['adds']
    : Omit<Request<T['params'], T['query']>, C & PropertyKey> & T['adds'];

/**
 * The request type a route's handler sees: params typed from the pattern, plus what the
 * route's typed middlewares add (see {@link TypedMiddleware}). It is a `Request`:
 * `Request<Params, Query>` intersected with the other keys the middlewares add (unless one of
 * them retypes a member of `Request` with a type that cannot hold with the member's).
 *
 * @example
 * ```ts
 * type R = RouteRequest<'/users/:id', []>; // Request<{ id: string }, Query>
 * const show = (req: Request) => req.path;
 * app.get('/users/:id', validate({ body: schema }), (req, res) => res.send(show(req)));
 * ```
 */
export type RouteRequest<Path extends string, M extends readonly unknown[] = []> = RequestOf<
  StepAll<{ params: ParamsOf<Path>; query: Query; adds: {} }, M>
>;

/**
 * The handler of a route, with `req` typed by {@link RouteRequest}.
 *
 * @example
 * ```ts
 * const show: RouteHandler<'/users/:id'> = (req, res) => res.json({ id: req.params.id });
 * ```
 */
export type RouteHandler<Path extends string, M extends readonly unknown[] = []> = (
  req: RouteRequest<Path, M>,
  res: Response,
  next: Next,
) => unknown;

/** Parsed query string: repeated keys become arrays. */
export type Query = Record<string, string | string[] | undefined>;
/** Request headers, with lower-case names. Repeated headers are joined with `, ` (cookies with `; `). */
export type Headers = Record<string, string | undefined>;

/**
 * Options of {@link Request.json}.
 *
 * @example
 * ```ts
 * // navigator.sendBeacon() posts a string as text/plain: this route takes JSON in any type.
 * const options: JsonOptions = { anyType: true };
 * app.post('/beacon', async (req, res) => res.json(await req.json(options)));
 * ```
 */
export interface JsonOptions {
  /**
   * Parse the body as JSON whatever its Content-Type says, or when it has none. Default: `false`:
   * only `application/json` and `+json` types are parsed, anything else answers 415
   * (`VELOX_ERR_UNSUPPORTED_MEDIA_TYPE`), so that a cross-site form (which can send `text/plain`
   * without a CORS preflight) never reaches a JSON route.
   */
  anyType?: boolean;
}
