/**
 * The options of rateLimit(), checked once when it is called (a bad one throws
 * VELOX_ERR_RATE_LIMIT_INVALID_OPTION saying what to write instead), and turned into the
 * settings every request reads.
 */
import type { Request } from '@velox/core';
import { invalidOption } from './errors.ts';
import type { HeadersMode } from './headers.ts';
import { MemoryStore } from './memory-store.ts';
import { isStore, type RateLimitStore } from './store.ts';

/**
 * Options of {@link rateLimit}. Every one has a default; see the README for each.
 * @example
 * ```ts
 * const options: RateLimitOptions = { limit: 100, windowMs: 60_000, headers: 'draft-8', onStoreError: 'deny' };
 * app.use('/api', rateLimit(options));
 * ```
 */
export interface RateLimitOptions {
  /** Requests allowed per window and key. A whole number ≥ 1. Default: 5 (express-rate-limit's). */
  limit?: number;
  /** `limit` under @fastify/rate-limit's (and express-rate-limit 6's) name. Give one of the two. */
  max?: number;
  /** The window, in milliseconds (a whole number ≥ 1). Default: 60000. */
  windowMs?: number;
  /** `windowMs` under @fastify/rate-limit's name: milliseconds only (not `'1 minute'`). Give one of the two. */
  timeWindow?: number;
  /**
   * How requests are counted. `'fixed-window'` (default): at most `limit` per window of each key,
   * the window starting at the key's first request. `'sliding-window'`: the current window's
   * count plus the previous window's, weighted by how much of it the last `windowMs` still covers
   * (two counters, no log of timestamps), which smooths the burst a fixed window allows at its edges.
   */
  algorithm?: 'fixed-window' | 'sliding-window';
  /**
   * The key a request is counted under: a string or a promise of one. A throw or rejection goes
   * through the error path (500 unless the error says otherwise). Default: the client address
   * (`req.ip`, so `trustProxy` applies), IPv6 grouped by `ipv6Subnet`.
   */
  keyGenerator?: (req: Request) => string | Promise<string>;
  /** With the default key: how many leading bits of an IPv6 address make the key (1 to 128), or `false` for the whole address. Default: 64. */
  ipv6Subnet?: number | false;
  /** Requests it returns (or resolves) true for are not counted and get no headers. Default: none. */
  skip?: (req: Request) => boolean | Promise<boolean>;
  /** Which headers report the limit: `'draft-8'`, `'draft-7'`, `'draft-6'`, `'legacy'` (X-RateLimit-*), or `false`. Default: `'legacy'` (express-rate-limit's). */
  headers?: HeadersMode;
  /** The policy's name: in draft-8 headers, and in RedisStore keys. Printable ASCII without `"` or `\`. Default: `"default"`. */
  identifier?: string;
  /** The status of a refused request (400 to 599). Default: 429. */
  statusCode?: number;
  /** The message of a refused request's error (the JSON body's `message`). Default: `'Too many requests, please try again later.'`. */
  message?: string;
  /** Where counts live. Default: a new {@link MemoryStore} for this limiter. */
  store?: RateLimitStore;
  /** While the store fails or does not answer: `'allow'` the request (logged once per outage) or `'deny'` it with 503. Default: `'allow'`. */
  onStoreError?: 'allow' | 'deny';
  /** Milliseconds any store call may take before it counts as a failure. Default: 500. */
  storeTimeout?: number;
  /** Take back the hit of a request whose answer is 400 or more, or that was cut. Default: false. */
  skipFailedRequests?: boolean;
  /** Take back the hit of a request whose answer is below 400. Default: false. */
  skipSuccessfulRequests?: boolean;
  /** Put `{ limit, used, remaining, resetTime, key }` on the request under this name (`'rateLimit'`: typed as `req.rateLimit`). Default: false (nothing set: no object per request). */
  requestPropertyName?: string | false;
}

/** @internal What a request needs, computed once per limiter. */
export interface Settings {
  limit: number;
  windowMs: number;
  sliding: boolean;
  keyGenerator: ((req: Request) => string | Promise<string>) | undefined;
  ipv6Subnet: number | false;
  skip: ((req: Request) => boolean | Promise<boolean>) | undefined;
  headers: HeadersMode;
  identifier: string;
  statusCode: number;
  message: string;
  store: RateLimitStore;
  allow: boolean;
  storeTimeout: number;
  skipFailed: boolean;
  skipSuccessful: boolean;
  property: string | undefined;
}

