/**
 * The plugin's options, checked once at registration and turned into the settings every request
 * reads (the cookie's attributes already written out).
 */
import { invalidOption } from './errors.ts';
import { MemoryStore } from './memory-store.ts';
import { type Signer, signer } from './signing.ts';
import { isStore, type SessionStore } from './store.ts';

/** The session cookie's attributes. */
export interface SessionCookieOptions {
  /** The cookie's name. Default: `sid`. */
  name?: string;
  /** Default: `/`. */
  path?: string;
  /** Default: none (the cookie goes back to the exact host that set it, not to its subdomains). */
  domain?: string;
  /** Keep the cookie from page scripts. Default: `true`. */
  httpOnly?: boolean;
  /** `true`, `false`, or `'auto'`: Secure when the request came over HTTPS (`req.secure`, which honours `trustProxy`). Default: `'auto'`. */
  secure?: boolean | 'auto';
  /** Default: `'lax'`. `'none'` needs `secure` (`true` or `'auto'`). `false` leaves the attribute out. */
  sameSite?: 'lax' | 'strict' | 'none' | false;
  /** CHIPS: a cookie partitioned by top-level site (needs `secure`). Default: `false`. */
  partitioned?: boolean;
}

/** Options of the {@link session} plugin. */
export interface SessionOptions {
  /**
   * The secret that signs session cookies, or a list: the first signs, every one verifies (to
   * rotate, put the new secret first and keep the old one after it until its cookies have
   * expired). Each at least 32 characters. `undefined` entries after the first are skipped (an
   * unset `OLD_SESSION_SECRET`).
   */
  secret: string | ReadonlyArray<string | undefined>;
  /** Where sessions live. Default: a new {@link MemoryStore}. */
  store?: SessionStore;
  /** Milliseconds without a request before a session dies. Default: 30 minutes. */
  idleTimeout?: number;
  /** Milliseconds after its creation a session dies, whatever the activity. Default: 24 hours. */
  absoluteTimeout?: number;
  /**
   * A session read but not changed is touched (its idle timer reset in the store) at most once
   * per this many milliseconds. Default: a tenth of `idleTimeout`.
   */
  touchAfter?: number;
  /** The cookie's attributes. */
  cookie?: SessionCookieOptions;
}

/** @internal What a request needs, computed once per server. */
export interface Settings {
  store: SessionStore;
  /** The store again when it is a MemoryStore (the class itself): the session then calls its synchronous forms. */
  memory: MemoryStore | undefined;
  /** Whether the plugin made the store (and so closes it). */
  ownStore: boolean;
  signer: Signer;
  idle: number;
  absolute: number;
  touchAfter: number;
  name: string;
  secure: boolean | 'auto';
  /** `name=` */
  head: string;
  /** The attributes but Expires and Max-Age (`; Path=/; HttpOnly; SameSite=Lax`), without and with Secure. */
  tail: [string, string];
  /** A whole Set-Cookie value that clears the cookie, without and with Secure. */
  clear: [string, string];
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MIN_SECRET = 32;

/** An attribute value without ";" or control characters (which would end or split the cookie). */
function plainAttribute(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 || c === 127 || c === 59) return false;
  }
  return true;
}

function duration(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) {
    throw invalidOption(`${name} must be a number of milliseconds, at least 1, e.g. ${fallback}; got ${String(value)}`);
  }
  return value;
}

