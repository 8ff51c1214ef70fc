/**
 * The options of `cors()`, checked once when the factory is called and turned into the settings
 * every request reads: exact origins in a Map to their prepared Access-Control-Allow-Origin
 * header, RegExps in an array, header values joined and prepared.
 */
import { PreparedHeader, type Request } from '@velox/core';
import { invalidOption } from './errors.ts';
import { checkOrigin, checkPattern, describe } from './origin.ts';

/**
 * An origin setting: `'*'` (any origin), `true` (reflect the request's origin), `false` (none),
 * an origin string (`'https://app.example.com'`, or `'null'` for sandboxed documents), a RegExp
 * tested against the request's origin, or an array of strings and RegExps.
 *
 * @example
 * ```ts
 * const origin: StaticOrigin = ['https://app.example.com', /^https:\/\/[a-z0-9-]+\.trusted\.example$/];
 * ```
 */
export type StaticOrigin = boolean | string | RegExp | ReadonlyArray<string | RegExp>;

/**
 * What an origin function returns (or resolves to) for one request: a {@link StaticOrigin} applied
 * to the request's origin; `null` and `undefined` count as `false`.
 *
 * @example
 * ```ts
 * const result: OriginResult = tenant ? tenant.origins : false;
 * ```
 */
export type OriginResult = StaticOrigin | null | undefined;

/**
 * Decides per request: called with the request's Origin header (only when there is one and it is
 * a well-formed origin or `null`) and the request. May be async. A throw or a rejection goes to
 * the server's error path (500).
 *
 * @example
 * ```ts
 * const origin: OriginFunction = async (origin, req) => (await tenants.byOrigin(origin)) !== undefined;
 * app.use(cors({ origin, credentials: true }));
 * ```
 */
export type OriginFunction = (origin: string, req: Request<unknown, unknown>) => OriginResult | PromiseLike<OriginResult>;

/**
 * Options of {@link cors}. Names as in the `cors` package and `@fastify/cors`.
 *
 * @example
 * ```ts
 * const options: CorsOptions = { origin: 'https://app.example.com', credentials: true, maxAge: 600 };
 * app.use(cors(options));
 * ```
 */
export interface CorsOptions {
  /** Which origins may read the answers. Default: `'*'`. */
  origin?: StaticOrigin | OriginFunction;
  /** Access-Control-Allow-Methods on preflights, a list or a comma-separated string. Default: `'GET,HEAD,PUT,PATCH,POST,DELETE'`. */
  methods?: string | readonly string[];
  /**
   * Access-Control-Allow-Headers on preflights. Default: none given, which reflects the
   * preflight's Access-Control-Request-Headers (and adds `Vary: Access-Control-Request-Headers`).
   * An empty list allows none and reflects nothing.
   */
  allowedHeaders?: string | readonly string[];
  /** Alias of `allowedHeaders`, as in the `cors` package. Give one or the other. */
  headers?: string | readonly string[];
  /** Access-Control-Expose-Headers on answers to allowed origins. Default: none. */
  exposedHeaders?: string | readonly string[];
  /** Send `Access-Control-Allow-Credentials: true` (cookies, HTTP auth). Default: `false`. */
  credentials?: boolean;
  /** Access-Control-Max-Age on preflights, in seconds. Default: none (browsers then cache a preflight for 5 s). */
  maxAge?: number;
  /** Hand preflights on to the next middleware or route (with their CORS headers set) instead of answering them. Default: `false`. */
  preflightContinue?: boolean;
  /** The status of a preflight answer: a 2xx. Default: `204`. */
  optionsSuccessStatus?: number;
  /**
   * Answer a malformed preflight (an Access-Control-Request-Method that is not a method name, an
   * Access-Control-Request-Headers to reflect that is not a list of names or is over 4,096
   * characters) with 400 `VELOX_ERR_CORS_BAD_PREFLIGHT`, through the error path. With `false`, it
   * is treated as a preflight from a disallowed origin (passed on without CORS headers). Default: `true`.
   */
  strictPreflight?: boolean;
  /** Cache-Control on the preflight answers the middleware sends: seconds (`max-age=<n>`) or a whole value. Default: none. */
  cacheControl?: number | string;
}

