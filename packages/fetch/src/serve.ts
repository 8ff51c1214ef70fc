/**
 * `serve({ fetch, port, hostname })`: a web-standards app on its own Velox server (or on one you
 * made), resolving once it listens.
 */
import { type CloseOnSignalsOptions, type CloseOptions, Server, type ServerOptions, type WebSocketRoute } from '@velox/core';
import { invalidOption } from './errors.ts';
import { installLightResponse } from './light-response.ts';
import { type FetchFunction, type FetchHandlerOptions, fetchHandler } from './handler.ts';

/** Options of {@link serve}. */
export interface ServeOptions
  extends FetchHandlerOptions,
    Pick<ServerOptions, 'maxBodyLength' | 'bodyBufferSize' | 'bodyTempDir' | 'trustProxy' | 'tls' | 'logger' | 'exposeErrors'> {
  /** The app's fetch function (`hono.fetch`, `h3.fetch`, `router.fetch`…). Required. */
  fetch: FetchFunction;
  /**
   * The port to listen on; `0` picks a free one (read it back from `port`).
   * @default 3000
   */
  port?: number;
  /**
   * The address to listen on.
   * @default '0.0.0.0'
   */
  hostname?: string;
  /**
   * A Velox server to run the app on instead of a new one: the app answers whatever the
   * server's own routes do not (it becomes the not-found handler, after the server's
   * middlewares). The server must not listen yet; `serve()` makes it listen. The server options
   * above are then ignored (they are the server's).
   */
  server?: Server;
  /**
   * Close gracefully on SIGINT and SIGTERM (`true`, or core's `closeOnSignals` options).
   * @default false
   */
  closeOnSignals?: boolean | CloseOnSignalsOptions;
  /**
   * Put `LightResponse` in `globalThis.Response` and `LightHeaders` in `globalThis.Headers` (see
   * {@link installLightResponse}) for as long as this server runs: apps' `new Response(string)`
   * and `Response.json()` then skip the stream Node's Response makes for every body (most of what
   * a small request costs), and `new Headers()` the WebIDL checks and sorting of Node's. It
   * changes two globals for the whole process, as @hono/node-server does by default; `false`
   * keeps Node's.
   * @default true
   */
  lightResponse?: boolean;
  /**
   * A WebSocket route's behavior for every path (`app.ws('/*', websocket)`): the `websocket` of
   * `createVeloxWebSocket()` (`@velox/fetch/hono-ws`), so that Hono's `upgradeWebSocket` routes
   * upgrade. Plain HTTP requests still go to the app.
   */
  websocket?: WebSocketRoute<any, any>;
}

/** What {@link serve} resolves with. */
export interface FetchServer {
  /** The port it listens on. */
  readonly port: number;
  /** The address it listens on. */
  readonly hostname: string;
  /** The Velox server underneath (its hooks, `uws`, `publish`…). */
  readonly server: Server;
  /** Stops accepting, lets in-flight requests finish (up to `timeout` ms, default 10000), then closes. */
  close(options?: CloseOptions): Promise<void>;
  /** `await using server = await serve(…)` closes it. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Runs a fetch app (`fetch(request, env) => Response`) on a Velox server; resolves once it
 * listens.
 * @example
 * ```ts
 * import { serve } from '@velox/fetch';
 * import { Hono } from 'hono';
 *
 * const hono = new Hono().get('/', (c) => c.text('Hi'));
 * const server = await serve({ fetch: hono.fetch, port: 3000, hostname: '127.0.0.1' });
 * console.log(`listening on ${server.port}`);
 * await server.close();
 * ```
 */
export async function serve(options: ServeOptions): Promise<FetchServer> {
  if (options === null || typeof options !== 'object') throw invalidOption('serve() takes an options object: serve({ fetch: app.fetch, port: 3000 })');
  const { fetch, port = 3000, hostname = '0.0.0.0', server: given, closeOnSignals = false } = options;
  if (typeof fetch !== 'function') throw invalidOption('serve() needs the app\'s fetch function: serve({ fetch: app.fetch })');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw invalidOption(`port must be an integer from 0 to 65535, got ${String(port)}`);
  if (given !== undefined && !(given instanceof Server)) throw invalidOption('server must be a Velox Server (new Server() of @velox/core)');
  if (given?.listening) throw invalidOption('serve({ server }) makes the server listen: pass one that does not listen yet');

  const handler = fetchHandler(fetch, { timeout: options.timeout, maxStreamLength: options.maxStreamLength });
  let app: Server;
  if (given) {
    app = given;
    app.setNotFoundHandler(handler);
  } else {
    const serverOptions: ServerOptions = {};
    if (options.maxBodyLength !== undefined) serverOptions.maxBodyLength = options.maxBodyLength;
    if (options.bodyBufferSize !== undefined) serverOptions.bodyBufferSize = options.bodyBufferSize;
    if (options.bodyTempDir !== undefined) serverOptions.bodyTempDir = options.bodyTempDir;
    if (options.trustProxy !== undefined) serverOptions.trustProxy = options.trustProxy;
    if (options.tls !== undefined) serverOptions.tls = options.tls;
    if (options.logger !== undefined) serverOptions.logger = options.logger;
    if (options.exposeErrors !== undefined) serverOptions.exposeErrors = options.exposeErrors;
    app = new Server(serverOptions);
    app.any('/*', handler);
  }
  if (options.websocket !== undefined) app.ws('/*', options.websocket);
  const removeLight = options.lightResponse === false ? undefined : installLightResponse();
  const removeSignals = closeOnSignals === false ? undefined : app.closeOnSignals(closeOnSignals === true ? {} : closeOnSignals);
  let info: { port: number };
  try {
    info = await app.listen(port, hostname);
  } catch (err) {
    removeLight?.();
    removeSignals?.();
    throw err;
  }
  let closing: Promise<void> | undefined;
  const close = (closeOptions?: CloseOptions) => {
    removeSignals?.();
    return (closing ??= app.close(closeOptions).finally(() => removeLight?.()));
  };
  return {
    port: info.port,
    hostname,
    server: app,
    close,
    [Symbol.asyncDispose]: () => close(),
  };
}