/** Options of express-rate-limit and @fastify/rate-limit that have another name or form here: what to write instead. */
const MOVED: Record<string, string> = {
  standardHeaders: "headers: 'draft-8' (or 'draft-7', 'draft-6')",
  legacyHeaders: "headers: 'legacy' (the default) or headers: false",
  enableDraftSpec: "headers: 'draft-6'",
  addHeaders: "headers: 'draft-8' | 'draft-7' | 'draft-6' | 'legacy' | false",
  addHeadersOnExceeding: "headers: 'draft-8' | 'draft-7' | 'draft-6' | 'legacy' | false",
  passOnStoreError: "onStoreError: 'allow'",
  skipOnError: "onStoreError: 'allow'",
  handler: "an error handler: app.addErrorHandler((err, req, res, next) => err.code === 'VELOX_ERR_RATE_LIMITED' ? res.status(429).json(…) : next(err))",
  errorResponseBuilder: "an error handler: app.addErrorHandler((err, req, res, next) => err.code === 'VELOX_ERR_RATE_LIMITED' ? res.status(429).json(…) : next(err))",
  allowList: 'skip: (req) => allowed.has(req.ip)',
  nameSpace: "store: new RedisStore({ url, prefix: 'rl:' })",
  redis: 'store: new RedisStore({ client: yourNodeRedisClient })',
  cache: 'store: new MemoryStore({ maxKeys: 100_000 })',
  requestWasSuccessful: 'skipFailedRequests / skipSuccessfulRequests, which count an answer below 400 as a success',
  onLimitReached: "an onError hook: app.addHook('onError', (err) => { if (err.code === 'VELOX_ERR_RATE_LIMITED') … })",
  onExceeded: "an onError hook: app.addHook('onError', (err) => { if (err.code === 'VELOX_ERR_RATE_LIMITED') … })",
  onExceeding: 'a middleware after rateLimit() (with requestPropertyName to read the counts)',
  global: "app.use(rateLimit(…)) for every route, app.get('/path', rateLimit(…), handler) for one",
  groupId: 'one rateLimit() used on several routes: they then count together',
  hook: 'the place of rateLimit() in the chain: app.use() runs it before the route',
};

/** Options with no equivalent here. */
const UNSUPPORTED = new Set(['continueExceeding', 'ban', 'onBanReach', 'exponentialBackoff', 'retryAfter', 'validate', 'logger']);

const KNOWN = new Set([
  'limit',
  'max',
  'windowMs',
  'timeWindow',
  'algorithm',
  'keyGenerator',
  'ipv6Subnet',
  'skip',
  'headers',
  'identifier',
  'statusCode',
  'message',
  'store',
  'onStoreError',
  'storeTimeout',
  'skipFailedRequests',
  'skipSuccessfulRequests',
  'requestPropertyName',
]);

const HEADER_MODES: readonly unknown[] = ['draft-8', 'draft-7', 'draft-6', 'legacy', false];
/** An sf-string's characters without the two that need escaping: printable ASCII but `"` and `\`. */
const IDENTIFIER = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;
const PROPERTY = /^[A-Za-z_$][\w$]*$/;

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeof value === 'function' ? 'a function' : String(value);
}

/** A whole number ≥ 1 under one of two names (`limit`/`max`, `windowMs`/`timeWindow`). */
function wholeNumber(options: RateLimitOptions, name: 'limit' | 'windowMs', alias: 'max' | 'timeWindow', fallback: number, unit: string): number {
  const value = options[name];
  const other = options[alias];
  if (value !== undefined && other !== undefined && value !== other) {
    throw invalidOption(`${name} and ${alias} are the same option and disagree (${shown(value)} and ${shown(other)}); give only ${name}`);
  }
  const given = value ?? other;
  if (given === undefined) return fallback;
  const which = value !== undefined ? name : alias;
  if (typeof given !== 'number' || !Number.isInteger(given) || given < 1) {
    const hint = typeof given === 'string' ? ` (a number, not a text such as '1 minute')` : '';
    throw invalidOption(`${which} must be a whole number of ${unit}, at least 1${hint}, e.g. ${which}: ${fallback}; got ${shown(given)}`);
  }
  return given;
}

function oneOf<T>(name: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw invalidOption(`${name} must be ${allowed.map(shown).join(', ')}; got ${shown(value)}`);
  return value as T;
}

function flag(name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidOption(`${name} must be true or false; got ${shown(value)}`);
  return value;
}

