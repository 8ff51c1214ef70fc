/**
 * VeloxInstrumentation: an HTTP server span and the HTTP server metrics for every Velox request,
 * made from the lifecycle `@velox/core` publishes on `node:diagnostics_channel` (see core's
 * README, "Diagnostics channels"). Nothing is patched: enabling subscribes, disabling
 * unsubscribes, so servers made before or after registration are traced alike.
 */
import diagnostics from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import {
  type BodySpillMessage,
  channelNames,
  type Request,
  type RequestErrorMessage,
  type RequestStartMessage,
  type Response,
  type ResponseFinishMessage,
  type WebSocketUpgradeMessage,
} from '@velox/core';
import { invalidOption } from './errors.ts';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PEER_ADDRESS,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
  type Attributes,
  context,
  type Counter,
  type Histogram,
  InstrumentationBase,
  type InstrumentationConfig,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  type UpDownCounter,
  ValueType,
} from './libs.ts';

/** This package's name and version, as the instrumentation scope of its spans and metrics. */
const NAME = '@velox/otel';
const VERSION = '0.0.0';

/**
 * The name of the metric of requests in progress, `http.server.active_requests` (still in the
 * incubating part of the semantic conventions, so not exported by their stable package).
 * @example
 * ```ts
 * const view = { instrumentName: METRIC_HTTP_SERVER_ACTIVE_REQUESTS }; // e.g. to select it in a MeterProvider view
 * ```
 */
export const METRIC_HTTP_SERVER_ACTIVE_REQUESTS = 'http.server.active_requests';

/**
 * The name of the counter of request-body bytes written to temporary files (core's
 * `bodyBufferSize`: what arrived past it while the consumer was paused), in bytes.
 * @example
 * ```ts
 * const view = { instrumentName: METRIC_VELOX_BODY_SPILLED }; // e.g. to select it in a MeterProvider view
 * ```
 */
export const METRIC_VELOX_BODY_SPILLED = 'velox.body.spilled';

/**
 * The name of the up-down counter of request-body temporary files open now.
 * @example
 * ```ts
 * const view = { instrumentName: METRIC_VELOX_BODY_SPILL_FILES };
 * ```
 */
export const METRIC_VELOX_BODY_SPILL_FILES = 'velox.body.spill.files';

/** The bucket boundaries the HTTP semantic conventions advise for `http.server.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The methods the conventions know; any other is reported as `_OTHER`, with the original beside it. */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'QUERY', 'TRACE']);

/**
 * Options of {@link VeloxInstrumentation}, besides OpenTelemetry's own `enabled`.
 * @example
 * ```ts
 * new VeloxInstrumentation({
 *   ignoreRequest: (req) => req.path === '/healthz',
 *   requestHook: (span, req) => span.setAttribute('tenant', req.get('x-tenant') ?? 'none'),
 * });
 * ```
 */
export interface VeloxInstrumentationConfig extends InstrumentationConfig {
  /** Requests for which neither a span nor metrics are made (health checks). Called with the request as it starts. Default: none. */
  ignoreRequest?: (req: Request) => boolean;
  /** Called with the span and the request as it starts: read what you need from the request now. Default: none. */
  requestHook?: (span: Span, req: Request) => void;
  /** Called with the span, the request and the response before the span ends. Default: none. */
  responseHook?: (span: Span, req: Request, res: Response) => void;
  /** Record the query string as `url.query`. Default: `true`. */
  captureQuery?: boolean;
}

/** What one traced request carries from its start to its end. */
interface Traced {
  span: Span;
  started: number;
  /** The attributes of the metrics, filled in as the request goes. */
  metric: Attributes;
  /** The method and scheme the active-requests counter was raised with. */
  active: Attributes;
  error: unknown;
  upgraded: boolean;
}

