/**
 * MemoryStore: sessions in this process's memory. Records are kept as JSON text (copied in and
 * out: no request ever holds an object the store keeps), swept on an unref'd timer, and capped.
 */
import { invalidOption } from './errors.ts';
import type { SessionChange, SessionRecord, SessionStore } from './store.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Most sessions kept. Past it, storing a new session evicts the one that has gone longest
   * without a write or a touch (with one idle timeout for all, the one closest to expiring).
   * Default: 100000.
   */
  maxEntries?: number;
  /** Milliseconds between two sweeps of expired sessions (an unref'd timer). Default: 60000. */
  sweepInterval?: number;
}

interface Entry {
  created: number;
  seen: number;
  expires: number;
  /** The data as JSON text. */
  json: string;
}

/**
 * The default store: sessions in memory, for one process (use {@link RedisStore} across
 * processes or restarts). Values are copied in and out as JSON, so what a request gets is its
 * own, and a value behaves as it would in Redis. Expired sessions are swept every
 * `sweepInterval` on an unref'd timer (it never keeps the process alive), and `maxEntries` bounds
 * memory. `update()` applies a request's changed keys to the record as it is now, only if it still
 * exists: concurrent changes to different keys are all kept, and a destroyed session stays gone.
 *
 * @example
 * ```ts
 * import { session, MemoryStore } from '@velox/session';
 * await app.register(session, { secret, store: new MemoryStore({ maxEntries: 50_000 }) });
 * ```
 */
export class MemoryStore implements SessionStore {
  /** Insertion order is write order: the first entry is the one written or touched longest ago. */
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #sweepInterval: number;
  #timer: NodeJS.Timeout | undefined;
  #evictions = 0;

  constructor(options: MemoryStoreOptions = {}) {
    const { maxEntries = 100_000, sweepInterval = 60_000 } = options;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw invalidOption(`MemoryStore maxEntries must be a whole number of sessions, at least 1, e.g. 100000; got ${String(maxEntries)}`);
    }
    if (typeof sweepInterval !== 'number' || !Number.isFinite(sweepInterval) || sweepInterval < 1) {
      throw invalidOption(`MemoryStore sweepInterval must be a number of milliseconds, e.g. 60000; got ${String(sweepInterval)}`);
    }
    this.#maxEntries = maxEntries;
    this.#sweepInterval = sweepInterval;
  }

  /** How many sessions are kept (expired ones count until the next sweep or read). */
  get size(): number {
    return this.#entries.size;
  }

  /** How many sessions were evicted to stay within `maxEntries`, since the store was made. */
  get evictions(): number {
    return this.#evictions;
  }

  /** @example const record = await store.get(id); */
  async get(id: string): Promise<SessionRecord | undefined> {
    return this.getSync(id);
  }

  /** @example await store.set(id, { created: Date.now(), seen: Date.now(), data: { visits: 1 } }, 60_000); */
  async set(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    this.setSync(id, record, ttlMs);
  }

  /** @example const stillThere = await store.update(id, { set: { visits: 2 }, delete: [], seen: Date.now() }, 60_000); */
  async update(id: string, change: SessionChange, ttlMs: number): Promise<boolean> {
    return this.updateSync(id, change, ttlMs);
  }

  /** @example await store.touch(id, 60_000); */
  async touch(id: string, ttlMs: number): Promise<boolean> {
    return this.touchSync(id, ttlMs);
  }

  /** @example await store.destroy(id); */
  async destroy(id: string): Promise<void> {
    this.#entries.delete(id);
  }

  // The same operations without a promise. The session calls these when its store is a
  // MemoryStore (this class itself, not a subclass), so that a request on the default store
  // neither waits a turn of the event loop for its session nor defers its answer.

  /** `get()` without a promise. @example const record = store.getSync(id); */
  getSync(id: string): SessionRecord | undefined {
    const entry = this.#live(id, Date.now());
    if (!entry) return undefined;
    return { created: entry.created, seen: entry.seen, data: JSON.parse(entry.json) };
  }

  /** `set()` without a promise. @example store.setSync(id, { created: Date.now(), seen: Date.now(), data: {} }, 60_000); */
  setSync(id: string, record: SessionRecord, ttlMs: number): void {
    const json = JSON.stringify(record.data);
    const entries = this.#entries;
    if (!entries.delete(id) && entries.size >= this.#maxEntries) {
      this.#sweep(Date.now());
      while (entries.size >= this.#maxEntries) {
        entries.delete(entries.keys().next().value!);
        this.#evictions++;
      }
    }
    entries.set(id, { created: record.created, seen: record.seen, expires: Date.now() + ttlMs, json });
    this.#timer ??= this.#startSweeper();
  }

  /** `update()` without a promise. @example const stillThere = store.updateSync(id, { set: { visits: 2 }, delete: [], seen: Date.now() }, 60_000); */
  updateSync(id: string, change: SessionChange, ttlMs: number): boolean {
    const now = Date.now();
    const entry = this.#live(id, now);
    if (!entry) return false;
    const data: Record<string, unknown> = JSON.parse(entry.json);
    for (const key of change.delete) delete data[key];
    for (const key in change.set) {
      // "__proto__" must stay an own property (as JSON.parse makes it), not set the prototype.
      if (key === '__proto__') Object.defineProperty(data, key, { value: change.set[key], enumerable: true, writable: true, configurable: true });
      else data[key] = change.set[key];
    }
    entry.json = JSON.stringify(data);
    // The order of the map is the order of `seen` (the eviction order): a change that keeps
    // `seen` (the session moves it at most once per touchAfter) keeps the entry's place.
    if (entry.seen !== change.seen) this.#moveToEnd(id, entry);
    entry.seen = change.seen;
    entry.expires = now + ttlMs;
    return true;
  }

  /** `touch()` without a promise. @example const stillThere = store.touchSync(id, 60_000); */
  touchSync(id: string, ttlMs: number): boolean {
    const now = Date.now();
    const entry = this.#live(id, now);
    if (!entry) return false;
    entry.seen = now;
    entry.expires = now + ttlMs;
    this.#moveToEnd(id, entry);
    return true;
  }

  /**
   * Removes expired sessions now (the sweeper does it every `sweepInterval`); returns how many.
   * @example
   * ```ts
   * const removed = store.sweep();
   * ```
   */
  sweep(): number {
    return this.#sweep(Date.now());
  }

  /** Stops the sweeper (it starts again with the next stored session). Sessions are kept. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #live(id: string, now: number): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry && entry.expires <= now) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry;
  }

  #moveToEnd(id: string, entry: Entry): void {
    const entries = this.#entries;
    entries.delete(id);
    entries.set(id, entry);
  }

  #sweep(now: number): number {
    let removed = 0;
    for (const [id, entry] of this.#entries) {
      if (entry.expires <= now) {
        this.#entries.delete(id);
        removed++;
      }
    }
    return removed;
  }

  #startSweeper(): NodeJS.Timeout {
    const timer = setInterval(() => {
      this.#sweep(Date.now());
      if (this.#entries.size === 0) this.close();
    }, this.#sweepInterval);
    timer.unref();
    return timer;
  }
}