/** @internal What a request needs, computed once per `cors()` call. */
export interface Settings {
  /** `origin: false`: the middleware does nothing. */
  disabled: boolean;
  /** `'*'` without credentials: the same answer for every origin, no Vary. */
  any: boolean;
  /** `true`, or `'*'` with credentials: any well-formed origin but `null` is reflected. */
  reflect: boolean;
  /** Exact origins, each to its prepared Access-Control-Allow-Origin header. */
  exact: Map<string, PreparedHeader>;
  patterns: RegExp[];
  originFn: OriginFunction | undefined;
  credentials: boolean;
  exposed: PreparedHeader | undefined;
  methods: PreparedHeader | undefined;
  /** Configured Access-Control-Allow-Headers; undefined with `reflectHeaders` or an empty list. */
  allowHeaders: PreparedHeader | undefined;
  reflectHeaders: boolean;
  maxAge: PreparedHeader | undefined;
  cacheControl: PreparedHeader | undefined;
  preflightContinue: boolean;
  status: number;
  strict: boolean;
}

/** @internal The default `methods`, as the `cors` package's. */
export const DEFAULT_METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const KNOWN = new Set([
  'origin',
  'methods',
  'allowedHeaders',
  'headers',
  'exposedHeaders',
  'credentials',
  'maxAge',
  'preflightContinue',
  'optionsSuccessStatus',
  'strictPreflight',
  'cacheControl',
]);

/** Options of `@fastify/cors` that have no place here, and what to write instead. */
const FASTIFY_ONLY: Record<string, string> = {
  hook: 'cors() is a middleware: it runs where you use() it, before the route (drop hook)',
  delegator: 'pass a function as origin: (origin, req) => … is called per request (drop delegator)',
  preflight: 'to let your own routes answer preflights, write preflightContinue: true',
  hideOptionsRoute: 'cors() adds no OPTIONS route (drop hideOptionsRoute)',
  logLevel: 'cors() adds no route to log (drop logLevel)',
};

/** A list option as a list of tokens: an array, or a comma-separated string. */
function tokens(name: string, value: unknown, credentials: boolean): string[] {
  let list: unknown[];
  if (typeof value === 'string') list = value.trim() === '' ? [] : value.split(',').map((part) => part.trim());
  else if (Array.isArray(value)) list = value;
  else throw invalidOption(`${name} must be an array of names or a comma-separated string, e.g. ['Content-Type', 'Authorization']; got ${describe(value)}`);
  for (const item of list) {
    if (typeof item !== 'string' || !TOKEN.test(item)) {
      throw invalidOption(`${name}: ${describe(item)} is not a ${name === 'methods' ? 'method' : 'header'} name (letters, digits and !#$%&'*+-.^_\`|~, no spaces)`);
    }
    if (item === '*' && credentials) {
      throw invalidOption(`${name}: with credentials: true, browsers read '*' as a name, not as "any"; list the names instead`);
    }
  }
  return list as string[];
}

function prepared(name: string, list: string[]): PreparedHeader | undefined {
  return list.length === 0 ? undefined : new PreparedHeader(name, list.join(','));
}

function flag(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidOption(`${name} must be true or false; got ${describe(value)}`);
  return value;
}

