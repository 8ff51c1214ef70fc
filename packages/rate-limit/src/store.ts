/**
 * The store contract: what a rate-limit store counts and how the limiter talks to it. Two
 * implementations come with the package (MemoryStore, RedisStore); the README's "Writing a
 * store" shows a third.
 */
import type { Server } from '@velox/core';

/**
 * The counts of one key after a hit, as a store returns them. Times are milliseconds since the
 * epoch, on the caller's clock (the `now` it passed).
 *
 * A key's windows follow one another back to back from its first hit: `[s, s + windowMs)`, then
 * `[s + windowMs, s + 2 * windowMs)`, and so on; a hit that comes after a whole window without
 * any starts a new series at its own time (and `previous` is 0).
 *
 * @example
 * ```ts
 * const { count, previous, resetAt } = await store.increment('203.0.113.7', 60_000, Date.now());
 * ```
 */
export interface WindowCounts {
  /** Hits in the current window, this one included. */
  readonly count: number;
  /** Hits in the window just before the current one (0 when there was none, or it was not the one just before). */
  readonly previous: number;
  /** When the current window ends. */
  readonly resetAt: number;
}

/**
 * What the limiter tells its store once, when `rateLimit()` is called: a store that needs it
 * (RedisStore puts the identifier in its keys) keeps it.
 *
 * @example
 * ```ts
 * const store: RateLimitStore = { ...counter, init(limiter) { console.log(limiter.identifier, limiter.windowMs) } };
 * ```
 */
export interface RateLimitStoreContext {
  /** The limiter's `identifier` (its policy's name), `"default"` unless given. */
  readonly identifier: string;
  /** The limiter's window, in milliseconds. */
  readonly windowMs: number;
  /** The limiter's `limit`. */
  readonly limit: number;
  /** The limiter's algorithm. */
  readonly algorithm: 'fixed-window' | 'sliding-window';
}

/**
 * A rate-limit store. `increment`, `decrement` and `reset` are required; each may answer at once
 * (a value) or later (a promise): the limiter goes on synchronously when the store answers
 * synchronously, so a store in memory costs no promise per request.
 *
 * The limiter bounds every call by its `storeTimeout`; a call that throws, rejects or times out
 * is a store failure, which `onStoreError` decides about ('allow' lets the request through,
 * 'deny' answers 503).
 *
 * @example
 * ```ts
 * // Counting in a Map, without a cap (MemoryStore does this, bounded, in O(1) at the cap).
 * const windows = new Map<string, { count: number; previous: number; resetAt: number }>();
 * const store: RateLimitStore = {
 *   increment(key, windowMs, now) {
 *     let w = windows.get(key);
 *     if (!w || now >= w.resetAt + windowMs) windows.set(key, (w = { count: 0, previous: 0, resetAt: now + windowMs }));
 *     else if (now >= w.resetAt) Object.assign(w, { previous: w.count, count: 0, resetAt: w.resetAt + windowMs });
 *     w.count++;
 *     return w;
 *   },
 *   decrement(key, windowMs, now) {
 *     const w = windows.get(key);
 *     if (w && now < w.resetAt && w.count > 0) w.count--;
 *   },
 *   reset(key) {
 *     windows.delete(key);
 *   },
 * };
 * ```
 */
export interface RateLimitStore {
  /**
   * Counts one hit for `key` at `now` in a window of `windowMs` and returns the counts after it
   * (see {@link WindowCounts} for how windows follow one another). The object returned may be
   * the store's own: the limiter reads it at once and never keeps or changes it.
   */
  increment(key: string, windowMs: number, now: number): WindowCounts | Promise<WindowCounts>;
  /**
   * Takes one hit back (`skipFailedRequests` / `skipSuccessfulRequests`), if the window that
   * counted it is still the current one at `now`. Never below 0.
   */
  decrement(key: string, windowMs: number, now: number): void | Promise<void>;
  /** Forgets a key: its next hit starts a new window. */
  reset(key: string): void | Promise<void>;
  /**
   * Optional: called once by `rateLimit()` with the limiter's settings. A store that serves one
   * limiter only may throw here when it is given to a second one.
   */
  init?(limiter: RateLimitStoreContext): void;
  /**
   * Optional: called on the first request the limiter sees from each server, and awaited (within
   * `storeTimeout`) before that request is counted: connect here, with the server's logger, and
   * add an `onClose` hook on the server to close.
   */
  open?(server: Server): void | Promise<void>;
  /** Optional: closes the store (connections, timers). */
  close?(): void | Promise<void>;
}

/** Whether a value has the three required methods. @internal */
export function isStore(value: unknown): value is RateLimitStore {
  const store = value as Partial<RateLimitStore> | null;
  return (
    !!store &&
    typeof store === 'object' &&
    typeof store.increment === 'function' &&
    typeof store.decrement === 'function' &&
    typeof store.reset === 'function'
  );
}
