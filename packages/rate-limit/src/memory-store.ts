/**
 * MemoryStore: the counts of one limiter in this process's memory, bounded by `maxKeys`, O(1) per
 * request at the cap as below it. Each key is one Entry, found through a Map and linked in two
 * lists: by the time its current window was set up (renewals move it to the end) and by its last
 * hit (every hit moves it to the end). At the cap, the entry at the head of the first list goes
 * if it has expired, else the head of the second: two entries looked at, whatever the size.
 */
import { invalidOption } from './errors.ts';
import type { RateLimitStore, RateLimitStoreContext, WindowCounts } from './store.ts';

/**
 * Options of {@link MemoryStore}.
 * @example
 * ```ts
 * const options: MemoryStoreOptions = { maxKeys: 50_000 };
 * app.use(rateLimit({ store: new MemoryStore(options) }));
 * ```
 */
export interface MemoryStoreOptions {
  /**
   * Most keys kept. At the cap a new key takes the place of an expired one (one whose window and
   * the window after it are over, so nothing it counted can matter any more) if the entry whose
   * window was set up longest ago is such a one, else of the least recently seen key.
   * Default: 100000.
   */
  maxKeys?: number;
}

/**
 * Work done by every MemoryStore since the process started, for tests that count work instead
 * of timing it. Not exported by the package. @internal
 */
export const memoryStoreWork = {
  /** Entries looked at to choose what to evict. */
  examined: 0,
  /** Entries evicted. */
  evicted: 0,
};

/** One key's counts, and its place in both lists. What `increment()` returns. @internal */
class Entry implements WindowCounts {
  key: string;
  count = 0;
  previous = 0;
  resetAt: number;
  /** When nothing this entry counted can matter any more: the end of the window after the current one. */
  expires: number;
  /** An own field, so that the limiter's check for a promise finds it at once (no prototype walk). */
  // biome-ignore lint/suspicious/noThenProperty: always undefined, which is what makes it no thenable
  readonly then: undefined = undefined;
  /** The list by window set-up. */
  olderSetup: Entry | undefined = undefined;
  newerSetup: Entry | undefined = undefined;
  /** The list by last hit. */
  olderHit: Entry | undefined = undefined;
  newerHit: Entry | undefined = undefined;

  constructor(key: string, resetAt: number, expires: number) {
    this.key = key;
    this.resetAt = resetAt;
    this.expires = expires;
  }
}

/**
 * The default store: the counts of one limiter in this process's memory. Synchronous (a request
 * under the limit costs no promise), bounded by `maxKeys`, O(1) per request at the cap as below
 * it (no sweep, no timer: an expired window is renewed by the key's next hit, or its entry is
 * reused at the cap). Shared by nothing but this process: behind several processes or machines,
 * each counts on its own; use {@link RedisStore} to share the count.
 *
 * A MemoryStore serves one limiter: `rateLimit()` throws `VELOX_ERR_RATE_LIMIT_INVALID_OPTION`
 * when it is given one that another limiter already uses.
 *
 * @example
 * ```ts
 * import { rateLimit, MemoryStore } from '@velox/rate-limit';
 * const store = new MemoryStore({ maxKeys: 50_000 });
 * app.use(rateLimit({ limit: 100, windowMs: 60_000, store }));
 * app.post('/admin/unblock/:ip', (req, res) => { store.reset(req.params.ip); res.sendStatus(204); });
 * ```
 */
export class MemoryStore implements RateLimitStore {
  readonly #map = new Map<string, Entry>();
  readonly #maxKeys: number;
  #bound = false;
  #setupHead: Entry | undefined = undefined;
  #setupTail: Entry | undefined = undefined;
  #hitHead: Entry | undefined = undefined;
  #hitTail: Entry | undefined = undefined;

  constructor(options: MemoryStoreOptions = {}) {
    if (!options || typeof options !== 'object') throw invalidOption('MemoryStore takes options such as { maxKeys: 100_000 }');
    const { maxKeys = 100_000, ...rest } = options;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw invalidOption(`MemoryStore has no option ${unknown.join(', ')}; its only option is maxKeys, e.g. { maxKeys: 100_000 }`);
    if (typeof maxKeys !== 'number' || !Number.isInteger(maxKeys) || maxKeys < 1) {
      throw invalidOption(`MemoryStore maxKeys must be a whole number of keys, at least 1, e.g. 100_000; got ${String(maxKeys)}`);
    }
    this.#maxKeys = maxKeys;
  }

  /** How many keys the store holds now (never more than `maxKeys`). */
  get size(): number {
    return this.#map.size;
  }

  /** The cap given to the constructor. */
  get maxKeys(): number {
    return this.#maxKeys;
  }

  /** Called by `rateLimit()`: a MemoryStore serves one limiter (its eviction order assumes one window length). */
  init(limiter: RateLimitStoreContext): void {
    if (this.#bound) {
      throw invalidOption(
        `This MemoryStore already serves another rateLimit(); give limiter "${limiter.identifier}" its own: rateLimit({ ..., store: new MemoryStore() }) (or leave store out)`,
      );
    }
    this.#bound = true;
  }

