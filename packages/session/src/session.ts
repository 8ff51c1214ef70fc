/**
 * The per-request Session: made on the first read of `req.session`, it does nothing until
 * `start()`. Changes are tracked by key; the commit (a `res.beforeHead` task registered by
 * `start()`) writes them, or touches the session, and sets or clears the cookie before the
 * response's head goes out.
 */
import type { Request, Response } from '@velox/core';
import { SessionErrorCodes, storeError, usageError } from './errors.ts';
import type { Settings } from './options.ts';
import { newId, type Verified } from './signing.ts';
import { type Entry, JsonText, kCreate, kRead, kUpdate, storedValue, Values } from './memory-store.ts';
import { applyChange, type SessionChange, type SessionRecord } from './store.ts';

/**
 * The values a session holds, by key. Empty here: declare yours by augmenting it, and
 * `req.session.get('visits')` is typed.
 * @example
 * ```ts
 * declare module '@velox/session' {
 *   interface SessionData {
 *     visits: number;
 *     user: { id: string; name: string };
 *   }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by users through module augmentation
export interface SessionData {}

/** The type of a key's value: from {@link SessionData} when declared there, else `unknown`. */
export type SessionValue<K extends string> = K extends keyof SessionData ? SessionData[K] : unknown;

/** Several values at once, for `set(values)` and `all()`. */
export type SessionValues = Partial<SessionData> & Record<string, unknown>;

/** Options of {@link Session.regenerate}. */
export interface RegenerateOptions {
  /** Carry only these keys over to the new session. Default: all of them. */
  keep?: readonly string[];
}

const noop = () => {};
const RESOLVED = Promise.resolve();

// The Expires date of the last cookie, by second: responses within one second share it.
let expiresSecond = -1;
let expiresText = '';
function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== expiresSecond) {
    expiresSecond = second;
    expiresText = new Date(second * 1000).toUTCString();
  }
  return expiresText;
}

/** Copies a value in the way JSON would (what every store keeps); refuses what JSON cannot hold. */
function copy(key: string, value: unknown): unknown {
  let stored: unknown;
  try {
    stored = storedValue(value);
  } catch (cause) {
    throw usageError(SessionErrorCodes.INVALID_VALUE, `session value "${key}" cannot be stored as JSON: ${(cause as Error).message}`);
  }
  if (stored === undefined || (typeof value === 'object' && value instanceof JsonText)) {
    throw usageError(SessionErrorCodes.INVALID_VALUE, `session value "${key}" is a ${typeof value}, which JSON cannot hold; store strings, numbers, booleans, null, arrays and plain objects`);
  }
  return stored instanceof JsonText ? JSON.parse(stored.text) : stored;
}

/**
 * The session of one request, as `req.session`. Nothing happens (no cookie read, no store
 * access, no header) until `await req.session.start()`; after that, the changes are written and
 * the cookie set just before the response goes out, and the response waits for the store.
 *
 * @example
 * ```ts
 * app.get('/visits', async (req, res) => {
 *   await req.session.start();
 *   const visits = (req.session.get('visits') ?? 0) + 1;
 *   req.session.set('visits', visits);
 *   res.json({ visits });
 * });
 * ```
 */
export class Session {
  readonly #req: Request;
  readonly #settings: Settings;
  #starting: Promise<void> | undefined = undefined;
  #ready = false;
  #id = '';
  #isNew = true;
  #created = 0;
  /** The `seen` the store has (or will have once written). */
  #seen = 0;
  /** The values; on a MemoryStore, objects may still be the store's JSON text until read. */
  #data: Record<string, unknown> = new Values();
  /** True while #data is the MemoryStore's own record (never changed: copied before a change). */
  #shared = false;
  /** Keys set or deleted since the last write; null when none. */
  #changed: Set<string> | null = null;
  /** Whether the store has a record for the current id. */
  #stored = false;
  #touchWanted = false;
  /** The cookie the client sent, if any. */
  #cookie: string | undefined = undefined;
  /** The signed cookie value for the current id, once known. */
  #signed: string | undefined = undefined;
  /** A Set-Cookie for the current id is due. */
  #cookieDue = false;
  /** An expired record the client named, removed at commit. */
  #stale: string | undefined = undefined;
  /** save()s run one after another: the last one started, settled either way. */
  #writing: Promise<void> = RESOLVED;
  /** A save() is in progress (the commit waits for it). */
  #saving = false;