/** @internal */
export function settingsOf(options: RateLimitOptions | undefined): Settings {
  if (options === undefined) options = {};
  if (!options || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOption('rateLimit takes an options object, e.g. rateLimit({ limit: 100, windowMs: 60_000 })');
  }
  for (const name of Object.keys(options)) {
    if (KNOWN.has(name)) continue;
    if (MOVED[name] !== undefined) throw invalidOption(`rateLimit has no option ${name}: write ${MOVED[name]}`);
    if (UNSUPPORTED.has(name)) throw invalidOption(`rateLimit has no option ${name} (see the README's migration table for what it offers instead)`);
    throw invalidOption(`rateLimit has no option ${JSON.stringify(name)}; its options are ${[...KNOWN].join(', ')}`);
  }

  const limit = wholeNumber(options, 'limit', 'max', 5, 'requests');
  const windowMs = wholeNumber(options, 'windowMs', 'timeWindow', 60_000, 'milliseconds');
  const algorithm = oneOf('algorithm', options.algorithm, ['fixed-window', 'sliding-window'] as const, 'fixed-window');

  const keyGenerator = options.keyGenerator;
  if (keyGenerator !== undefined && typeof keyGenerator !== 'function') {
    throw invalidOption(`keyGenerator must be a function (req) => string | Promise<string>; got ${shown(keyGenerator)}`);
  }
  const ipv6Subnet = options.ipv6Subnet ?? 64;
  if (ipv6Subnet !== false && (typeof ipv6Subnet !== 'number' || !Number.isInteger(ipv6Subnet) || ipv6Subnet < 1 || ipv6Subnet > 128)) {
    throw invalidOption(`ipv6Subnet must be a prefix length from 1 to 128 (e.g. 64 or 56), or false; got ${shown(ipv6Subnet)}`);
  }
  if (options.ipv6Subnet !== undefined && keyGenerator !== undefined) {
    throw invalidOption(
      'ipv6Subnet applies to the default key only; with your own keyGenerator, group IPv6 addresses there: keyGenerator: (req) => ipKeyGenerator(req.ip, 56)',
    );
  }
  const skip = options.skip;
  if (skip !== undefined && typeof skip !== 'function') throw invalidOption(`skip must be a function (req) => boolean | Promise<boolean>; got ${shown(skip)}`);

  const headers = options.headers === undefined ? 'legacy' : options.headers;
  if (!HEADER_MODES.includes(headers)) {
    throw invalidOption(`headers must be 'draft-8', 'draft-7', 'draft-6', 'legacy' or false; got ${shown(headers)}`);
  }
  const identifier = options.identifier ?? 'default';
  if (typeof identifier !== 'string' || !IDENTIFIER.test(identifier)) {
    throw invalidOption(`identifier must be a non-empty text of printable ASCII without " or \\, e.g. 'api'; got ${shown(identifier)}`);
  }
  const statusCode = options.statusCode ?? 429;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 400 || statusCode > 599) {
    throw invalidOption(`statusCode must be an error status from 400 to 599, e.g. 429; got ${shown(statusCode)}`);
  }
  const message = options.message ?? 'Too many requests, please try again later.';
  if (typeof message !== 'string') {
    throw invalidOption(`message must be a string; for another body, answer VELOX_ERR_RATE_LIMITED in an error handler. Got ${shown(message)}`);
  }

  const allow = oneOf('onStoreError', options.onStoreError, ['allow', 'deny'] as const, 'allow') === 'allow';
  const storeTimeout = options.storeTimeout ?? 500;
  if (typeof storeTimeout !== 'number' || !Number.isFinite(storeTimeout) || storeTimeout <= 0) {
    throw invalidOption(`storeTimeout must be a positive number of milliseconds, e.g. 500; got ${shown(storeTimeout)}`);
  }
  const skipFailed = flag('skipFailedRequests', options.skipFailedRequests);
  const skipSuccessful = flag('skipSuccessfulRequests', options.skipSuccessfulRequests);
  const property = options.requestPropertyName ?? false;
  if (property !== false && (typeof property !== 'string' || !PROPERTY.test(property))) {
    throw invalidOption(`requestPropertyName must be a property name such as 'rateLimit', or false; got ${shown(property)}`);
  }

  let store = options.store;
  if (store === undefined) store = new MemoryStore();
  else if (!isStore(store)) {
    throw invalidOption('store must have increment(key, windowMs, now), decrement(key, windowMs, now) and reset(key): a MemoryStore, a RedisStore, or your own');
  }
  if (store.init !== undefined && typeof store.init !== 'function') throw invalidOption('store.init must be a function when present');
  if (store.open !== undefined && typeof store.open !== 'function') throw invalidOption('store.open must be a function when present');
  store.init?.({ identifier, windowMs, limit, algorithm });

  return {
    limit,
    windowMs,
    sliding: algorithm === 'sliding-window',
    keyGenerator,
    ipv6Subnet,
    skip,
    headers,
    identifier,
    statusCode,
    message,
    store,
    allow,
    storeTimeout,
    skipFailed,
    skipSuccessful,
    property: property === false ? undefined : property,
  };
}
