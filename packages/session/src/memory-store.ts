/**
 * MemoryStore: sessions in this process's memory. A record's values are kept as they would be in
 * JSON: strings, numbers, booleans and null as they are, objects and arrays as their JSON text
 * (so no request ever holds an object the store keeps); a record's values are never changed in
 * place, a write replaces them. Swept a slice at a time on an unref'd timer, and capped, with the
 * least recently used evicted first in constant time.
 */
import { invalidOption } from './errors.ts';
import type { SessionChange, SessionRecord, SessionStore } from './store.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Most sessions kept. When the store is full, storing a new session drops an expired one among
   * the least recently used, or else evicts the session used (read, written or touched) longest
   * ago. Default: 100000.
   */
  maxEntries?: number;
  /**
   * Milliseconds between two sweeps of expired sessions (an unref'd timer; each sweep looks at
   * 1,000 sessions per turn of the event loop). Default: 60000.
   */
  sweepInterval?: number;
}

/**
 * How many sessions, from the least recently used, a `set` at the cap looks at for an expired one
 * to drop before it evicts a live one. A constant: storing a session at the cap costs the same as
 * below it, whatever `maxEntries` is. @internal
 */
export const EXPIRED_LOOKAHEAD = 8;

/**
 * How many sessions one slice of a sweep looks at before it yields to the event loop (the rest
 * of the pass runs in the next turns): a sweep never holds up requests for longer than that.
 * @internal
 */
export const SWEEP_SLICE = 1000;

/**
 * Work done by every MemoryStore since the process started, for tests that count work instead
 * of timing it. Not exported by the package. @internal
 */
export const storeWork = {
  /** Sessions looked at by evictions and sweeps (not by get, set or touch of one id). */
  examined: 0,
};

/** One session, and its place in the recency list (least recently used first). @internal */
export class Entry {
  readonly id: string;
  created: number;
  seen: number;
  expires: number;
  /** The values, replaced (never changed) by a write: a session that read them may keep them. */
  values: StoredValues;
  prev: Entry | undefined = undefined;
  next: Entry | undefined = undefined;

  constructor(id: string, created: number, seen: number, expires: number, values: StoredValues) {
    this.id = id;
    this.created = created;
    this.seen = seen;
    this.expires = expires;
    this.values = values;
  }
}

/** An object or array value as its JSON text: parsed by whoever reads it, so each reader gets its own copy. @internal */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** A record's values in the store: JSON primitives as they are, objects and arrays as {@link JsonText}. @internal */
export type StoredValues = Record<string, unknown>;

/**
 * An empty record with no inherited keys that V8 keeps in fast mode (an `Object.create(null)`
 * object starts as a dictionary, slow to read even for a missing key): its prototype is a frozen,
 * empty, null-prototype object. @internal
 */
function ValuesConstructor(this: object) {}
ValuesConstructor.prototype = Object.freeze(Object.create(null));
export const Values = ValuesConstructor as unknown as new () => StoredValues;

/** A value as the store keeps it (undefined: JSON would leave it out). @internal */
export function storedValue(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      if (value === null || value instanceof JsonText) return value;
      return jsonText(value);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  // A bigint: JSON.stringify throws, as it would for the whole record.
  return jsonText(value);
}

function jsonText(value: unknown): JsonText | undefined {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : new JsonText(text);
}

/** A value as a reader gets it: JSON text parsed into its own copy. @internal */
export function readValue(value: unknown): unknown {
  return value instanceof JsonText ? JSON.parse(value.text) : value;
}

/** Stored values from a record's data (its own enumerable keys, as JSON.stringify takes them). */
function toStored(data: Record<string, unknown>): StoredValues {
  const values = new Values();
  for (const key of Object.keys(data)) {
    const value = storedValue(data[key]);
    if (value !== undefined) values[key] = value;
  }
  return values;
}

/** A record's data from stored values: a plain object, as JSON.parse would make it. */
function toData(values: StoredValues): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const key in values) {
    const value = readValue(values[key]);
    // "__proto__" must stay an own property (as JSON.parse makes it), not set the prototype.
    if (key === '__proto__') Object.defineProperty(data, key, { value, enumerable: true, writable: true, configurable: true });
    else data[key] = value;
  }
  return data;
}

/** Symbols of the store's promise-free path for the session (not part of its API). @internal */
export const kRead: unique symbol = Symbol('velox.session.memory.read');
export const kCreate: unique symbol = Symbol('velox.session.memory.create');
export const kUpdate: unique symbol = Symbol('velox.session.memory.update');

