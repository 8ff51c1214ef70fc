/**
 * Hono's `upgradeWebSocket` on Velox, through `@velox/ws` (the counterpart of `hono/bun` and
 * `@hono/node-ws`): `import { createVeloxWebSocket } from '@velox/fetch/hono-ws'`. The one file of
 * this package that imports Hono (its `hono/ws` helper and `WSContext`) and `@velox/ws`.
 */
import type { WebSocketRoute } from '@velox/core';
import { type Socket, type SocketHolder, type WebSocketBehavior, websocket } from '@velox/ws';
import type { UpgradeWebSocket, WSEvents } from 'hono/ws';
import { defineWebSocketHelper, WSContext } from 'hono/ws';
import { FetchEnv } from './env.ts';
import { invalidOption } from './errors.ts';
import type { FetchFunction } from './handler.ts';
import { FetchRequest } from './request.ts';
import { sendResponse } from './response.ts';
import { requestUrl } from './url.ts';

/** Where the `upgradeWebSocket` middleware leaves its events for the route to pick up. */
const kSlot = Symbol('velox.fetch.ws');

interface Slot {
  events: WSEvents<Socket<Upgraded>> | undefined;
  onError: ((err: unknown) => void) | undefined;
}

/** What a socket of the route carries. */
interface Upgraded {
  events: WSEvents<Socket<Upgraded>>;
  url: string;
  protocol: string | undefined;
  onError: (err: unknown) => void;
  context?: WSContext<Socket<Upgraded>>;
}

/** Options of {@link createVeloxWebSocket}: the app, and @velox/ws's limits. */
export interface VeloxWebSocketOptions
  extends Pick<
    WebSocketBehavior,
    'maxPayloadLength' | 'idleTimeout' | 'sendPingsAutomatically' | 'maxBackpressure' | 'closeOnBackpressureLimit' | 'compression' | 'maxLifetime'
  > {
  /** The Hono app (its `fetch` runs the upgrade request through the app's middlewares). */
  app: { fetch: FetchFunction | ((request: Request, env?: any) => Response | Promise<Response>) };
}

/** What {@link createVeloxWebSocket} returns. */
export interface VeloxWebSocket {
  /** Hono's helper: `app.get('/ws', upgradeWebSocket((c) => ({ onOpen, onMessage, onClose })))`. */
  upgradeWebSocket: UpgradeWebSocket<Socket<Upgraded>>;
  /** The route's behavior for core's `app.ws(pattern, websocket)`; `serve({ websocket })` registers it on `/*`. */
  websocket: WebSocketRoute<SocketHolder<Upgraded>, Record<string, string>>;
}

/** Node has no CloseEvent global (Node 20, 22): an Event with its fields. */
type HonoCloseEvent = Parameters<NonNullable<WSEvents['onClose']>>[0];

function closeEvent(code: number, reason: string): HonoCloseEvent {
  const event = new Event('close') as Event & { code: number; reason: string; wasClean: boolean };
  Object.defineProperties(event, { code: { value: code }, reason: { value: reason }, wasClean: { value: code !== 1006 } });
  return event as unknown as HonoCloseEvent;
}

/**
 * Hono's WebSocket helper for an app served by Velox: the upgrade request runs through the Hono
 * app (its middlewares can refuse it with any answer), then `@velox/ws` holds the socket. The
 * context's `raw` is the `@velox/ws` Socket: `raw.subscribe(topic)`, `raw.publish(topic, msg)`
 * and, with `redisPubSub` registered, fan-out across processes.
 * @example
 * ```ts
 * import { serve } from '@velox/fetch';
 * import { createVeloxWebSocket } from '@velox/fetch/hono-ws';
 *
 * const app = new Hono();
 * const { upgradeWebSocket, websocket } = createVeloxWebSocket({ app });
 * app.get('/ws', upgradeWebSocket(() => ({
 *   onMessage(event, ws) { ws.send(`echo: ${event.data}`); },
 * })));
 * await serve({ fetch: app.fetch, websocket, port: 3000 });
 * ```
 */
export function createVeloxWebSocket(options: VeloxWebSocketOptions): VeloxWebSocket {
  const app = options?.app;
  if (!app || typeof app.fetch !== 'function') throw invalidOption('createVeloxWebSocket({ app }) needs the Hono app (or anything with fetch)');
  const { app: _app, ...limits } = options;

  const upgradeWebSocket = defineWebSocketHelper<Socket<Upgraded>>((c, events, helperOptions) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') return;
    const slot = (c.env as Record<symbol, Slot | undefined> | undefined)?.[kSlot];
    // Not through the WebSocket route (a plain HTTP server, or a route without `websocket`).
    if (!slot) return new Response('WebSocket upgrades go through the websocket route of createVeloxWebSocket()', { status: 426 });
    slot.events = events;
    slot.onError = helperOptions?.onError;
    return new Response(null, { status: 200 });
  }) as UpgradeWebSocket<Socket<Upgraded>>;

  const behavior = websocket<Upgraded>({
    ...limits,
    async upgrade(req, res) {
      const slot: Slot = { events: undefined, onError: undefined };
      const env = new FetchEnv(req, res) as FetchEnv & Record<symbol, Slot>;
      env[kSlot] = slot;
      const request = new FetchRequest(req, res, requestUrl(req), { maxBodyLength: req.server.config.maxBodyLength, maxStreamLength: 0 });
      const response = await app.fetch(request as unknown as Request, env);
      if (slot.events === undefined) {
        // The app answered (a 401 from a middleware, a 404): that answer refuses the upgrade.
        await sendResponse(res, response);
        return undefined as unknown as Upgraded;
      }
      const logger = req.server.logger;
      return {
        events: slot.events,
        url: request.url,
        protocol: req.get('sec-websocket-protocol')?.split(',')[0]?.trim(),
        onError: slot.onError ?? ((err: unknown) => logger?.error?.(err)),
      };
    },
    open(socket) {
      const data = socket.data;
      const context = new WSContext<Socket<Upgraded>>({
        send: (source) => {
          socket.send(source as string | ArrayBuffer | Uint8Array);
        },
        close: (code, reason) => socket.close(code, reason),
        raw: socket,
        get readyState() {
          return socket.closed ? 3 : 1;
        },
        url: data.url,
        protocol: data.protocol ?? null,
      });
      data.context = context;
      call(data, () => data.events.onOpen?.(new Event('open'), context));
    },
    message(socket, message, isBinary) {
      const data = socket.data;
      const payload = isBinary ? message.slice(0) : Buffer.from(message).toString();
      call(data, () => data.events.onMessage?.(new MessageEvent('message', { data: payload }), data.context!));
    },
    close(socket, code, reason) {
      const data = socket.data;
      if (!data?.context) return;
      call(data, () => data.events.onClose?.(closeEvent(code, reason), data.context!));
    },
  });
  return { upgradeWebSocket, websocket: behavior as unknown as VeloxWebSocket['websocket'] };
}

/** Runs an app's event handler; what it throws (or rejects with) goes to its onError. */
function call(data: Upgraded, fn: () => unknown): void {
  try {
    const result = fn();
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, data.onError);
  } catch (err) {
    data.onError(err);
  }
}
