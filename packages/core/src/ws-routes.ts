/**
 * WebSocket routes: the upgrade runs the route's middleware chain like any HTTP request, then
 * hands the socket to uWS; the open sockets are kept for close(), and publish() reaches them all.
 */
import type { TemplatedApp, WebSocket, WebSocketBehavior } from '@based/uws';
import type { ChainFn } from './compose.ts';
import { websocketUpgrade } from './diagnostics.ts';
import { dispatcher } from './dispatch.ts';
import { makeFail } from './error-path.ts';
import { invalidOption } from './errors.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import { paramNames } from './routing.ts';
import type { Server } from './server.ts';
import { completeUpgrade } from './response-write.ts';
import { kContext } from './symbols.ts';
import type { Middleware } from './types.ts';

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


/** One server's WebSocket routes and open sockets. */
export class WebSocketRoutes {
  #life: Lifecycle;
  #app: TemplatedApp;
  /** Routes added before listen(), registered on uWS when it mounts. */
  #pending: Array<() => void> = [];
  /** Whether uWS has a WebSocket route, and so a topic tree to publish to. */
  #topics = false;
  /** Open WebSockets of every route, for close(); only WebSocket routes add to it. */
  #sockets = new Set<WebSocket<unknown>>();
  /** Promises returned by WebSocket close handlers that have not settled yet. */
  #closeHandlers = new Set<Promise<unknown>>();

  constructor(life: Lifecycle, app: TemplatedApp) {
    this.#life = life;
    this.#app = app;
  }

  /** Adds a route (see `Server.ws`); `chainFor` gives the middleware chain for the pattern, `mounted` whether uWS already routes. */
  add<UserData>(
    server: Server,
    pattern: string,
    middlewares: Array<Middleware<any, any>>,
    behavior: WebSocketRoute<UserData, any>,
    chainFor: (pattern: string, own: ChainFn[]) => ChainFn[],
    mounted: boolean,
  ): void {
    if (!behavior || typeof behavior !== 'object') throw invalidOption('ws() needs a behavior object last');
    if (behavior.setup !== undefined && typeof behavior.setup !== 'function') throw invalidOption('ws(): behavior.setup must be a function (server, pattern) => …');
    const life = this.#life;
    const names = paramNames(pattern);
    const ready = behavior.setup?.(server, pattern);
    if (ready && typeof ready.then === 'function') {
      if (mounted) ready.then(undefined, (err: unknown) => life.config.logger?.error(err));
      else server.register(() => ready);
    }
    const register = () => {
      const finish = (req: Request, res: Response, data: UserData): void => {
        if (res.finished || res.aborted) return;
        if (life.closing) {
          // Its socket would open after close() ended the others.
          res.status(503).set('connection', 'close').send('The server is shutting down');
          return;
        }
        if (websocketUpgrade.hasSubscribers) websocketUpgrade.publish({ req, res, route: pattern, data });
        completeUpgrade(res, data, req.get('sec-websocket-key') ?? '', req.get('sec-websocket-protocol') ?? '', req.get('sec-websocket-extensions') ?? '');
      };
      const upgrade: ChainFn = (req, res) => {
        const data = behavior.upgrade ? behavior.upgrade(req, res) : ({} as UserData);
        if (data !== null && typeof (data as Promise<UserData> | undefined)?.then === 'function') {
          return (data as Promise<UserData>).then((value) => finish(req, res, value));
        }
        finish(req, res, data as UserData);
      };
      const chain = chainFor(pattern, [...middlewares, upgrade]);
      const dispatch = dispatcher(life, 'GET', pattern, names, chain, makeFail(life, []), false);
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
    if (mounted) register();
    else this.#pending.push(register);
  }

  /** Registers on uWS the routes added before listen(). */
  mount(): void {
    for (const register of this.#pending) register();
    this.#pending = [];
  }

  #trackClose(result: Promise<unknown>): void {
    const pending = result.then(
      () => {
        this.#closeHandlers.delete(pending);
      },
      (err: unknown) => {
        this.#closeHandlers.delete(pending);
        this.#life.config.logger?.error(err);
      },
    );
    this.#closeHandlers.add(pending);
  }

  /** Ends every open socket with 1001 (going away). */
  endAll(): void {
    // Each end() sends a close frame and runs the socket's close handler at once.
    for (const ws of [...this.#sockets]) {
      try {
        ws.end(1001, 'Server shutting down');
      } catch (err) {
        this.#life.config.logger?.error(err);
      }
    }
  }

  /** Settles when the close handlers still running have finished; undefined when none runs. */
  closing(): Promise<unknown> | undefined {
    return this.#closeHandlers.size > 0 ? Promise.all([...this.#closeHandlers]) : undefined;
  }

  /** See `Server.publish`. */
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
      const hooks = this.#life.hooks.onPublish;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i]!(topic, message, binary);
        } catch (err) {
          this.#life.config.logger?.error(err);
        }
      }
    }
    return count;
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