/**
 * The default store: sessions in memory, for one process (use {@link RedisStore} across
 * processes or restarts). Values are copied in and out as JSON, so what a request gets is its
 * own, and a value behaves as it would in Redis. `update()` applies a request's changed keys to
 * the record as it is now, only if it still exists: concurrent changes to different keys are all
 * kept, and a destroyed session stays gone.
 *
 * `maxEntries` bounds memory: storing a new session when the store is full drops an expired one
 * among the least recently used, or else evicts the least recently used session (read, written or
 * touched longest ago), in constant time. Expired sessions are swept every `sweepInterval` on an
 * unref'd timer (it never keeps the process alive), 1,000 sessions per turn of the event loop.
 *
 * @example
 * ```ts
 * import { session, MemoryStore } from '@velox/session';
 * await app.register(session, { secret, store: new MemoryStore({ maxEntries: 50_000 }) });
 * ```
 */
export class MemoryStore implements SessionStore {
  readonly #entries = new Map<string, Entry>();
  // A doubly linked list through the entries, in the order of their last use: the head is the
  // session used longest ago (the next to evict), the tail the one used last. A Map kept in that
  // order (delete and set again on use) would be simpler, but finding its first entry after many
  // deletions at the front walks over their holes in V8's table: evicting there is not O(1).
  #head: Entry | undefined = undefined;
  #tail: Entry | undefined = undefined;
  readonly #maxEntries: number;
  readonly #sweepInterval: number;
  #timer: NodeJS.Timeout | undefined;
  /** The next slice of the running sweep, if one is waiting for its turn. */
  #slice: NodeJS.Immediate | undefined;
  /** The running sweep: the next entry it looks at, and how many it still has to look at. */
  #cursor: Entry | undefined = undefined;
  #pending = 0;
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

  /** How many sessions are kept (expired ones count until a sweep, a read or an eviction drops them). */
  get size(): number {
    return this.#entries.size;
  }