/** State that must exist before InstrumentationBase's constructor calls enable(). */
interface State {
  listeners?: Array<[string, (message: unknown) => void]>;
  /** Traced requests still in progress. */
  inProgress: number;
  /** The finish listener of a disabled instrumentation, kept until its last request ends. */
  draining?: (message: unknown) => void;
  duration?: Histogram;
  active?: UpDownCounter;
  spilled?: Counter;
  spillFiles?: UpDownCounter;
  /** Requests whose spill file this instrumentation counted as open, and how many. */
  spilling: WeakSet<Request>;
  spillsOpen: number;
  /** The spill-close listener of a disabled instrumentation, kept until the files it counted close. */
  spillDraining?: (message: unknown) => void;
}
const states = new WeakMap<object, State>();
const stateOf = (instrumentation: object): State => {
  let state = states.get(instrumentation);
  if (!state) states.set(instrumentation, (state = { inProgress: 0, spilling: new WeakSet(), spillsOpen: 0 }));
  return state;
};

/** Reads the propagation headers (`traceparent`, `tracestate`, `baggage`) from a Velox request. */
const headerGetter: TextMapGetter<Request> = {
  get: (req, key) => req.get(key),
  keys: (req) => Object.keys(req.headers),
};

/**
 * OpenTelemetry instrumentation for Velox servers: one `SERVER` span per HTTP request (WebSocket
 * upgrades included) following the HTTP semantic conventions, continuing the caller's trace
 * (W3C `traceparent` through the global propagator) and active while the middlewares and the
 * handler run, so that the spans they start (an outgoing `fetch`, Redis, a database) are its
 * children; plus the `http.server.request.duration` histogram and the
 * `http.server.active_requests` counter.
 *
 * @example
 * ```ts
 * import { registerInstrumentations } from '@opentelemetry/instrumentation';
 * import { VeloxInstrumentation } from '@velox/otel';
 *
 * registerInstrumentations({ instrumentations: [new VeloxInstrumentation()] });
 * // or: new NodeSDK({ instrumentations: [new VeloxInstrumentation()] }).start();
 * ```
 */
export class VeloxInstrumentation extends InstrumentationBase<VeloxInstrumentationConfig> {
  constructor(config: VeloxInstrumentationConfig = {}) {
    checkConfig(config);
    super(NAME, VERSION, config);
  }

  /** Nothing to patch: the spans come from core's diagnostics channels. */
  protected init(): [] {
    return [];
  }

  /** Checks and applies new options (they take effect with the next request). */
  override setConfig(config: VeloxInstrumentationConfig = {}): void {
    checkConfig(config);
    super.setConfig(config);
  }