/** @internal */
export function settingsOf(options: SessionOptions): Settings {
  if (!options || typeof options !== 'object') {
    throw invalidOption('session needs options: { secret: process.env.SESSION_SECRET } at least');
  }
  const list = typeof options.secret === 'string' || options.secret === undefined ? [options.secret] : [...options.secret];
  const secrets: string[] = [];
  list.forEach((secret, i) => {
    if (secret === undefined && i > 0) return;
    if (typeof secret !== 'string' || secret.length < MIN_SECRET) {
      const got = typeof secret === 'string' ? `${secret.length} characters` : String(secret);
      throw invalidOption(
        `session secret${list.length > 1 ? ` #${i + 1}` : ''} must be a string of at least ${MIN_SECRET} characters (got ${got}); ` +
          'make one with `openssl rand -base64 48` and keep it out of the source code',
      );
    }
    secrets.push(secret);
  });
  if (secrets.length === 0) {
    throw invalidOption(`session needs a secret of at least ${MIN_SECRET} characters (got an empty list); make one with \`openssl rand -base64 48\``);
  }

  const idle = duration('idleTimeout', options.idleTimeout, 30 * 60_000);
  const absolute = duration('absoluteTimeout', options.absoluteTimeout, 24 * 3600_000);
  const touchAfter = options.touchAfter === 0 ? 0 : duration('touchAfter', options.touchAfter, Math.floor(idle / 10));
  if (touchAfter >= idle) throw invalidOption(`touchAfter (${touchAfter} ms) must be shorter than idleTimeout (${idle} ms), e.g. a tenth of it`);

  let store = options.store;
  const ownStore = store === undefined;
  if (store === undefined) store = new MemoryStore();
  else if (!isStore(store)) {
    throw invalidOption('store must have get(id), set(id, record, ttlMs), touch(id, ttlMs) and destroy(id), each returning a promise');
  }

  const cookie = options.cookie ?? {};
  const name = cookie.name ?? 'sid';
  if (typeof name !== 'string' || !TOKEN.test(name)) throw invalidOption(`cookie.name must be a cookie name (letters, digits, !#$%&'*+-.^_\`|~); got ${JSON.stringify(name)}`);
  const path = cookie.path ?? '/';
  if (typeof path !== 'string' || !plainAttribute(path)) throw invalidOption(`cookie.path must be a path without ";" or control characters; got ${JSON.stringify(path)}`);
  const domain = cookie.domain;
  if (domain !== undefined && (typeof domain !== 'string' || domain === '' || !plainAttribute(domain))) {
    throw invalidOption(`cookie.domain must be a host name; got ${JSON.stringify(domain)}`);
  }
  const secure = cookie.secure ?? 'auto';
  if (secure !== true && secure !== false && secure !== 'auto') throw invalidOption(`cookie.secure must be true, false or 'auto'; got ${String(secure)}`);
  const sameSite = cookie.sameSite ?? 'lax';
  if (sameSite !== 'lax' && sameSite !== 'strict' && sameSite !== 'none' && sameSite !== false) {
    throw invalidOption(`cookie.sameSite must be 'lax', 'strict', 'none' or false; got ${String(sameSite)}`);
  }
  const partitioned = cookie.partitioned ?? false;
  if ((sameSite === 'none' || partitioned) && secure === false) {
    throw invalidOption(`cookie.${partitioned ? 'partitioned' : "sameSite: 'none'"} needs cookie.secure (true or 'auto'): browsers refuse it otherwise`);
  }

  let attributes = `; Path=${path}`;
  if (domain !== undefined) attributes += `; Domain=${domain}`;
  let flags = '';
  if (cookie.httpOnly ?? true) flags += '; HttpOnly';
  const after = `${sameSite === false ? '' : `; SameSite=${sameSite[0]!.toUpperCase()}${sameSite.slice(1)}`}${partitioned ? '; Partitioned' : ''}`;
  const tail: [string, string] = [`${flags}${after}`, `${flags}; Secure${after}`];
  const expired = `${name}=${attributes}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0`;
  return {
    store,
    memory: store instanceof MemoryStore && store.constructor === MemoryStore ? store : undefined,
    ownStore,
    signer: signer(secrets),
    idle,
    absolute,
    touchAfter,
    name,
    secure,
    head: `${name}=`,
    tail: [`${attributes}${tail[0]}`, `${attributes}${tail[1]}`],
    clear: [`${expired}${tail[0]}`, `${expired}${tail[1]}`],
  };
}