  /** How many live sessions were evicted to stay within `maxEntries`, since the store was made. */
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
    const entry = this.#entries.get(id);
    if (entry !== undefined) this.#remove(entry);
  }

  // The same operations without a promise. The session calls these when its store is a
  // MemoryStore (this class itself, not a subclass), so that a request on the default store
  // neither waits a turn of the event loop for its session nor defers its answer.

  /** `get()` without a promise. @example const record = store.getSync(id); */
  getSync(id: string): SessionRecord | undefined {
    const entry = this.#live(id, Date.now());
    if (!entry) return undefined;
    return { created: entry.created, seen: entry.seen, data: toData(entry.values) };
  }

  /** `set()` without a promise. @example store.setSync(id, { created: Date.now(), seen: Date.now(), data: {} }, 60_000); */
  setSync(id: string, record: SessionRecord, ttlMs: number): void {
    this[kCreate](id, toStored(record.data), record.created, record.seen, ttlMs);
  }

  /** `update()` without a promise. @example const stillThere = store.updateSync(id, { set: { visits: 2 }, delete: [], seen: Date.now() }, 60_000); */
  updateSync(id: string, change: SessionChange, ttlMs: number): boolean {
    const now = Date.now();
    const entry = this.#live(id, now);
    if (!entry) return false;
    const values = Object.assign(new Values(), entry.values);
    for (const key of change.delete) delete values[key];
    for (const key in change.set) {
      const value = storedValue(change.set[key]);
      if (value === undefined) delete values[key];
      else values[key] = value;
    }
    entry.values = values;
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
    return true;
  }

  /**
   * @internal The session's read: the live entry (moved to the recency list's end), whose
   * `values` the caller may keep but never change.
   */
  [kRead](id: string, now: number): Entry | undefined {
    return this.#live(id, now);
  }

  /** @internal The session's first write: a new record with these values (made for it, kept as they are). */
  [kCreate](id: string, values: StoredValues, created: number, seen: number, ttlMs: number): void {
    const now = Date.now();
    const entries = this.#entries;
    const old = entries.get(id);
    if (old !== undefined) {
      old.created = created;
      old.seen = seen;
      old.expires = now + ttlMs;
      old.values = values;
      this.#use(old);
    } else {
      if (entries.size >= this.#maxEntries) this.#makeRoom(now);
      const entry = new Entry(id, created, seen, now + ttlMs, values);
      entries.set(id, entry);
      this.#append(entry);
    }
    this.#timer ??= this.#startSweeper();
  }

  /**
   * @internal The session's change: the `changed` keys of `data` (absent ones deleted) merged
   * into the record as it is now, as new values (the old ones may still be read). False when the
   * record is gone.
   */
  [kUpdate](id: string, changed: Iterable<string>, data: Record<string, unknown>, seen: number, ttlMs: number): boolean {
    const now = Date.now();
    const entry = this.#live(id, now);
    if (!entry) return false;
    const values = Object.assign(new Values(), entry.values);
    for (const key of changed) {
      const value = key in data ? storedValue(data[key]) : undefined;
      if (value === undefined) delete values[key];
      else values[key] = value;
    }
    entry.values = values;
    entry.seen = seen;
    entry.expires = now + ttlMs;
    return true;
  }

  /**
   * Removes every expired session now, in one go (the sweeper does it every `sweepInterval`, a
   * slice at a time); returns how many went.
   * @example
   * ```ts
   * const removed = store.sweep();
   * ```
   */
  sweep(): number {
    const now = Date.now();
    let removed = 0;
    let entry = this.#head;
    while (entry !== undefined) {
      const next = entry.next;
      storeWork.examined++;
      if (entry.expires <= now) {
        this.#remove(entry);
        removed++;
      }
      entry = next;
    }
    return removed;
  }

  /** Stops the sweeper (it starts again with the next stored session). Sessions are kept. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#endSweep();
  }

  /** The entry of `id` if it is live, now the most recently used; an expired one is dropped. */
  #live(id: string, now: number): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expires <= now) {
      this.#remove(entry);
      return undefined;
    }
    this.#use(entry);
    return entry;
  }

  /**
   * The store is full and a new session comes: drop the expired ones among the few least recently
   * used, or else evict the least recently used. Looks at EXPIRED_LOOKAHEAD entries at most.
   */
  #makeRoom(now: number): void {
    let freed = false;
    let entry = this.#head;
    for (let i = 0; i < EXPIRED_LOOKAHEAD && entry !== undefined; i++) {
      const next = entry.next;
      storeWork.examined++;
      if (entry.expires <= now) {
        this.#remove(entry);
        freed = true;
      }
      entry = next;
    }
    if (!freed) {
      this.#remove(this.#head!);
      this.#evictions++;
    }
  }

  /** Moves an entry to the tail of the recency list (a few pointer writes; nothing if it is there). */
  #use(entry: Entry): void {
    if (entry === this.#tail) return;
    this.#unlink(entry);
    this.#append(entry);
  }

  #append(entry: Entry): void {
    const tail = this.#tail;
    entry.prev = tail;
    if (tail === undefined) this.#head = entry;
    else tail.next = entry;
    this.#tail = entry;
  }

  #unlink(entry: Entry): void {
    const { prev, next } = entry;
    // The running sweep's next entry leaves its place: the sweep goes on from the one after it.
    if (entry === this.#cursor) this.#cursor = next;
    if (prev === undefined) this.#head = next;
    else prev.next = next;
    if (next === undefined) this.#tail = prev;
    else next.prev = prev;
    entry.prev = entry.next = undefined;
  }

  #remove(entry: Entry): void {
    this.#entries.delete(entry.id);
    this.#unlink(entry);
  }

  #startSweeper(): NodeJS.Timeout {
    const timer = setInterval(() => {
      // A sweep still running (a huge store, a short interval) goes on; no second one starts.
      if (this.#pending > 0) return;
      if (this.#entries.size === 0) return this.close();
      this.#cursor = this.#head;
      this.#pending = this.#entries.size;
      this.#sweepSlice();
    }, this.#sweepInterval);
    timer.unref();
    return timer;
  }

  /**
   * One slice of a sweep: looks at SWEEP_SLICE entries from the cursor, removes the expired ones,
   * and leaves the rest of the pass to the next turn of the event loop.
   */
  readonly #sweepSlice = (): void => {
    this.#slice = undefined;
    const now = Date.now();
    for (let n = 0; n < SWEEP_SLICE && this.#pending > 0; n++) {
      const entry = this.#cursor;
      if (entry === undefined) break;
      this.#cursor = entry.next;
      this.#pending--;
      storeWork.examined++;
      if (entry.expires <= now) this.#remove(entry);
    }
    if (this.#pending > 0 && this.#cursor !== undefined) {
      this.#slice = setImmediate(this.#sweepSlice);
      this.#slice.unref();
    } else {
      this.#endSweep();
      if (this.#entries.size === 0) this.close();
    }
  };

  #endSweep(): void {
    if (this.#slice !== undefined) clearImmediate(this.#slice);
    this.#slice = undefined;
    this.#cursor = undefined;
    this.#pending = 0;
  }
}
