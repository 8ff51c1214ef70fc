import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, dropKeys, listen, REDIS_URL, redisPrefix } from '@velox/test-utils';
import { afterAll } from 'vitest';
import { MemoryStore, RedisStore, type SessionOptions, type SessionStore, session } from '../src/index.ts';

export const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
export const OLD_SECRET = 'the-retired-secret-also-long-enough-9876543210';
/** Keys in the shared Redis get a random prefix per run (other helpers use it too). */
export const runPrefix = redisPrefix('velox-session-test');

// Leave nothing behind in the shared Redis: every key this run made starts with runPrefix.
afterAll(() => dropKeys(runPrefix));

/** A quiet server, closed after the test. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

let stores = 0;
/** The two stores every behaviour is tested with. */
export const storeKinds = [
  { kind: 'MemoryStore', make: (): SessionStore => new MemoryStore() },
  { kind: 'RedisStore', make: (): SessionStore => new RedisStore({ url: REDIS_URL, prefix: `${runPrefix}${++stores}:`, logger: false }) },
] as const;

/** A server with the session plugin on `store` and the usual routes for tests. */
export async function app(store: SessionStore, options: Partial<SessionOptions> = {}, serverOptions: ServerOptions = {}): Promise<{ app: Server; url: string }> {
  const a = server(serverOptions);
  await a.register(session, { secret: SECRET, store, ...options });
  a.get('/visits', async (req, res) => {
    await req.session.start();
    const visits = (Number(req.session.get('visits')) || 0) + 1;
    req.session.set('visits', visits);
    res.json({ visits, id: req.session.id, isNew: req.session.isNew });
  });
  a.get('/read', async (req, res) => {
    await req.session.start();
    res.json({ id: req.session.id, isNew: req.session.isNew, data: req.session.all() });
  });
  a.get('/none', (req, res) => res.send('no session here'));
  return { app: a, url: await listen(a) };
}

/** One answer: status, the body as JSON (or text), and the Set-Cookie lines. */
export interface Answer {
  status: number;
  body: any;
  cookies: string[];
  headers: Headers;
}

/** A fetch that keeps the session cookie like a browser would (one cookie, `sid` unless told). */
export class Browser {
  cookie: string | undefined;
  constructor(
    readonly base: string,
    readonly name = 'sid',
  ) {}

  async request(path: string, init: RequestInit = {}): Promise<Answer> {
    const headers = new Headers(init.headers);
    if (this.cookie !== undefined && !headers.has('cookie')) headers.set('cookie', `${this.name}=${this.cookie}`);
    const r = await fetch(this.base + path, { redirect: 'manual', ...init, headers });
    const text = await r.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    const cookies = r.headers.getSetCookie();
    for (const line of cookies) {
      const [pair, ...attributes] = line.split('; ');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (name !== this.name) continue;
      const maxAge = attributes.find((a) => a.startsWith('Max-Age='));
      this.cookie = maxAge === 'Max-Age=0' || value === '' ? undefined : value;
    }
    return { status: r.status, body, cookies, headers: r.headers };
  }

  get(path: string, init: RequestInit = {}): Promise<Answer> {
    return this.request(path, init);
  }

  post(path: string, init: RequestInit = {}): Promise<Answer> {
    return this.request(path, { method: 'POST', ...init });
  }
}

/** Counts every store call, and can be told to fail; wraps a MemoryStore (or any store). */
export class CountingStore implements SessionStore {
  calls: string[] = [];
  failing = false;
  constructor(readonly inner: SessionStore = new MemoryStore()) {}
  #call<T>(name: string, run: () => Promise<T>): Promise<T> {
    this.calls.push(name);
    if (this.failing) return Promise.reject(new Error(`${name}: the store is down`));
    return run();
  }
  get(id: string) {
    return this.#call('get', () => this.inner.get(id));
  }
  set(id: string, record: Parameters<SessionStore['set']>[1], ttl: number) {
    return this.#call('set', () => this.inner.set(id, record, ttl));
  }
  touch(id: string, ttl: number) {
    return this.#call('touch', () => this.inner.touch(id, ttl));
  }
  destroy(id: string) {
    return this.#call('destroy', () => this.inner.destroy(id));
  }
  // Not counted: connecting and closing the store it wraps.
  open(server: Server) {
    return this.inner.open?.(server);
  }
  close() {
    return this.inner.close?.();
  }
}

/** A promise and its resolver, to hold a handler until the test lets it go on. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

/**
 * A store with only the four required methods and no expiry of its own: whatever the server
 * asks to keep, it keeps. Shows that timeouts are the server's doing, from the record.
 */
export class ForeverStore implements SessionStore {
  readonly records = new Map<string, string>();
  async get(id: string) {
    const text = this.records.get(id);
    return text === undefined ? undefined : JSON.parse(text);
  }
  async set(id: string, record: Parameters<SessionStore['set']>[1]) {
    this.records.set(id, JSON.stringify(record));
  }
  async touch(id: string) {
    const text = this.records.get(id);
    if (text === undefined) return false;
    this.records.set(id, JSON.stringify({ ...JSON.parse(text), seen: Date.now() }));
    return true;
  }
  async destroy(id: string) {
    this.records.delete(id);
  }
}
