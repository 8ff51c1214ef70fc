/**
 * The server's options: their types, and how `new Server(options)` checks them and fills in the
 * defaults (a bad option throws at start-up, saying what to write instead).
 */
import proxyAddr from 'proxy-addr';
import { invalidOption } from './errors.ts';
import type { TlsOptions } from './listen.ts';
import { defaultLogger } from './pino.ts';
import { defaultReqId, logsRequests, type RequestLogConfig, type RequestLogger } from './request-log.ts';
import type { Request } from './request.ts';
import type { Logger, Middleware } from './types.ts';

/** Options of {@link Server}. */
export interface ServerOptions {
  /** Largest body `req.text()`, `json()`, `buffer()` and `urlencoded()` accept, in bytes; more answers 413. Default: 1 MiB. */
  maxBodyLength?: number;
  /**
   * Most bytes of a request body held in memory while its consumer is paused (nginx's
   * `client_body_buffer_size`): what uWS reads beyond it meanwhile is appended to a temporary
   * file in `bodyTempDir` and read back, in order, as the consumer asks. A consumer that keeps
   * up never touches the disk. `Infinity` holds everything in memory (no file, ever). Default:
   * 8 MiB (8388608).
   */
  bodyBufferSize?: number;
  /**
   * The directory of those temporary files (nginx's `client_body_temp_path`). Default:
   * `os.tmpdir()`, read each time a file is made (so `TMPDIR` is honoured). Files are made with
   * mode 0600 under a random name, which is removed at once (the open descriptor holds the
   * data); `listen()` removes any a crashed process left.
   */
  bodyTempDir?: string;
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
  /**
   * Where errors are logged, and whether requests are: `true` for a default pino logger (JSON
   * lines on stdout; pino must be installed), a pino logger (or any logger with pino's methods
   * and `child()`), any `{ error, warn }` logger such as `console` for errors only, or `false`
   * for nowhere. With `true` or a pino-style logger, every finished request is logged in one
   * line and `req.log` carries the request id (see `logRequests`). Default: `console`.
   */
  logger?: Logger | RequestLogger | boolean;
  /**
   * Log one line per finished request. Default: `true` when `logger` is `true` or a pino-style
   * logger (has `child()`), else `false`; `true` with another logger throws.
   */
  logRequests?: boolean;
  /** Makes the id of a request that did not bring a trusted one (request logging only). Default: a random UUID. */
  genReqId?: (req: Request) => string;
  /**
   * The header a request id is read from, when `trustProxy` trusts the peer that sent it, and
   * echoed in (with `echoRequestId`); `false` for neither. Default: `'x-request-id'`.
   */
  requestIdHeader?: string | false;
  /** Send the request id back in the `requestIdHeader` response header (request logging only). Default: `false`. */
  echoRequestId?: boolean;
  /**
   * Request headers whose values the request log replaces with `[Redacted]` (any case). Default:
   * `['authorization', 'proxy-authorization', 'cookie']`; `[]` logs them all.
   */
  redactHeaders?: string[];
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
  /**
   * Say in each response whether the connection stays open, as Node's `http` does: `Connection:
   * keep-alive` and `Keep-Alive: timeout=<n>` (this many seconds) while it does, `Connection:
   * close` on the answer after which uWS closes it (the request asked to close, or the server is
   * closing). A response whose app set `Connection` keeps the app's. HTTP/1.1 needs neither
   * header (keep-alive is its default), so Velox sends none unless asked; `@velox/express`'s
   * `app.listen()` sets 5, Node's figure, so responses read as Express's do. uWS closes an idle
   * connection after 10 s whatever this says. Default: `false`.
   */
  keepAliveHeader?: number | false;
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
  /** `keepAliveHeader` (false unless given). */
  readonly keepAliveHeader: number | false;
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

/** The server's options as the lifecycle applies them. */
export interface Config {
  maxBodyLength: number;
  bodyBufferSize: number;
  /** undefined: `os.tmpdir()` when a file is made. */
  bodyTempDir: string | undefined;
  strict: boolean;
  secrets: string[];
  trust: ((addr: string, hop: number) => boolean) | undefined;
  /** The trustProxy option as given, for `req.app.get('trust proxy')`. */
  trustProxy: ServerOptions['trustProxy'] | false;
  parseCookies: boolean;
  tls: boolean;
  exposeErrors: boolean;
  keepAliveHeader: number | false;
  logger: Logger | undefined;
  /** Request logging (request-log.ts); undefined when off. */
  requestLog: RequestLogConfig | undefined;
}

/** Checks the options and fills in the defaults. */
export function parseOptions(options: ServerOptions): Config {
  const maxBodyLength = options.maxBodyLength ?? 1024 * 1024;
  if (!(Number.isInteger(maxBodyLength) && maxBodyLength >= 0)) {
    throw invalidOption(`maxBodyLength must be a whole number of bytes, e.g. 1048576 for 1 MiB; got ${options.maxBodyLength}`);
  }
  const bodyBufferSize = options.bodyBufferSize ?? 8 * 1024 * 1024;
  if (!((Number.isInteger(bodyBufferSize) && bodyBufferSize >= 0) || bodyBufferSize === Infinity)) {
    throw invalidOption(`bodyBufferSize must be a whole number of bytes (8388608 for 8 MiB), or Infinity never to use a file; got ${String(options.bodyBufferSize)}`);
  }
  const bodyTempDir = options.bodyTempDir;
  if (bodyTempDir !== undefined && !(typeof bodyTempDir === 'string' && bodyTempDir !== '' && !bodyTempDir.includes('\0'))) {
    throw invalidOption(`bodyTempDir must be a directory path such as '/var/tmp/velox', or left out for os.tmpdir(); got ${JSON.stringify(options.bodyTempDir)}`);
  }
  const strict = options.strict ?? false;
  if (typeof strict !== 'boolean') throw invalidOption(`strict must be true or false; got ${String(options.strict)}`);
  const secrets = options.cookieSecret === undefined ? [] : ([] as string[]).concat(options.cookieSecret);
  if (secrets.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw invalidOption('cookieSecret must be a non-empty string or a list of them (first signs, all verify)');
  }
  const keepAliveHeader = options.keepAliveHeader ?? false;
  if (keepAliveHeader !== false && !(Number.isInteger(keepAliveHeader) && keepAliveHeader > 0)) {
    throw invalidOption(`keepAliveHeader must be a whole number of seconds (5 says Keep-Alive: timeout=5) or false; got ${String(options.keepAliveHeader)}`);
  }
  const { logger, requestLog } = parseLogging(options);
  return {
    maxBodyLength,
    bodyBufferSize,
    bodyTempDir,
    strict,
    secrets,
    trust: compileTrust(options.trustProxy),
    trustProxy: options.trustProxy ?? false,
    parseCookies: options.parseCookies ?? true,
    tls: options.tls !== undefined,
    exposeErrors: options.exposeErrors ?? false,
    keepAliveHeader,
    logger,
    requestLog,
  };
}

const REDACTED = ['authorization', 'proxy-authorization', 'cookie'];

/** The logger, and the request log settings when requests are logged. */
function parseLogging(options: ServerOptions): Pick<Config, 'logger' | 'requestLog'> {
  const given = options.logger;
  if (given !== undefined && typeof given !== 'boolean' && !(given && typeof given === 'object' && typeof given.error === 'function')) {
    throw invalidOption('logger must be true (pino), false, or a logger with error() and warn() (a pino logger, console)');
  }
  const redactHeaders = options.redactHeaders ?? REDACTED;
  if (!Array.isArray(redactHeaders) || redactHeaders.some((h) => typeof h !== 'string')) {
    throw invalidOption("redactHeaders must be a list of header names, e.g. ['authorization', 'cookie']");
  }
  const redact = redactHeaders.map((h) => h.toLowerCase());
  const logger = given === false ? undefined : given === true ? defaultLogger(redact) : (given ?? console);
  const logRequests = options.logRequests ?? (given === true || logsRequests(logger));
  if (typeof logRequests !== 'boolean') throw invalidOption(`logRequests must be true or false; got ${String(options.logRequests)}`);
  if (logRequests && !logsRequests(logger)) {
    throw invalidOption('logRequests needs a pino-style logger (with child()): logger: true, or logger: pino()');
  }
  const genReqId = options.genReqId ?? defaultReqId;
  if (typeof genReqId !== 'function') throw invalidOption('genReqId must be a function (req) => string');
  const header = options.requestIdHeader ?? 'x-request-id';
  if (header !== false && !(typeof header === 'string' && /^[!#$%&'*+.^`|~\w-]+$/.test(header))) {
    throw invalidOption(`requestIdHeader must be a header name such as 'x-request-id', or false; got ${String(options.requestIdHeader)}`);
  }
  const echo = options.echoRequestId ?? false;
  if (typeof echo !== 'boolean') throw invalidOption(`echoRequestId must be true or false; got ${String(options.echoRequestId)}`);
  if (echo && header === false) throw invalidOption('echoRequestId needs requestIdHeader (the header to send the id in)');
  return {
    logger,
    requestLog: logRequests
      ? { logger: logger as RequestLogger, genReqId, header: header === false ? undefined : header.toLowerCase(), echo, redact: new Set(redact) }
      : undefined,
  };
}

/** Compiles the trustProxy option into a function `(addr, hop) => trusted`. */
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
