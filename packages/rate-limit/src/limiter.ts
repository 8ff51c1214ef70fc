/**
 * The limiter: rateLimit() checks its options once, builds the header writers, and returns a
 * middleware. Per request it runs skip, the key, one store call and the decision; when the
 * key generator and the store answer synchronously (the default MemoryStore does), it calls
 * next() synchronously and allocates no promise, closure or object of its own.
 */
import type { Middleware, Request, Response, Server } from '@velox/core';
import { keyError, limited, storeError } from './errors.ts';
import { type HeaderWriter, headerWriter } from './headers.ts';
import { ipv6Key } from './ip.ts';
import { type RateLimitOptions, type Settings, settingsOf } from './options.ts';
import type { RateLimitStore, WindowCounts } from './store.ts';

/**
 * What `req.rateLimit` (or the `requestPropertyName` you chose) holds, as express-rate-limit sets it.
 * @example
 * ```ts
 * app.get('/quota', rateLimit({ limit: 100, requestPropertyName: 'rateLimit' }), (req, res) => {
 *   const { remaining, resetTime } = req.rateLimit!;
 *   res.json({ remaining, resetsAt: resetTime.toISOString() });
 * });
 * ```
 */
export interface RateLimitInfo {
  /** The limit. */
  limit: number;
  /** Hits counted in the current window, this request's included. */
  used: number;
  /** Requests left before the limit. */
  remaining: number;
  /** When the current window ends (for a refusal under the sliding window: when a request fits again). */
  resetTime: Date;
  /** The key the request was counted under. */
  key: string;
}

declare module '@velox/core' {
  interface Request {
    /** The rate limit's counts for this request, with `rateLimit({ requestPropertyName: 'rateLimit' })`. */
    rateLimit?: RateLimitInfo;
  }
}

/**
 * The middleware `rateLimit()` returns, with the store it counts in and a way to forget a key.
 * @example
 * ```ts
 * const limiter = rateLimit({ limit: 10 });
 * app.use(limiter);
 * app.post('/admin/unblock', async (req, res) => { await limiter.resetKey(String(req.query.ip)); res.sendStatus(204); });
 * ```
 */
export type RateLimitMiddleware = Middleware & {
  /** The store the limiter counts in. */
  readonly store: RateLimitStore;
  /** Forgets a key's count (as express-rate-limit's `resetKey`). */
  resetKey(key: string): Promise<void>;
};

type Next = (err?: unknown) => void;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The per-limiter state and the steps of a request. @internal */
class Limiter {
  readonly #s: Settings;
  readonly #store: RateLimitStore;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #sliding: boolean;
  readonly #headers: HeaderWriter | undefined;
  readonly #key: (req: Request) => string | Promise<string>;
  readonly #skip: ((req: Request) => boolean | Promise<boolean>) | undefined;
  readonly #opens: boolean;
  readonly #decrements: boolean;
  /** The server whose first request opened the store last: requests from it skip the open check. */
  #server: Server | undefined = undefined;
  readonly #opening = new WeakMap<Server, Promise<void>>();
  /** Servers whose open() has settled: a request from one of them goes on synchronously. */
  readonly #opened = new WeakSet<Server>();
  /** The store failed and no answer has come since: the failure was logged, the recovery will be. */
  #outage = false;

  constructor(settings: Settings) {
    this.#s = settings;
    this.#store = settings.store;
    this.#limit = settings.limit;
    this.#windowMs = settings.windowMs;
    this.#sliding = settings.sliding;
    this.#headers = headerWriter(settings.headers, settings.identifier, settings.limit, settings.windowMs);
    this.#skip = settings.skip;
    this.#opens = typeof settings.store.open === 'function';
    this.#decrements = settings.skipFailed || settings.skipSuccessful;
    const subnet = settings.ipv6Subnet;
    this.#key =
      settings.keyGenerator ??
      ((req: Request) => {
        // req.ip builds the proxy chain (an array) each time: without trustProxy, the socket's address is the same thing.
        const ip = req.server.config.trust === undefined ? req.socketAddress : req.ip;
        return ip.indexOf(':') === -1 ? ip : ipv6Key(ip, subnet);
      });
  }

  handle(req: Request, res: Response, next: Next): void {
    const skip = this.#skip;
    if (skip !== undefined) {
      let skipped: unknown;
      try {
        skipped = skip(req);
      } catch (err) {
        return next(err);
      }
      if (skipped === false) return this.#keyed(req, res, next);
      if (isThenable(skipped)) return this.#skipLater(skipped, req, res, next);
      if (skipped) return next();
    }
    this.#keyed(req, res, next);
  }