  /**
   * Counts a hit; returns the key's counts (the store's own object: read it, don't keep it).
   * @example
   * ```ts
   * const { count } = store.increment('203.0.113.7', 60_000, Date.now());
   * ```
   */
  increment(key: string, windowMs: number, now: number): WindowCounts {
    const entry = this.#map.get(key);
    if (entry === undefined) return this.#add(key, windowMs, now);
    if (now >= entry.resetAt) this.#renew(entry, windowMs, now);
    entry.count++;
    if (entry !== this.#hitTail) {
      this.#unlinkHit(entry);
      this.#appendHit(entry);
    }
    return entry;
  }

  /**
   * Takes a hit back, if the window that counted it is still the current one.
   * @example
   * ```ts
   * store.decrement('203.0.113.7', 60_000, Date.now());
   * ```
   */
  decrement(key: string, windowMs: number, now: number): void {
    const entry = this.#map.get(key);
    if (entry !== undefined && now < entry.resetAt && entry.count > 0) entry.count--;
  }

  /**
   * Forgets a key.
   * @example
   * ```ts
   * store.reset('203.0.113.7');
   * ```
   */
  reset(key: string): void {
    const entry = this.#map.get(key);
    if (entry === undefined) return;
    this.#map.delete(key);
    this.#unlinkSetup(entry);
    this.#unlinkHit(entry);
  }

  /**
   * A key's counts as they are, without counting a hit; `undefined` for a key the store does not hold.
   * @example
   * ```ts
   * const counts = store.get('203.0.113.7'); // { count, previous, resetAt } or undefined
   * ```
   */
  get(key: string): WindowCounts | undefined {
    const entry = this.#map.get(key);
    return entry === undefined ? undefined : { count: entry.count, previous: entry.previous, resetAt: entry.resetAt };
  }

  /**
   * Forgets every key.
   * @example
   * ```ts
   * store.close();
   * ```
   */
  close(): void {
    this.#map.clear();
    this.#setupHead = this.#setupTail = this.#hitHead = this.#hitTail = undefined;
  }

  #add(key: string, windowMs: number, now: number): Entry {
    let entry: Entry;
    if (this.#map.size >= this.#maxKeys) {
      // Reuse the evicted entry: a full store allocates nothing for a new key.
      entry = this.#evict(now);
      entry.key = key;
      entry.previous = 0;
      entry.resetAt = now + windowMs;
      entry.expires = now + 2 * windowMs;
    } else {
      entry = new Entry(key, now + windowMs, now + 2 * windowMs);
    }
    entry.count = 1;
    this.#map.set(key, entry);
    this.#appendSetup(entry);
    this.#appendHit(entry);
    return entry;
  }

  /** The window is over: the next one follows it back to back, or (after a whole window without hits) starts now. */
  #renew(entry: Entry, windowMs: number, now: number): void {
    if (now < entry.resetAt + windowMs) {
      entry.previous = entry.count;
      entry.resetAt += windowMs;
    } else {
      entry.previous = 0;
      entry.resetAt = now + windowMs;
    }
    entry.count = 0;
    entry.expires = entry.resetAt + windowMs;
    if (entry !== this.#setupTail) {
      this.#unlinkSetup(entry);
      this.#appendSetup(entry);
    }
  }

  /** Removes one entry at the cap: the oldest set-up one if it has expired, else the least recently hit. */
  #evict(now: number): Entry {
    let victim = this.#setupHead!;
    memoryStoreWork.examined++;
    if (now < victim.expires) {
      victim = this.#hitHead!;
      memoryStoreWork.examined++;
    }
    memoryStoreWork.evicted++;
    this.#map.delete(victim.key);
    this.#unlinkSetup(victim);
    this.#unlinkHit(victim);
    return victim;
  }

  #appendSetup(entry: Entry): void {
    entry.olderSetup = this.#setupTail;
    entry.newerSetup = undefined;
    if (this.#setupTail === undefined) this.#setupHead = entry;
    else this.#setupTail.newerSetup = entry;
    this.#setupTail = entry;
  }

  #unlinkSetup(entry: Entry): void {
    const { olderSetup, newerSetup } = entry;
    if (olderSetup === undefined) this.#setupHead = newerSetup;
    else olderSetup.newerSetup = newerSetup;
    if (newerSetup === undefined) this.#setupTail = olderSetup;
    else newerSetup.olderSetup = olderSetup;
    entry.olderSetup = entry.newerSetup = undefined;
  }

  #appendHit(entry: Entry): void {
    entry.olderHit = this.#hitTail;
    entry.newerHit = undefined;
    if (this.#hitTail === undefined) this.#hitHead = entry;
    else this.#hitTail.newerHit = entry;
    this.#hitTail = entry;
  }

  #unlinkHit(entry: Entry): void {
    const { olderHit, newerHit } = entry;
    if (olderHit === undefined) this.#hitHead = newerHit;
    else olderHit.newerHit = newerHit;
    if (newerHit === undefined) this.#hitTail = olderHit;
    else newerHit.olderHit = olderHit;
    entry.olderHit = entry.newerHit = undefined;
  }
}
