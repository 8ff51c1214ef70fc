/**
 * The request lifecycle on `node:diagnostics_channel`, as Node's `http` (`http.server.request.start`)
 * and undici (`undici:request:create`) publish theirs: any APM, `@velox/otel` and the request log
 * subscribe here. Every publish in core is guarded by `hasSubscribers`, so with nobody listening
 * a request pays one property read per event.
 */
import diagnostics from 'node:diagnostics_channel';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import type { Server } from './server.ts';

/**
 * What `velox:request:start` carries: published once per HTTP request (WebSocket upgrades
 * included), after the request and response are built, before any middleware runs.
 * @example
 * ```ts
 * import diagnostics from 'node:diagnostics_channel';
 * diagnostics.subscribe('velox:request:start', (message) => {
 *   const { req, scope } = message as RequestStartMessage;
 *   scope((run) => storage.run({ id: req.get('x-request-id') }, run));
 * });
 * ```
 */
export interface RequestStartMessage {
  readonly req: Request;
  readonly res: Response;
  readonly server: Server;
  /**
   * The matched route pattern (`/users/:id`), as it was registered (a router's routes with their
   * full prefix); undefined for a request no route took (the server's not-found route).
   */
  readonly route: string | undefined;
  /**
   * Runs the request's middlewares and handler inside `wrap`, synchronously: `wrap` must call
   * `run` once before it returns (e.g. `(run) => context.with(ctx, run)`). This is how a
   * subscriber makes its context (an `AsyncLocalStorage` store, an OpenTelemetry span) the
   * active one in the handler and in what the handler starts. Valid only during the publish;
   * several subscribers nest in the order they subscribed (the first is outermost).
   */
  scope(wrap: (run: () => void) => void): void;
}

/**
 * What `velox:request:route` carries: published when a route took the request (at once after
 * `velox:request:start`: uWS matched it before Velox saw the request).
 * @example
 * ```ts
 * diagnostics.subscribe('velox:request:route', (m) => { const { req, route } = m as RouteMatchMessage; spans.get(req)?.setAttribute('http.route', route); });
 * ```
 */
export interface RouteMatchMessage {
  readonly req: Request;
  readonly res: Response;
  /** The route pattern, e.g. `/api/users/:id`. */
  readonly route: string;
}

/**
 * What `velox:request:error` carries: an error (thrown, rejected or passed to `next(err)`) on
 * its way to the error handlers, before they answer. Published for every error a request's
 * chain raises, so once or more per request.
 * @example
 * ```ts
 * diagnostics.subscribe('velox:request:error', (m) => { const { error } = m as RequestErrorMessage; report(error); });
 * ```
 */
export interface RequestErrorMessage {
  readonly req: Request;
  readonly res: Response;
  readonly error: unknown;
}

/**
 * What `velox:response:finish` carries: the response was sent whole, or the connection ended
 * first (`aborted`: the client left, or `res.destroy()` cut it). Published once per request,
 * after the `onResponse` hooks. `res.statusCode` is the status sent.
 * @example
 * ```ts
 * diagnostics.subscribe('velox:response:finish', (m) => { const { res, aborted } = m as ResponseFinishMessage; count(res.statusCode, aborted); });
 * ```
 */
export interface ResponseFinishMessage {
  readonly req: Request;
  readonly res: Response;
  readonly aborted: boolean;
}

/**
 * What `velox:websocket:upgrade` carries: a WebSocket route accepted an upgrade, just before the
 * 101 answer goes out (`velox:response:finish` follows for the upgrade request).
 * @example
 * ```ts
 * diagnostics.subscribe('velox:websocket:upgrade', (m) => { const { route } = m as WebSocketUpgradeMessage; upgrades.add(1, { route }); });
 * ```
 */
export interface WebSocketUpgradeMessage {
  readonly req: Request;
  readonly res: Response;
  /** The WebSocket route's pattern. */
  readonly route: string;
  /** The user data the route's `upgrade` returned for the socket. */
  readonly data: unknown;
}