  /** Subscribes to core's channels: every request of every Velox server is traced from now on. */
  override enable(): void {
    super.enable();
    const state = stateOf(this);
    if (state.listeners) return;
    if (state.draining) {
      diagnostics.unsubscribe(channelNames.responseFinish, state.draining);
      state.draining = undefined;
    }
    if (state.spillDraining) {
      diagnostics.unsubscribe(channelNames.bodySpillClose, state.spillDraining);
      state.spillDraining = undefined;
    }
    const spans = new WeakMap<Request, Traced>();
    state.listeners = [
      [channelNames.requestStart, (m) => this.#start(m as RequestStartMessage, spans)],
      [channelNames.requestError, (m) => this.#error(m as RequestErrorMessage, spans)],
      [channelNames.websocketUpgrade, (m) => this.#upgrade(m as WebSocketUpgradeMessage, spans)],
      [channelNames.responseFinish, (m) => this.#finish(m as ResponseFinishMessage, spans)],
      [channelNames.bodySpillOpen, (m) => this.#spillOpen(m as BodySpillMessage)],
      [channelNames.bodySpillWrite, (m) => stateOf(this).spilled?.add((m as BodySpillMessage).bytes)],
      [channelNames.bodySpillClose, (m) => this.#spillClose(m as BodySpillMessage)],
    ];
    for (const [name, listener] of state.listeners) diagnostics.subscribe(name, listener);
  }

  /** Unsubscribes: requests that start from now on are not traced (those in progress still end their spans). */
  override disable(): void {
    super.disable();
    const state = stateOf(this);
    if (!state.listeners) return;
    // Requests in progress keep the finish listener until the last one ends its span.
    for (const [name, listener] of state.listeners) {
      if (name === channelNames.responseFinish && state.inProgress > 0) state.draining = listener;
      else if (name === channelNames.bodySpillClose && state.spillsOpen > 0) state.spillDraining = listener;
      else diagnostics.unsubscribe(name, listener);
    }
    state.listeners = undefined;
  }

  protected override _updateMetricInstruments(): void {
    const state = stateOf(this);
    state.duration = this.meter.createHistogram(METRIC_HTTP_SERVER_REQUEST_DURATION, {
      description: 'Duration of HTTP server requests.',
      unit: 's',
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    state.active = this.meter.createUpDownCounter(METRIC_HTTP_SERVER_ACTIVE_REQUESTS, {
      description: 'Number of active HTTP server requests.',
      unit: '{request}',
      valueType: ValueType.INT,
    });
    state.spilled = this.meter.createCounter(METRIC_VELOX_BODY_SPILLED, {
      description: 'Bytes of request bodies written to temporary files (past bodyBufferSize while the consumer was paused).',
      unit: 'By',
      valueType: ValueType.INT,
    });
    state.spillFiles = this.meter.createUpDownCounter(METRIC_VELOX_BODY_SPILL_FILES, {
      description: 'Request-body temporary files open.',
      unit: '{file}',
      valueType: ValueType.INT,
    });
  }

  #spillOpen({ req }: BodySpillMessage): void {
    const state = stateOf(this);
    if (state.spilling.has(req)) return;
    state.spilling.add(req);
    state.spillsOpen++;
    state.spillFiles?.add(1);
  }

  #spillClose({ req }: BodySpillMessage): void {
    const state = stateOf(this);
    // Only a file whose opening was counted (a body opens one file at a time).
    if (!state.spilling.delete(req)) return;
    state.spillFiles?.add(-1);
    if (--state.spillsOpen === 0 && state.spillDraining) {
      diagnostics.unsubscribe(channelNames.bodySpillClose, state.spillDraining);
      state.spillDraining = undefined;
    }
  }

  #start(message: RequestStartMessage, spans: WeakMap<Request, Traced>): void {
    const { req, route } = message;
    const config = this.getConfig();
    if (config.ignoreRequest && this.#safely(() => config.ignoreRequest!(req), 'ignoreRequest')) return;
    // Everything is read now: once a handler answers synchronously, uWS's request is gone.
    const raw = req.method;
    const method = KNOWN_METHODS.has(raw) ? raw : '_OTHER';
    const scheme = req.protocol;
    const url = req.originalUrl;
    const q = url.indexOf('?');
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_PATH]: q < 0 ? url : url.slice(0, q),
      [ATTR_URL_SCHEME]: scheme,
      [ATTR_NETWORK_PROTOCOL_VERSION]: '1.1',
      [ATTR_CLIENT_ADDRESS]: req.ip,
      [ATTR_NETWORK_PEER_ADDRESS]: req.socketAddress,
    };
    if (method === '_OTHER') attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = raw;
    if (q >= 0 && config.captureQuery !== false) attributes[ATTR_URL_QUERY] = url.slice(q + 1);
    const host = req.hostname;
    if (host) {
      attributes[ATTR_SERVER_ADDRESS] = host;
      attributes[ATTR_SERVER_PORT] = portOf(req, scheme);
    }
    const agent = req.get('user-agent');
    if (agent !== undefined) attributes[ATTR_USER_AGENT_ORIGINAL] = agent;
    if (route !== undefined) attributes[ATTR_HTTP_ROUTE] = route;
    const parent = propagation.extract(ROOT_CONTEXT, req, headerGetter);
    const span = this.tracer.startSpan(route === undefined ? method : `${method} ${route}`, { kind: SpanKind.SERVER, attributes }, parent);
    const active: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_SCHEME]: scheme };
    const metric: Attributes = { ...active, [ATTR_NETWORK_PROTOCOL_VERSION]: '1.1' };
    if (route !== undefined) metric[ATTR_HTTP_ROUTE] = route;
    spans.set(req, { span, started: performance.now(), metric, active, error: undefined, upgraded: false });
    const state = stateOf(this);
    state.inProgress++;
    state.active?.add(1, active);
    if (config.requestHook) this.#safely(() => config.requestHook!(span, req), 'requestHook');
    const within = trace.setSpan(parent, span);
    message.scope((run) => context.with(within, run));
  }

  #error({ req, error }: RequestErrorMessage, spans: WeakMap<Request, Traced>): void {
    const traced = spans.get(req);
    if (!traced) return;
    traced.error = error;
    traced.span.recordException(error instanceof Error ? error : String(error));
  }

  #upgrade({ req }: WebSocketUpgradeMessage, spans: WeakMap<Request, Traced>): void {
    const traced = spans.get(req);
    if (!traced) return;
    traced.upgraded = true;
    traced.span.addEvent('websocket.upgrade');
  }

