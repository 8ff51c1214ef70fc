/**
 * The request log: one structured line per finished request, `req.log` (a child logger carrying
 * the request id) and errors with their code and request id. It subscribes to core's own
 * diagnostics channels (diagnostics.ts) when a server is made with a pino-style logger, and
 * unsubscribes when the server closes: a server without it adds nothing to the request path.
 */
import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { channelNames, type RequestErrorMessage, type RequestStartMessage } from './diagnostics.ts';
import { Request } from './request.ts';
import type { Server } from './server.ts';
import { kConfig } from './symbols.ts';
import type { Logger } from './types.ts';

/**
 * The logger `req.log` is, and what a request-logging `logger` option must be: pino's shape
 * (bunyan and other pino-compatible loggers fit too). Each method takes an optional object of
 * fields first, then a message.
 * @example
 * ```ts
 * app.get('/users/:id', (req, res) => {
 *   req.log.info({ user: req.params.id }, 'looking up');
 *   res.send('ok');
 * });
 * ```
 */
export interface RequestLogger {
  fatal(...args: unknown[]): void;
  error(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  info(...args: unknown[]): void;
  debug(...args: unknown[]): void;
  trace(...args: unknown[]): void;
  /** A logger that adds `bindings` to every line. */
  child(bindings: Record<string, unknown>): RequestLogger;
}

declare module '@velox/core' {
  interface Request {
    /**
     * The request's logger. With request logging on (`new Server({ logger: true })` or a pino
     * logger), a child of the server's logger whose lines carry `reqId`; else the server's logger
     * (`console` unless told otherwise; `logger: false` gives one that drops everything).
     */
    readonly log: RequestLogger;
    /** The request id with request logging on (from `requestIdHeader` or `genReqId`), else undefined. */
    readonly id: string | undefined;
  }
}

/** The request-log settings `parseOptions` made (options.ts). */
export interface RequestLogConfig {
  logger: RequestLogger;
  genReqId: (req: Request) => string;
  /** Lower-cased; undefined when no header is read or echoed. */
  header: string | undefined;
  echo: boolean;
  redact: Set<string>;
}

const kLog: unique symbol = Symbol('velox.log');
const kId: unique symbol = Symbol('velox.requestId');
type Logged = Request & { [kLog]?: RequestLogger; [kId]?: string };

/** A request id from a header is used as is when it looks like one; else a new one is made. */
const SAFE_ID = /^[\w.:@/+=-]{1,128}$/;

/** Loggers standing in for `req.log` on servers without request logging, by server. */
const fallbacks = new WeakMap<Server, RequestLogger>();

Object.defineProperty(Request.prototype, 'log', {
  configurable: true,
  enumerable: false,
  get(this: Logged): RequestLogger {
    return this[kLog] ?? fallbackFor(this.server);
  },
});
Object.defineProperty(Request.prototype, 'id', {
  configurable: true,
  enumerable: false,
  get(this: Logged): string | undefined {
    return this[kId];
  },
});

/** Whether a `logger` option asks for request logging: pino and its like have `child()`. */
export function logsRequests(logger: unknown): logger is RequestLogger {
  return !!logger && typeof (logger as RequestLogger).child === 'function' && typeof (logger as RequestLogger).info === 'function';
}

/** A new request id: a random UUID. */
export function defaultReqId(): string {
  return randomUUID();
}

/**
 * Starts logging `server`'s requests; returns what stops it. Per request, at its start: the id,
 * the child logger, the echoed header; at its end (the response's `close`), the line.
 */
export function attachRequestLog(server: Server, config: RequestLogConfig): () => void {
  const { logger, genReqId, header, echo, redact } = config;
  const onStart = (message: unknown): void => {
    const { req, res, route } = message as RequestStartMessage;
    if (req.server !== server) return;
    const id = incomingId(req, header) ?? safeGen(genReqId, req, logger);
    const log = logger.child({ reqId: id });
    (req as Logged)[kId] = id;
    (req as Logged)[kLog] = log;
    if (echo && header !== undefined) res.set(header, id);
    // What the line needs from the request is read now: uWS's request is gone once a handler
    // answers synchronously.
    const line = {
      method: req.method,
      url: req.originalUrl,
      route,
      remoteAddress: req.socketAddress,
      headers: headersFor(req, redact),
    };
    const started = performance.now();
    res.once('close', () => {
      const length = res.get('content-length');
      const fields = {
        req: line,
        res: { statusCode: res.statusCode, bytes: length === undefined ? undefined : Number(length) },
        responseTime: Math.round((performance.now() - started) * 1000) / 1000,
      };
      if (res.aborted && !res.finished) log.info(fields, 'request aborted');
      else log.info(fields, 'request completed');
    });
  };
  const onError = (message: unknown): void => {
    const { req, error } = message as RequestErrorMessage;
    if (req.server !== server) return;
    const err = error as { status?: unknown; statusCode?: unknown; code?: unknown; message?: unknown } | null | undefined;
    const raw = Number(err?.status ?? err?.statusCode);
    const status = Number.isInteger(raw) && raw >= 400 && raw <= 599 ? raw : 500;
    const fields = { err: error, code: typeof err?.code === 'string' ? err.code : undefined, statusCode: status };
    // As Fastify does: a client's mistake is information, a server's failure an error.
    const log = req.log;
    if (status >= 500) log.error(fields, String(err?.message ?? error));
    else log.info(fields, String(err?.message ?? error));
  };
  diagnostics.subscribe(channelNames.requestStart, onStart);
  diagnostics.subscribe(channelNames.requestError, onError);
  return () => {
    diagnostics.unsubscribe(channelNames.requestStart, onStart);
    diagnostics.unsubscribe(channelNames.requestError, onError);
  };
}

/** The id the client (through a trusted proxy) sent, when trustProxy trusts the peer and it looks like an id. */
function incomingId(req: Request, header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const trust = req.server[kConfig].trust;
  if (trust === undefined) return undefined;
  const value = req.get(header);
  if (value === undefined || !SAFE_ID.test(value)) return undefined;
  return trust(req.socketAddress, 0) ? value : undefined;
}

/** `genReqId(req)`, or a UUID when it throws or gives no string (logged: a request must not fail for its id). */
function safeGen(genReqId: (req: Request) => string, req: Request, logger: RequestLogger): string {
  try {
    const id = genReqId(req);
    if (typeof id === 'string' && id !== '') return id;
    logger.error({ got: typeof id }, 'genReqId must return a non-empty string; a UUID is used instead');
  } catch (err) {
    logger.error({ err }, 'genReqId threw; a UUID is used instead');
  }
  return randomUUID();
}

/** The request headers, with the values of the `redact` ones replaced. */
function headersFor(req: Request, redact: Set<string>): Record<string, unknown> {
  const headers: Record<string, unknown> = { ...req.headers };
  for (const name of redact) if (headers[name] !== undefined) headers[name] = '[Redacted]';
  return headers;
}

/** What `req.log` is on a server without request logging: its logger, completed to pino's shape. */
function fallbackFor(server: Server): RequestLogger {
  let log = fallbacks.get(server);
  if (log) return log;
  log = completed(server.logger);
  fallbacks.set(server, log);
  return log;
}

function completed(logger: Logger | undefined): RequestLogger {
  if (logsRequests(logger)) return logger;
  const drop = () => {};
  const call = (name: string, or: ((...args: unknown[]) => void) | undefined) => {
    const fn = (logger as unknown as Record<string, unknown> | undefined)?.[name];
    return typeof fn === 'function' ? (fn as (...args: unknown[]) => void).bind(logger) : (or ?? drop);
  };
  const error = call('error', undefined);
  const info = call('info', undefined);
  const self: RequestLogger = {
    fatal: call('fatal', error),
    error,
    warn: call('warn', error),
    info,
    debug: call('debug', drop),
    trace: drop,
    child: () => self,
  };
  return self;
}