/**
 * What `velox:body:spill:open`, `velox:body:spill:write` and `velox:body:spill:close` carry: a
 * request body held more than `bodyBufferSize` while its consumer was paused, and the rest went
 * to a temporary file (see core's README, Backpressure on request bodies). `open`: a file was
 * made (`bytes` 0); `write`: `bytes` were appended to it; `close`: it was closed and its disk
 * freed, `bytes` being all it took. A body may open several files over its life, one at a time.
 * Published from uWS's data callback: keep subscribers short.
 * @example
 * ```ts
 * import diagnostics from 'node:diagnostics_channel';
 * let spilled = 0;
 * diagnostics.subscribe('velox:body:spill:write', (m) => { spilled += (m as BodySpillMessage).bytes; });
 * ```
 */
export interface BodySpillMessage {
  readonly req: Request;
  readonly bytes: number;
}

/**
 * The names of the channels core publishes on, to pass to `diagnostics_channel.subscribe()`.
 * @example
 * ```ts
 * import diagnostics from 'node:diagnostics_channel';
 * import { channelNames } from '@velox/core';
 * diagnostics.subscribe(channelNames.responseFinish, ({ res }) => console.log(res.statusCode));
 * ```
 */
export const channelNames = Object.freeze({
  requestStart: 'velox:request:start',
  routeMatch: 'velox:request:route',
  requestError: 'velox:request:error',
  responseFinish: 'velox:response:finish',
  websocketUpgrade: 'velox:websocket:upgrade',
  bodySpillOpen: 'velox:body:spill:open',
  bodySpillWrite: 'velox:body:spill:write',
  bodySpillClose: 'velox:body:spill:close',
} as const);

/** @internal */
export const requestStart = diagnostics.channel(channelNames.requestStart);
/** @internal */
export const routeMatch = diagnostics.channel(channelNames.routeMatch);
/** @internal */
export const requestError = diagnostics.channel(channelNames.requestError);
/** @internal */
export const responseFinish = diagnostics.channel(channelNames.responseFinish);
/** @internal */
export const websocketUpgrade = diagnostics.channel(channelNames.websocketUpgrade);
/** @internal */
export const bodySpillOpen = diagnostics.channel(channelNames.bodySpillOpen);
/** @internal */
export const bodySpillWrite = diagnostics.channel(channelNames.bodySpillWrite);
/** @internal */
export const bodySpillClose = diagnostics.channel(channelNames.bodySpillClose);

type Wrap = (run: () => void) => void;

/**
 * Publishes `velox:request:start` and runs `go` inside the scopes subscribers asked for (the
 * dispatcher calls it only when the channel has subscribers).
 * @internal
 */
export function publishStart<A, B, C, D>(req: Request, res: Response, route: string | undefined, go: (a: A, b: B, c: C, d: D) => void, a: A, b: B, c: C, d: D): void {
  let wraps: Wrap[] | undefined;
  let open = true;
  const message: RequestStartMessage = {
    req,
    res,
    server: req.server,
    route,
    scope(wrap) {
      if (!open) throw new TypeError('velox:request:start: scope() is only valid while the message is published');
      if (typeof wrap !== 'function') throw new TypeError('velox:request:start: scope() takes a function (run) => …');
      (wraps ??= []).push(wrap);
    },
  };
  requestStart.publish(message);
  open = false;
  if (wraps === undefined) return go(a, b, c, d);
  let run = () => go(a, b, c, d);
  for (let i = wraps.length - 1; i >= 0; i--) {
    const wrap = wraps[i]!;
    const inner = run;
    run = () => {
      let ran = false;
      try {
        wrap(() => {
          if (ran) return;
          ran = true;
          inner();
        });
      } catch (err) {
        if (ran) throw err;
        // A subscriber's scope failed before the request ran: report it as diagnostics_channel
        // reports a failing subscriber, and serve the request anyway.
        process.nextTick(() => {
          throw err;
        });
      }
      // A scope that forgot to call run must not leave the request hanging.
      if (!ran) inner();
    };
  }
  run();
}