  #finish({ req, res, aborted }: ResponseFinishMessage, spans: WeakMap<Request, Traced>): void {
    const traced = spans.get(req);
    if (!traced) return;
    spans.delete(req);
    const { span, metric } = traced;
    const seconds = (performance.now() - traced.started) / 1000;
    const status = traced.upgraded ? 101 : res.statusCode;
    let errorType: string | undefined;
    if (aborted) {
      errorType = 'aborted';
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'The connection ended before the response was sent' });
    } else {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      metric[ATTR_HTTP_RESPONSE_STATUS_CODE] = status;
      // Server spans: a 4xx is the client's doing, so only 5xx marks the span as failed.
      if (status >= 500) {
        errorType = errorTypeOf(traced.error) ?? String(status);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    if (errorType !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, errorType);
      metric[ATTR_ERROR_TYPE] = errorType;
    }
    const config = this.getConfig();
    if (config.responseHook) this.#safely(() => config.responseHook!(span, req, res), 'responseHook');
    span.end();
    const state = stateOf(this);
    state.duration?.record(seconds, metric);
    state.active?.add(-1, traced.active);
    if (--state.inProgress === 0 && state.draining) {
      diagnostics.unsubscribe(channelNames.responseFinish, state.draining);
      state.draining = undefined;
    }
  }

  /** Runs a user hook; what it throws is logged through OpenTelemetry's diag, never into the request. */
  #safely<T>(fn: () => T, name: string): T | undefined {
    try {
      return fn();
    } catch (err) {
      this._diag.error(`${name} threw`, err);
      return undefined;
    }
  }
}

/** `server.port` as the conventions want it: from the Host header, else the scheme's default. */
function portOf(req: Request, scheme: string): number {
  const host = req.get('host') ?? '';
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', end);
  const port = colon >= 0 ? Number(host.slice(colon + 1)) : Number.NaN;
  return Number.isInteger(port) && port > 0 ? port : scheme === 'https' ? 443 : 80;
}

/** `error.type` of an exception: its string `code` (VELOX_ERR_…, ECONNRESET) or else its class name. */
function errorTypeOf(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  const name = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name !== '' ? name : '_OTHER';
}

function checkConfig(config: VeloxInstrumentationConfig): void {
  if (!config || typeof config !== 'object') throw invalidOption('new VeloxInstrumentation() takes an options object, e.g. { ignoreRequest: (req) => req.path === "/healthz" }');
  for (const name of ['ignoreRequest', 'requestHook', 'responseHook'] as const) {
    if (config[name] !== undefined && typeof config[name] !== 'function') throw invalidOption(`${name} must be a function; got ${typeof config[name]}`);
  }
  if (config.captureQuery !== undefined && typeof config.captureQuery !== 'boolean') {
    throw invalidOption(`captureQuery must be true or false; got ${String(config.captureQuery)}`);
  }
}
