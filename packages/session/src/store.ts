/**
 * The store contract: what a session store must do, and the optional methods the package uses
 * when a store has them. See the README's "Writing a store" for a PostgreSQL example.
 */
import type { Server } from '@velox/core';

/**
 * One session as a store keeps it. `data` holds JSON values only (what `JSON.stringify` keeps):
 * a store may serialize it as it likes, and must hand out a copy from `get()`, never an object it
 * keeps (requests change what they get).
 */
export interface SessionRecord {
  /** When the session began, in ms since the epoch: the absolute timeout counts from here. */
  created: number;
  /** When it was last written or touched, in ms since the epoch: the idle timeout counts from here. */
  seen: number;
  /** The values, by key. */
  data: Record<string, unknown>;
}

/** The keys one request changed, for {@link SessionStore.update}. */
export interface SessionChange {
  /** Keys to write, with their new (JSON) values. */
  set: Record<string, unknown>;
  /** Keys to remove. */
  delete: string[];
  /** The new `seen` of the record. */
  seen: number;
}

/**
 * A session store. Four methods are required; a store with only those works (changes are then
 * written as a read, a merge and a whole-record write, which a concurrent `destroy()` can race).
 * The optional ones make it better: `update()` writes only the changed keys, atomically and only
 * while the record exists, which is what keeps concurrent changes to different keys and keeps a
 * destroyed session destroyed.
 *
 * Every method returns a promise; a rejection answers the request with 503
 * `VELOX_ERR_SESSION_STORE`. Times are in milliseconds.
 *
 * @example
 * ```ts
 * // A store on a Map (for tests): MemoryStore does this, with copies, a sweeper and a cap.
 * const map = new Map<string, { record: string; expires: number }>();
 * const store: SessionStore = {
 *   async get(id) {
 *     const hit = map.get(id);
 *     return hit && hit.expires > Date.now() ? JSON.parse(hit.record) : undefined;
 *   },
 *   async set(id, record, ttlMs) {
 *     map.set(id, { record: JSON.stringify(record), expires: Date.now() + ttlMs });
 *   },
 *   async touch(id, ttlMs) {
 *     const hit = map.get(id);
 *     if (!hit) return false;
 *     const record = JSON.parse(hit.record);
 *     record.seen = Date.now();
 *     map.set(id, { record: JSON.stringify(record), expires: Date.now() + ttlMs });
 *     return true;
 *   },
 *   async destroy(id) {
 *     map.delete(id);
 *   },
 * };
 * ```
 */
export interface SessionStore {
  /** The record of a session, or `undefined` when there is none (or it expired). */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Stores a whole record (a new session, or one with a new id), replacing any; it expires in `ttlMs`. */
  set(id: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /**
   * The session was used now: if the record exists, set its `seen` to `Date.now()` and its
   * expiry to `ttlMs` from now. May resolve `false` when there was no record (the session was
   * destroyed meanwhile); the cookie is cleared then.
   */
  touch(id: string, ttlMs: number): Promise<unknown>;
  /** Removes a record (nothing happens if there is none). */
  destroy(id: string): Promise<void>;
  /**
   * Optional: applies one request's changes to the record as it is now (write `change.set`'s
   * keys, remove `change.delete`'s, set `seen`, expire in `ttlMs`), atomically, and only if the
   * record exists; resolves whether it did. Without it, the package reads, merges and `set()`s.
   */
  update?(id: string, change: SessionChange, ttlMs: number): Promise<boolean>;
  /**
   * Optional: false while the store is known to be unreachable (its connection is down, at
   * start-up or in an outage). `start()` then answers 503 `VELOX_ERR_SESSION_STORE` at once,
   * for new visitors too, instead of beginning a session that could not be saved.
   */
  available?(): boolean;
  /** Optional: called when the plugin is registered (connect here); `listen()` waits for it. */
  open?(server: Server): Promise<void> | void;
  /** Optional: called when the server closes (disconnect, stop timers here). */
  close?(): Promise<void> | void;
}

/** Applies a change with the store's update(), or by get, merge and set. */
export function applyChange(store: SessionStore, id: string, change: SessionChange, ttlMs: number): Promise<boolean> {
  return typeof store.update === 'function' ? store.update(id, change, ttlMs) : mergeAndSet(store, id, change, ttlMs);
}

async function mergeAndSet(store: SessionStore, id: string, change: SessionChange, ttlMs: number): Promise<boolean> {
  const current = await store.get(id);
  if (!current) return false;
  const data: Record<string, unknown> = Object.assign(Object.create(null), current.data);
  for (const key of change.delete) delete data[key];
  Object.assign(data, change.set);
  await store.set(id, { created: current.created, seen: change.seen, data }, ttlMs);
  return true;
}

/** Whether a value has the four required methods. */
export function isStore(value: unknown): value is SessionStore {
  const store = value as Partial<SessionStore> | null;
  return (
    !!store &&
    typeof store.get === 'function' &&
    typeof store.set === 'function' &&
    typeof store.touch === 'function' &&
    typeof store.destroy === 'function'
  );
}