/** @internal Checks the options and computes what every request reads. */
export function settingsOf(options: CorsOptions | undefined): Settings {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOption(`cors() takes an options object, e.g. cors({ origin: 'https://app.example.com' }); got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (KNOWN.has(key)) continue;
    const hint = FASTIFY_ONLY[key];
    throw invalidOption(hint ? `cors() has no ${key} option: ${hint}` : `cors() has no ${key} option; the options are ${[...KNOWN].join(', ')}`);
  }

  const credentials = flag('credentials', options.credentials, false);
  const settings: Settings = {
    disabled: false,
    any: false,
    reflect: false,
    exact: new Map(),
    patterns: [],
    originFn: undefined,
    credentials,
    exposed: undefined,
    methods: undefined,
    allowHeaders: undefined,
    reflectHeaders: false,
    maxAge: undefined,
    cacheControl: undefined,
    preflightContinue: flag('preflightContinue', options.preflightContinue, false),
    status: 204,
    strict: flag('strictPreflight', options.strictPreflight, true),
  };

  const origin = options.origin === undefined ? '*' : options.origin;
  const addOrigin = (item: unknown, where: string) => {
    if (item instanceof RegExp) settings.patterns.push(checkPattern(item, where));
    else {
      const text = checkOrigin(item, where);
      settings.exact.set(text, new PreparedHeader('Access-Control-Allow-Origin', text));
    }
  };
  if (origin === '*') {
    if (credentials) settings.reflect = true;
    else settings.any = true;
  } else if (origin === true) settings.reflect = true;
  else if (origin === false) settings.disabled = true;
  else if (typeof origin === 'function') settings.originFn = origin;
  else if (Array.isArray(origin)) {
    for (let i = 0; i < origin.length; i++) addOrigin(origin[i], `origin[${i}]`);
  }
  else if (typeof origin === 'string' || origin instanceof RegExp) addOrigin(origin, 'origin');
  else {
    throw invalidOption(
      `origin must be '*', true, false, an origin string, a RegExp, an array of them, or a function (origin, req) => …; got ${describe(origin)}`,
    );
  }

  settings.methods = prepared('Access-Control-Allow-Methods', tokens('methods', options.methods ?? DEFAULT_METHODS, credentials));

  if (options.allowedHeaders !== undefined && options.headers !== undefined) {
    throw invalidOption('give allowedHeaders or its alias headers, not both');
  }
  const allowed = options.allowedHeaders ?? options.headers;
  if (allowed === undefined) settings.reflectHeaders = true;
  else settings.allowHeaders = prepared('Access-Control-Allow-Headers', tokens(options.allowedHeaders !== undefined ? 'allowedHeaders' : 'headers', allowed, credentials));

  if (options.exposedHeaders !== undefined) {
    settings.exposed = prepared('Access-Control-Expose-Headers', tokens('exposedHeaders', options.exposedHeaders, credentials));
  }

  const maxAge = options.maxAge;
  if (maxAge !== undefined) {
    if (typeof maxAge !== 'number' || !Number.isSafeInteger(maxAge) || maxAge < 0) {
      throw invalidOption(`maxAge must be a whole number of seconds, 0 or more, e.g. maxAge: 600; got ${describe(maxAge)}`);
    }
    settings.maxAge = new PreparedHeader('Access-Control-Max-Age', String(maxAge));
  }

  const status = options.optionsSuccessStatus;
  if (status !== undefined) {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 299) {
      throw invalidOption(`optionsSuccessStatus must be a 2xx status, e.g. 204 (the default) or 200 for old browsers; got ${describe(status)}`);
    }
    settings.status = status;
  }

  const cacheControl = options.cacheControl;
  if (cacheControl !== undefined) {
    let header: PreparedHeader | undefined;
    if (typeof cacheControl === 'number' && Number.isSafeInteger(cacheControl) && cacheControl >= 0) header = new PreparedHeader('Cache-Control', `max-age=${cacheControl}`);
    else if (typeof cacheControl === 'string' && cacheControl.trim() !== '') {
      try {
        header = new PreparedHeader('Cache-Control', cacheControl);
      } catch {} // CR, LF or another control character: core's check refuses it
    }
    if (header === undefined) {
      throw invalidOption(`cacheControl must be a number of seconds (max-age) or a Cache-Control value, e.g. 'public, max-age=600'; got ${describe(cacheControl)}`);
    }
    settings.cacheControl = header;
  }

  return settings;
}