  async resetKey(key: string): Promise<void> {
    await this.#store.reset(key);
  }

  #keyed(req: Request, res: Response, next: Next): void {
    let key: unknown;
    try {
      key = this.#key(req);
    } catch (err) {
      return next(err);
    }
    if (typeof key === 'string') return this.#count(req, res, next, key);
    if (isThenable(key)) return this.#keyLater(key, req, res, next);
    next(keyError(key));
  }

  #count(req: Request, res: Response, next: Next, key: string): void {
    if (this.#opens && req.server !== this.#server) return this.#open(req, res, next, key);
    const now = Date.now();
    let counts: WindowCounts | Promise<WindowCounts>;
    try {
      counts = this.#store.increment(key, this.#windowMs, now);
    } catch (err) {
      return this.#failed(req, next, err);
    }
    if (isThenable(counts)) return this.#countLater(counts, req, res, next, key, now);
    this.#decide(req, res, next, counts, key, now);
  }

  /** The answer of the store: headers, then next() or the refusal. */
  #decide(req: Request, res: Response, next: Next, counts: WindowCounts, key: string, now: number): void {
    const count = counts?.count;
    const resetAt = counts?.resetAt;
    if (typeof count !== 'number' || typeof resetAt !== 'number' || Number.isNaN(count) || Number.isNaN(resetAt)) {
      return this.#failed(req, next, new TypeError('the store answered without a numeric count and resetAt'));
    }
    if (this.#outage) this.#recovered(req);
    const limit = this.#limit;
    let refused: boolean;
    let remaining: number;
    let resetMs: number;
    if (this.#sliding) {
      const windowMs = this.#windowMs;
      const previous = typeof counts.previous === 'number' && counts.previous > 0 ? counts.previous : 0;
      let elapsed = now - (resetAt - windowMs);
      if (elapsed < 0) elapsed = 0;
      else if (elapsed > windowMs) elapsed = windowMs;
      const estimate = count + (previous * (windowMs - elapsed)) / windowMs;
      refused = estimate > limit;
      remaining = refused ? 0 : Math.floor(limit - estimate);
      resetMs = refused ? slidingWait(count, previous, elapsed, windowMs, limit) : resetAt - now;
    } else {
      refused = count > limit;
      remaining = refused ? 0 : limit - count;
      resetMs = resetAt - now;
    }
    let resetSeconds = resetMs <= 0 ? 0 : Math.ceil(resetMs / 1000);
    if (refused && resetSeconds < 1) resetSeconds = 1;
    try {
      this.#headers?.(res, remaining, resetSeconds, Math.ceil((now + Math.max(resetMs, 0)) / 1000));
      if (refused) res.set('Retry-After', resetSeconds);
    } catch (err) {
      return next(err);
    }
    const s = this.#s;
    if (s.property !== undefined) {
      (req as unknown as Record<string, RateLimitInfo>)[s.property] = { limit, used: count, remaining, resetTime: new Date(now + resetMs), key };
    }
    if (this.#decrements) this.#takeBackLater(res, key);
    if (refused) return next(limited(s.message, s.statusCode));
    next();
  }

  /** skipFailedRequests / skipSuccessfulRequests: take the hit back once the answer is known. */
  #takeBackLater(res: Response, key: string): void {
    const s = this.#s;
    res.on('close', () => {
      const failed = res.aborted || res.statusCode >= 400;
      if (failed ? !s.skipFailed : !s.skipSuccessful) return;
      this.#call(() => this.#store.decrement(key, this.#windowMs, Date.now())).then(undefined, (err: unknown) => {
        res.req.server.logger?.warn(`[velox/rate-limit] ${s.identifier}: the store could not take a hit back (${message(err)})`);
      });
    });
  }

  /** The store failed (threw, rejected, timed out, or answered nonsense): onStoreError decides. */
  #failed(req: Request, next: Next, err: unknown): void {
    const s = this.#s;
    if (!this.#outage) {
      this.#outage = true;
      const then = s.allow ? 'requests pass without a limit' : 'requests are refused with 503';
      req.server.logger?.warn(`[velox/rate-limit] ${s.identifier}: the store failed (${message(err)}); ${then} until it answers again`);
    }
    if (s.allow) next();
    else next(storeError(err));
  }

  #recovered(req: Request): void {
    this.#outage = false;
    const logger = req.server.logger;
    if (logger) (logger.info ?? logger.warn).call(logger, `[velox/rate-limit] ${this.#s.identifier}: the store answers again`);
  }

  // The slower paths: an async skip, key or store, and a server's first request.

  #skipLater(skipped: PromiseLike<unknown>, req: Request, res: Response, next: Next): void {
    skipped.then(
      (value) => {
        if (res.aborted) return;
        if (value) next();
        else this.#keyed(req, res, next);
      },
      (err: unknown) => next(err),
    );
  }

  #keyLater(key: PromiseLike<unknown>, req: Request, res: Response, next: Next): void {
    key.then(
      (value) => {
        if (res.aborted) return;
        if (typeof value === 'string') this.#count(req, res, next, value);
        else next(keyError(value));
      },
      (err: unknown) => next(err),
    );
  }

  #countLater(counts: PromiseLike<WindowCounts>, req: Request, res: Response, next: Next, key: string, now: number): void {
    this.#bounded(counts).then(
      (value) => {
        if (!res.aborted) this.#decide(req, res, next, value, key, now);
      },
      (err: unknown) => {
        if (!res.aborted) this.#failed(req, next, err);
      },
    );
  }

  /** A server's first request: open the store for it (once), within storeTimeout, then count. */
  #open(req: Request, res: Response, next: Next, key: string): void {
    const server = req.server;
    if (this.#opened.has(server)) {
      this.#server = server;
      return this.#count(req, res, next, key);
    }
    let opening = this.#opening.get(server);
    if (opening === undefined) {
      opening = this.#call(() => this.#store.open!(server)).then(
        () => {
          this.#opened.add(server);
          this.#server = server;
        },
        (err: unknown) => {
          this.#opened.add(server);
          this.#server = server;
          throw err;
        },
      );
      opening.then(undefined, () => {});
      this.#opening.set(server, opening);
    }
    this.#bounded(opening).then(
      () => {
        if (res.aborted) return;
        this.#server = server;
        this.#count(req, res, next, key);
      },
      (err: unknown) => {
        if (res.aborted) return;
        this.#failed(req, next, err);
      },
    );
  }

  /** Runs a store call, its throw turned into a rejection. */
  #call(fn: () => unknown): Promise<unknown> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A store's promise, rejected after storeTimeout if it has not settled by then. */
  #bounded<T>(promise: PromiseLike<T>): Promise<T> {
    const ms = this.#s.storeTimeout;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }
}