  /** @internal Made by `req.session`. */
  constructor(req: Request, settings: Settings) {
    this.#req = req;
    this.#settings = settings;
  }

  /** True once `start()` has loaded or begun the session. */
  get started(): boolean {
    return this.#ready;
  }

  /** The session id (22 characters, base64url). A new session has one before anything is stored. */
  get id(): string {
    this.#check();
    return this.#id;
  }

  /** True when this request began the session: there was no cookie, or it named no live session (or `destroy()` was called). */
  get isNew(): boolean {
    this.#check();
    return this.#isNew;
  }

  /**
   * Loads the session the cookie names, or begins a new one. A cookie whose signature fails begins
   * a new session without touching the store; an id the store does not know, or an expired
   * session, gets a fresh id. Calling it again returns the same promise. Rejects with 503
   * `VELOX_ERR_SESSION_STORE` when the store fails.
   * @example
   * ```ts
   * await req.session.start();
   * ```
   */
  start(): Promise<void> {
    return (this.#starting ??= this.#start());
  }

  /**
   * A value by key (the request's own copy), or `undefined`.
   * @example
   * ```ts
   * const user = req.session.get('user');
   * ```
   */
  get<K extends string>(key: K): SessionValue<K> | undefined {
    this.#check();
    const value = this.#data[key];
    if (value instanceof JsonText) {
      // Parsed on first read, into this request's own copy.
      const parsed = JSON.parse(value.text);
      this.#own()[key] = parsed;
      return parsed;
    }
    return value as SessionValue<K> | undefined;
  }

  /**
   * Sets a value, or several from an object. Values are copied as JSON at once (Dates become
   * strings, `undefined` properties go); `undefined` as a value deletes the key. Only the changed
   * keys are written, when the response goes out.
   * @example
   * ```ts
   * req.session.set('visits', 1);
   * req.session.set({ user: 'ana', role: 'admin' });
   * ```
   */
  set<K extends string>(key: K, value: SessionValue<K>): this;
  set(values: SessionValues): this;
  set(keyOrValues: string | SessionValues, value?: unknown): this {
    this.#check();
    if (typeof keyOrValues === 'string') this.#put(keyOrValues, value);
    else if (keyOrValues && typeof keyOrValues === 'object') {
      for (const key of Object.keys(keyOrValues)) this.#put(key, keyOrValues[key]);
    } else {
      throw usageError(SessionErrorCodes.INVALID_VALUE, 'set() takes a key and a value, or an object of values');
    }
    return this;
  }

  /**
   * Removes a key.
   * @example
   * ```ts
   * req.session.delete('cart');
   * ```
   */
  delete(key: string): this {
    this.#check();
    if (key in this.#data) {
      delete this.#own()[key];
      (this.#changed ??= new Set()).add(key);
    }
    return this;
  }

  /**
   * Every value, as a new object.
   * @example
   * ```ts
   * res.json(req.session.all());
   * ```
   */
  all(): SessionValues {
    this.#check();
    const data = this.#data;
    for (const key in data) if (data[key] instanceof JsonText) this.#own()[key] = JSON.parse((data[key] as JsonText).text);
    return { ...this.#data };
  }

  /**
   * Gives the session a new id (against fixation: call it when the user logs in or gains rights).
   * The old id is destroyed in the store at once, the data comes along (only the `keep` keys when
   * given), and the absolute timeout starts again. The new record is written when the response
   * goes out, with the new cookie.
   * @example
   * ```ts
   * await req.session.regenerate({ keep: ['cart'] });
   * req.session.set('user', 'ana');
   * ```
   */
  async regenerate(options: RegenerateOptions = {}): Promise<void> {
    this.#check();
    await this.#writing;
    if (this.#stored) await this.#destroyRecord(this.#id);
    const keep = options.keep;
    if (keep) {
      const data = new Values();
      for (const key of keep) if (key in this.#data) data[key] = this.#data[key];
      this.#data = data;
      this.#shared = false;
    }
    this.#id = newId();
    this.#created = this.#seen = Date.now();
    this.#stored = false;
    this.#signed = undefined;
    this.#cookieDue = false;
    this.#changed = null;
  }

  /**
   * Ends the session: its record is removed from the store at once, and the cookie is cleared when
   * the response goes out. The request goes on with a new, empty session, which is stored only if
   * something is set in it.
   * @example
   * ```ts
   * await req.session.destroy();
   * ```
   */
  async destroy(): Promise<void> {
    this.#check();
    await this.#writing;
    if (this.#stored) await this.#destroyRecord(this.#id);
    this.#begin(Date.now());
  }

  /**
   * Resets the idle timer when the response goes out, even if the session was touched less than
   * `touchAfter` ago (reads are otherwise touched at most once per `touchAfter`).
   * @example
   * ```ts
   * req.session.touch();
   * ```
   */
  touch(): this {
    this.#check();
    this.#touchWanted = true;
    return this;
  }

  /**
   * Writes the changes now instead of when the response goes out (before a long stream, say).
   * Rejects with 503 `VELOX_ERR_SESSION_STORE` when the store fails.
   * @example
   * ```ts
   * req.session.set('step', 2);
   * await req.session.save();
   * ```
   */
  save(): Promise<void> {
    this.#check();
    const run = this.#writing.then(() => this.#persist(true));
    const settled = run.then(noop, noop);
    this.#writing = settled;
    this.#saving = true;
    settled.then(() => {
      if (this.#writing === settled) this.#saving = false;
    });
    return run;
  }

  #start(): Promise<void> {
    try {
      const req = this.#req;
      const settings = this.#settings;
      if (settings.memory === undefined && settings.store.available?.() === false) {
        return Promise.reject(storeError(undefined, 'its connection is down'));
      }
      req.res.beforeHead(this.#commit);
      const raw = req.getCookie(settings.name);
      if (raw !== undefined) {
        this.#cookie = raw;
        const verified = settings.signer.verify(raw);
        if (verified !== undefined) {
          if (settings.memory === undefined) return this.#loadLater(verified);
          const now = Date.now();
          this.#loadEntry(verified, settings.memory[kRead](verified.id, now), now);
          return RESOLVED;
        }
      }
      this.#load(undefined, undefined);
      return RESOLVED;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async #loadLater(verified: Verified): Promise<void> {
    let record: SessionRecord | undefined;
    try {
      record = await this.#settings.store.get(verified.id);
    } catch (err) {
      throw storeError(err, 'loading the session');
    }
    this.#load(verified, record);
  }

  /** Takes the record the cookie's id named, if it is live; else begins a new session. */
  #load(verified: Verified | undefined, record: SessionRecord | undefined): void {
    const now = Date.now();
    if (verified !== undefined && record) {
      const { created, seen, data } = record;
      // A record without numeric times is not live (NaN fails both checks): it is dropped as stale.
      if (typeof created !== 'number' || typeof seen !== 'number') return this.#take(verified, Number.NaN, Number.NaN, new Values(), false, now);
      return this.#take(verified, created, seen, Object.assign(new Values(), data), false, now);
    }
    this.#take(verified, 0, 0, undefined, false, now);
  }

  /**
   * #load for a MemoryStore: its record's values are kept as they are (the store never changes
   * them in place), read lazily, and copied before the first change.
   */
  #loadEntry(verified: Verified, entry: Entry | undefined, now: number): void {
    if (entry !== undefined) this.#take(verified, entry.created, entry.seen, entry.values, true, now);
    else this.#take(verified, 0, 0, undefined, false, now);
  }

  /** The session the cookie named, if its record is there and live; else a new one. */
  #take(verified: Verified | undefined, created: number, seen: number, data: Record<string, unknown> | undefined, shared: boolean, now: number): void {
    const settings = this.#settings;
    if (verified !== undefined && data !== undefined) {
      if (now - seen < settings.idle && now - created < settings.absolute) {
        this.#id = verified.id;
        this.#created = created;
        this.#seen = seen;
        this.#data = data;
        this.#shared = shared;
        this.#isNew = false;
        this.#stored = true;
        // A cookie signed with a retired secret is signed again with the current one.
        if (verified.secret === 0) this.#signed = this.#cookie;
        else this.#cookieDue = true;
        this.#ready = true;
        return;
      }
      this.#stale = verified.id;
    }
    this.#begin(now);
    this.#ready = true;
  }

  /** The values, this request's own (copied from the store's record before the first change). */
  #own(): Record<string, unknown> {
    if (this.#shared) {
      this.#data = Object.assign(new Values(), this.#data);
      this.#shared = false;
    }
    return this.#data;
  }

  /** A new, empty session with a fresh id. */
  #begin(now: number): void {
    this.#id = newId();
    this.#created = this.#seen = now;
    this.#data = new Values();
    this.#shared = false;
    this.#changed = null;
    this.#isNew = true;
    this.#stored = false;
    this.#signed = undefined;
    this.#cookieDue = false;
  }

  /**
   * The beforeHead task: write what needs writing, then set or clear the cookie. Synchronous when
   * nothing is to be written, or when the store is a MemoryStore.
   */
  readonly #commit = (res: Response): Promise<void> | undefined => {
    if (!this.#ready) return undefined;
    if (this.#saving) {
      // Nothing writes after the commit, so it need not queue itself for later writers.
      return this.#writing.then(() => this.#persist(false)).then(() => this.#writeCookie(res));
    }
    if (this.#needsWrite()) {
      let pending: Promise<void> | undefined;
      try {
        pending = this.#persist(false);
      } catch (err) {
        return Promise.reject(err);
      }
      if (pending !== undefined) return pending.then(() => this.#writeCookie(res));
    }
    this.#writeCookie(res);
    return undefined;
  };

  #needsWrite(): boolean {
    if (this.#changed !== null || this.#touchWanted || this.#stale !== undefined) return true;
    if (!this.#stored) return hasKeys(this.#data);
    return Date.now() - this.#seen >= this.#settings.touchAfter;
  }

  /**
   * Writes what needs writing: through the store's promise (resolved once done), or at once on a
   * MemoryStore (undefined then). Store failures become 503 `VELOX_ERR_SESSION_STORE`.
   */
  #persist(saving: boolean): Promise<void> | undefined {
    const settings = this.#settings;
    const store = settings.store;
    const memory = settings.memory;
    const stale = this.#stale;
    if (stale !== undefined) {
      this.#stale = undefined;
      // An expired record: the store's own expiry removes it too, so a failure here changes nothing.
      RESOLVED.then(() => store.destroy(stale)).catch(noop);
    }
    const now = Date.now();
    const ttl = this.#expiresAt(now) - now;
    const id = this.#id;
    try {
      if (ttl <= 0) {
        // The absolute timeout passed during this request: the session ends here.
        if (this.#stored) return after(store.destroy(id), () => this.#begin(now));
        this.#begin(now);
      } else if (!this.#stored) {
        this.#changed = null;
        if (!hasKeys(this.#data)) return undefined; // an empty new session is not stored
        const stored = () => {
          this.#stored = true;
          this.#written(now, true);
        };
        if (memory === undefined) {
          const record: SessionRecord = { created: this.#created, seen: now, data: { ...this.#data } };
          return after(store.set(id, record, ttl), stored);
        }
        const values = new Values();
        const data = this.#data;
        for (const key in data) {
          const value = storedValue(data[key]);
          if (value !== undefined) values[key] = value;
        }
        memory[kCreate](id, values, this.#created, now, ttl, now);
        stored();
      } else if (this.#changed !== null) {
        const changed = this.#changed;
        this.#changed = null;
        // A change moves the idle timer as a read does: at most once per touchAfter (or when
        // touch() asked), so the cookie need not go out with every change.
        let seen = this.#seen;
        if (this.#touchWanted || now - seen >= settings.touchAfter || seen + settings.idle <= now) seen = now;
        this.#touchWanted = false;
        const left = this.#expiresAt(seen) - now;
        const data = this.#data;
        if (memory === undefined) {
          const change: SessionChange = { set: Object.create(null), delete: [], seen };
          for (const key of changed) {
            if (key in data) change.set[key] = data[key];
            else change.delete.push(key);
          }
          return after(applyChange(store, id, change, left), (ok) => this.#settled(ok, seen, now));
        }
        // The changed keys merged into the record as it is now (another request may have
        // changed other keys since this one read it), as one new set of values.
        this.#settled(memory[kUpdate](id, changed, data, seen, left, now), seen, now);
      } else if (this.#touchWanted || (!saving && now - this.#seen >= settings.touchAfter)) {
        this.#touchWanted = false;
        if (memory === undefined) return after(store.touch(id, ttl), (ok) => this.#settled(ok, now, now));
        this.#settled(memory.touchSync(id, ttl), now, now);
      }
      return undefined;
    } catch (err) {
      throw storeError(err, 'writing the session');
    }
  }

  /**
   * The store has the record with `seen` as its last use. The cookie goes out again when the
   * record is new or its `seen` moved (its expiry with it): on a session written on every
   * request, once per `touchAfter`, not on every response.
   */
  #written(seen: number, fresh: boolean): void {
    if (fresh || seen !== this.#seen) this.#cookieDue = true;
    this.#seen = seen;
  }

  /** An update or touch answered `ok`: `false` means the record was gone (destroyed meanwhile). */
  #settled(ok: unknown, seen: number, now: number): void {
    if (ok === false) this.#gone(now);
    else this.#written(seen, false);
  }

  /** When the session, and so its cookie, expires if it is not used again after `seen`. */
  #expiresAt(seen: number): number {
    const settings = this.#settings;
    return Math.min(seen + settings.idle, this.#created + settings.absolute);
  }

  /** The record vanished under us (destroyed by another request): this request's changes go with it. */
  #gone(now: number): void {
    this.#begin(now);
  }

  async #destroyRecord(id: string): Promise<void> {
    try {
      await this.#settings.store.destroy(id);
    } catch (err) {
      throw storeError(err, 'destroying the session');
    }
    this.#stored = false;
  }

  #secure(): 0 | 1 {
    const secure = this.#settings.secure;
    return (secure === 'auto' ? this.#req.secure : secure) ? 1 : 0;
  }

  #writeCookie(res: Response): void {
    const settings = this.#settings;
    if (this.#cookieDue && this.#stored) {
      this.#cookieDue = false;
      const secure = this.#secure();
      const expires = this.#expiresAt(this.#seen);
      const maxAge = Math.max(1, Math.ceil((expires - Date.now()) / 1000));
      const value = (this.#signed ??= settings.signer.sign(this.#id));
      res.append('set-cookie', `${settings.head}${value}${settings.tail[secure]}; Expires=${httpDate(expires)}; Max-Age=${maxAge}`);
    } else if (!this.#stored && this.#cookie !== undefined) {
      // The client named a session that is not (or no longer) there.
      this.#cookie = undefined;
      res.append('set-cookie', settings.clear[this.#secure()]);
    }
  }

  #put(key: string, value: unknown): void {
    if (typeof key !== 'string' || key === '') throw usageError(SessionErrorCodes.INVALID_VALUE, 'session keys are non-empty strings');
    if (value === undefined) {
      this.delete(key);
      return;
    }
    this.#own()[key] = copy(key, value);
    (this.#changed ??= new Set()).add(key);
  }

  #check(): void {
    if (!this.#ready) {
      throw usageError(SessionErrorCodes.NOT_STARTED, 'Use the session after `await req.session.start()`');
    }
  }
}

/** Runs `then` with what a store's promise resolved to; its rejection becomes a store error. */
function after<T>(pending: Promise<T>, then: (value: T) => void): Promise<void> {
  return pending.then(then, (err) => {
    throw storeError(err, 'writing the session');
  });
}

function hasKeys(data: Record<string, unknown>): boolean {
  for (const _ in data) return true;
  return false;
}