/**
 * Sliding window, refused: how long until one more request fits if none come meanwhile. Within
 * this window as the previous window's weight fades, or else in the next, where this window's
 * count becomes the previous one.
 */
function slidingWait(count: number, previous: number, elapsed: number, windowMs: number, limit: number): number {
  const left = windowMs - elapsed;
  if (count + 1 <= limit && previous > 0) {
    const wait = left - (windowMs * (limit - count - 1)) / previous;
    if (wait < left) return Math.max(wait, 0);
  }
  const next = count > 0 ? windowMs * (1 - (limit - 1) / count) : 0;
  return left + Math.max(next, 0);
}

/**
 * A rate limit as a middleware: counts each request under a key (the client address by default)
 * in a fixed or sliding window, reports the limit in headers (`legacy` X-RateLimit-* by default,
 * or the IETF draft's `RateLimit-Policy`/`RateLimit`), and refuses a request over the limit with
 * 429 through Velox's error path (`VELOX_ERR_RATE_LIMITED`, a JSON body, `Retry-After` in
 * seconds). Use it on every route (`app.use`), under a prefix, or on one route; each call counts
 * on its own. Options are checked here: a bad one throws `VELOX_ERR_RATE_LIMIT_INVALID_OPTION`.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { rateLimit, RedisStore } from '@velox/rate-limit';
 *
 * const app = new Server();
 * app.use('/api', rateLimit({ limit: 100, windowMs: 60_000, headers: 'draft-8',
 *   store: new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'rl:' }) }));
 * app.post('/messages', rateLimit({ limit: 5, windowMs: 10_000, identifier: 'messages', algorithm: 'sliding-window' }), (req, res) => res.sendStatus(201));
 * ```
 */
export function rateLimit(options?: RateLimitOptions): RateLimitMiddleware {
  const settings = settingsOf(options);
  const limiter = new Limiter(settings);
  const middleware = (req: Request, res: Response, next: Next): void => limiter.handle(req, res, next);
  Object.defineProperty(middleware, 'name', { value: 'rateLimit' });
  return Object.assign(middleware, {
    store: settings.store,
    resetKey: (key: string) => limiter.resetKey(key),
  });
}
