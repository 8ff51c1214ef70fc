/**
 * serveStatic: a directory mounted as native uWS routes (`GET <prefix>/*`, and its HEAD twin).
 * Each request looks its path up in an index of the directory; a path not in the index is
 * never opened. Files up to `maxFileSize` are read once and kept (least recently used out
 * first, within `maxSize`) with their response head prebuilt; bigger files stream from disk.
 */
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import { fileContentType, type Mountable, type Request, type Response, type Server } from '@velox/core';
import { ByteLru, type Cached } from './cache.ts';
import { acceptedCodings, CODINGS, type Coding, compress, isCompressible, SIBLING_SUFFIX } from './compress.ts';
import { Directory, type DotfilesPolicy, type FileRecord, type SymlinkPolicy } from './directory.ts';
import { invalidOption, StaticErrorCodes, staticError } from './errors.ts';
import { readSettled } from './file-read.ts';
import {
  cacheControlOf,
  diskData,
  FileData,
  hasDotSegment,
  type Negotiable,
  type Representation,
  representation,
  type SendConfig,
  type SetHeaders,
  send,
  strongEtag,
} from './send.ts';

/** Options of {@link serveStatic}. */
export interface ServeStaticOptions {
  /** Follow the directory with a watcher (chokidar): added, changed and deleted files show at once. `false` serves the files found at start. Default: `true`. */
  watch?: boolean;
  /** Files kept in memory: each up to `maxFileSize` bytes (default 512 KiB), all within `maxSize` bytes (default 64 MiB). `false` keeps nothing (every file streams from disk). */
  cache?: { maxFileSize?: number; maxSize?: number } | false;
  /** Send ETag and honour If-None-Match / If-Match. Default: `true`. */
  etag?: boolean;
  /** Send Last-Modified and honour If-Modified-Since / If-Unmodified-Since. Default: `true`. */
  lastModified?: boolean;
  /** Cache-Control max-age, in milliseconds. Default: `0`. */
  maxAge?: number;
  /** Add `immutable` to Cache-Control (for fingerprinted file names). Default: `false`. */
  immutable?: boolean;
  /** Send Cache-Control at all. Default: `true`. */
  cacheControl?: boolean;
  /** The file a directory path (ending in `/`) serves; a list is tried in order; `false` for none. Default: `'index.html'`. */
  index?: string | string[] | false;
  /** Paths with a segment starting with `.`: `'ignore'` (as if absent), `'deny'` (403) or `'allow'`. Default: `'ignore'`. */
  dotfiles?: DotfilesPolicy;
  /** Serve `x.br` / `x.zst` / `x.gz` beside `x` to clients that accept br / zstd / gzip (`.zst` only on a Node with zstd, 22.15 and later). Default: `true`. */
  precompressed?: boolean;
  /** Compress compressible files (text, JSON, JS, SVG…) above `threshold` bytes (default 1024) with br, zstd (on a Node that has it) or gzip once, and keep the result. Default: `true`. */
  compress?: boolean | { threshold?: number };
  /** A path with no file goes on to the not-found handler (`app.notFound()`); `false` answers 404 (`VELOX_ERR_STATIC_NOT_FOUND`) here. Default: `true`. */
  fallthrough?: boolean;
  /** Answer Range requests and send `Accept-Ranges: bytes`. Default: `true`. */
  acceptRanges?: boolean;
  /** Symlinks: `'inside'` follows those whose real path stays inside the root, `'follow'` follows all, `'ignore'` serves none. Default: `'inside'`. */
  symlinks?: SymlinkPolicy;
  /** Milliseconds a file must stay unchanged before it is served after a change (a file being written is never served half-written). Default: `200`. */
  settleTime?: number;
  /** Called for each file response; may set headers (then that response is built the normal way, not from the prebuilt head). Default: none. */
  setHeaders?: SetHeaders;
}

/**
 * What {@link serveStatic} returns: `app.use(prefix, it)` mounts it.
 * @example
 * ```ts
 * const assets = serveStatic('./public');
 * app.use('/assets', assets);
 * await assets.ready();
 * assets.on('error', (err) => console.error(err));
 * ```
 */
export interface ServeStatic extends Mountable {
  /** Resolves once the directory is indexed (and watched); rejects if the root cannot be read. */
  ready(): Promise<void>;
  /** Stops watching and drops the cache. `app.close()` calls it. */
  close(): Promise<void>;
  /** Listens for errors of the watcher (`VELOX_ERR_STATIC_WATCH_FAILED`); without a listener they are logged with `console.error`. */
  on(event: 'error', listener: (err: Error) => void): this;
  /** Files indexed, and bytes and files held in memory. */
  stats(): { files: number; cachedFiles: number; cachedBytes: number };
}

const enum Kind {
  File = 0,
  Redirect = 1,
}

/** Bytes in memory, in the LRU list. */
class CachedData extends FileData implements Cached {
  bytes: number;
  lruPrev: Cached | null = null;
  lruNext: Cached | null = null;
  inLru = false;

  constructor(path: string, body: Buffer, mtimeMs: number, etag: string) {
    super(path, body.length, mtimeMs, etag, body);
    this.bytes = body.length;
  }

  evict(): void {
    this.body = undefined;
    this.chunk = undefined;
  }
}

/** A directory path without its slash: redirects to the slash form. */
interface RedirectEntry {
  readonly kind: Kind.Redirect;
  /** The directory's last segment. */
  readonly name: string;
}

/** One indexed file: what it is, and the forms of it in memory. */
class Entry implements Negotiable {
  readonly kind = Kind.File;
  readonly record: FileRecord;
  readonly type: string;
  /** The file's own bytes; undefined until first read for a file that is kept in memory. */
  identity: Representation | undefined;
  cachable: boolean;
  /** True when Accept-Encoding is worth reading for this file. */
  readonly negotiable: boolean;
  readonly compressible: boolean;
  stale = false;
  loading: Promise<void> | undefined;
  /** Forms compressed here, by coding: null when compressing did not make it smaller. */
  compressed: { [C in Coding]?: Representation | null } = {};
  /** The precompressed siblings in the index (`x.br` beside `x`), kept current as files come and go. */
  readonly siblingFiles: { [C in Coding]?: Entry } = {};
  /** How many of {@link siblingFiles} are set: a file without siblings skips looking for one to read. */
  siblingCount = 0;
  /** The representations made from the siblings' bytes, by coding. */
  readonly siblingReps: { [C in Coding]?: Representation } = {};
  readonly #owner: StaticFiles;

  constructor(owner: StaticFiles, record: FileRecord) {
    this.#owner = owner;
    this.record = record;
    this.type = fileContentType(record.rel) ?? 'application/octet-stream';
    const size = record.stats.size;
    this.cachable = size <= owner.maxFileSize;
    this.compressible = owner.compressThreshold >= 0 && this.cachable && size > owner.compressThreshold && isCompressible(this.type);
    this.negotiable = owner.precompressed || this.compressible;
    this.identity = this.cachable ? undefined : representation(diskData(record.path, record.stats), this.type);
  }

  pick(accept: string): Representation {
    const codings = acceptedCodings(accept);
    for (let i = 0; i < codings.length; i++) {
      const rep = this.#variant(codings[i]!);
      if (rep !== undefined) return rep;
    }
    return this.identity!;
  }

  /**
   * The precompressed sibling that the answer for `accept` would be made from but that is not in
   * memory (never read, or pushed out of the cache): it is read before answering, so that no
   * answer (the first one, which a CDN keeps, least of all) goes out as identity bytes for want of it.
   */
  unreadSibling(accept: string): Entry | undefined {
    const codings = acceptedCodings(accept);
    for (let i = 0; i < codings.length; i++) {
      const coding = codings[i]!;
      const sibling = this.siblingFiles[coding];
      if (sibling !== undefined) return sibling.cachable && sibling.identity?.data.chunk === undefined ? sibling : undefined;
      // No sibling for this coding: a form compressed here is the answer if it is ready, else the next coding is.
      const rep = this.compressed[coding];
      if (rep != null && rep.data.chunk !== undefined) return undefined;
    }
    return undefined;
  }

  /** Sets or clears the sibling for a coding. */
  link(coding: Coding, sibling: Entry | undefined): void {
    const had = this.siblingFiles[coding] !== undefined;
    if (sibling === undefined) delete this.siblingFiles[coding];
    else this.siblingFiles[coding] = sibling;
    this.siblingCount += (sibling === undefined ? 0 : 1) - (had ? 1 : 0);
  }

  #variant(coding: Coding): Representation | undefined {
    const owner = this.#owner;
    const sibling = this.siblingFiles[coding];
    if (sibling !== undefined) {
      const data = sibling.identity?.data;
      if (data !== undefined && (data.chunk !== undefined || !sibling.cachable)) {
        if (data.chunk !== undefined) owner.touch(data as CachedData);
        let rep = this.siblingReps[coding];
        if (rep === undefined || rep.data !== data) rep = this.siblingReps[coding] = representation(data, this.type, coding);
        return rep;
      }
      // Only when its read failed or it was pushed out since: read it for the next request.
      owner.load(sibling).catch(() => {});
    }
    if (this.compressible) {
      const rep = this.compressed[coding];
      if (rep === null) return undefined; // compressing did not make it smaller
      if (rep !== undefined && rep.data.chunk !== undefined) {
        owner.touch(rep.data as CachedData);
        return rep;
      }
      const body = this.identity?.data.body;
      if (body !== undefined && (rep === undefined || rep.data !== EMPTY)) this.#compress(coding, body, this.identity!.data);
    }
    return undefined;
  }

  #compress(coding: Coding, body: Buffer, from: FileData): void {
    this.compressed[coding] = representation(EMPTY, this.type, coding); // in progress
    compress(body, coding).then(
      (out) => {
        if (this.stale || this.identity?.data.etag !== from.etag) return void delete this.compressed[coding];
        if (out.length >= body.length) return void (this.compressed[coding] = null);
        const own = Buffer.from(new ArrayBuffer(out.length));
        out.copy(own);
        const data = new CachedData('', own, from.mtimeMs, `${from.etag.slice(0, -1)}-${coding}"`);
        this.compressed[coding] = representation(data, this.type, coding);
        this.#owner.cache(data);
      },
      () => void delete this.compressed[coding],
    );
  }

  /** Takes every form of this file out of memory (it changed or went away). */
  drop(): void {
    this.stale = true;
    const owner = this.#owner;
    if (this.identity?.data instanceof CachedData) owner.uncache(this.identity.data);
    for (const coding of CODINGS) {
      const rep = this.compressed[coding];
      if (rep && rep.data instanceof CachedData) owner.uncache(rep.data);
    }
  }
}

/** Placeholder data for a compressed form being made (never sent: its chunk is undefined). */
const EMPTY = new FileData('', 0, 0, '');

/** The mounted directory. */
class StaticFiles implements ServeStatic {
  readonly maxFileSize: number;
  readonly compressThreshold: number;
  readonly precompressed: boolean;
  readonly #config: SendConfig;
  readonly #indexNames: string[];
  readonly #dotfiles: DotfilesPolicy;
  readonly #fallthrough: boolean;
  readonly #lru: ByteLru;
  readonly #entries = new Map<string, Entry | RedirectEntry>();
  readonly #dir: Directory;
  readonly #servers = new WeakSet<Server>();
  readonly #errorListeners: Array<(err: Error) => void> = [];
  #indexed = false;
  #ready: Promise<void>;

  constructor(root: string, options: ServeStaticOptions) {
    const o = checkOptions(root, options);
    const cache = options.cache === false ? { maxFileSize: -1, maxSize: 0 } : (options.cache ?? {});
    this.maxFileSize = cache.maxFileSize ?? 512 * 1024;
    this.#lru = new ByteLru(cache.maxSize ?? 64 * 1024 * 1024);
    const compressOption = options.compress ?? true;
    this.compressThreshold = compressOption === false ? -1 : compressOption === true ? 1024 : (compressOption.threshold ?? 1024);
    this.precompressed = options.precompressed ?? true;
    this.#config = {
      etag: options.etag ?? true,
      lastModified: options.lastModified ?? true,
      cacheControl: options.cacheControl === false ? undefined : cacheControlOf(options.maxAge ?? 0, options.immutable ?? false),
      acceptRanges: options.acceptRanges ?? true,
      vary: this.precompressed || this.compressThreshold >= 0,
      setHeaders: options.setHeaders,
      settleTime: o.settleTime,
    };
    const index = options.index ?? 'index.html';
    this.#indexNames = index === false ? [] : ([] as string[]).concat(index);
    this.#dotfiles = options.dotfiles ?? 'ignore';
    this.#fallthrough = options.fallthrough ?? true;
    this.#dir = new Directory(
      o.root,
      { dotfiles: this.#dotfiles, symlinks: options.symlinks ?? 'inside', watch: options.watch ?? true, settleTime: o.settleTime },
      {
        onAdd: (record) => this.#put(record),
        onChange: (record) => this.#put(record),
        onDelete: (previous) => this.#remove(previous),
        onError: (err) => this.#emitError(err),
      },
    );
    this.#ready = this.#dir.ready.then(() => {
      this.#indexed = true;
    });
    this.#ready.catch(() => {});
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  async close(): Promise<void> {
    await this.#dir.close();
    this.#lru.clear();
  }

  on(event: 'error', listener: (err: Error) => void): this {
    if (event !== 'error') throw invalidOption(`serveStatic emits only 'error', not ${JSON.stringify(event)}`);
    this.#errorListeners.push(listener);
    return this;
  }

  stats(): { files: number; cachedFiles: number; cachedBytes: number } {
    return { files: this.#dir.records.size, cachedFiles: this.#lru.count, cachedBytes: this.#lru.bytes };
  }

  mount(server: Server, prefix: string): void {
    if (prefix.includes(':')) throw invalidOption(`serveStatic mounts under a fixed prefix, not a pattern with parameters: ${prefix}`);
    server.addRoute({ method: 'GET', path: `${prefix}/*`, handlers: [this.#handle] });
    if (prefix !== '' && this.#indexNames.length > 0 && !server.routes().some((r) => r.method === 'GET' && r.path === prefix)) {
      const name = prefix.slice(prefix.lastIndexOf('/') + 1);
      // Strict: `<prefix>/` belongs to the wildcard route above, not to a trailing-slash twin of this redirect.
      server.addRoute({ method: 'GET', path: prefix, strict: true, handlers: [(req: Request, res: Response) => this.#root(req, res, name)] });
    }
    if (!this.#servers.has(server)) {
      this.#servers.add(server);
      server.addHook('onClose', () => this.close());
    }
  }

  /** @internal */
  entryOf(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    return entry !== undefined && entry.kind === Kind.File && entry.record.rel === key ? entry : undefined;
  }

  /** @internal */
  touch(data: CachedData): void {
    this.#lru.touch(data);
  }

  /** @internal */
  cache(data: CachedData): void {
    this.#lru.add(data);
  }

  /** @internal */
  uncache(data: CachedData): void {
    this.#lru.remove(data);
  }

  /** @internal Reads a file into memory (once, however many requests wait for it). */
  load(entry: Entry): Promise<void> {
    return (entry.loading ??= this.#read(entry).finally(() => {
      entry.loading = undefined;
    }));
  }

  async #read(entry: Entry): Promise<void> {
    const read = await readSettled(entry.record.path, this.#config.settleTime, this.maxFileSize);
    if (read === undefined) {
      // It grew past maxFileSize: stream it (the watcher's event will describe it anew).
      entry.cachable = false;
      entry.identity = representation(diskData(entry.record.path, entry.record.stats), entry.type);
      return;
    }
    const data = new CachedData(entry.record.path, read.body, read.stats.mtimeMs, strongEtag(read.body));
    const before = entry.identity?.data;
    entry.identity = representation(data, entry.type);
    if (before === undefined || before.etag !== data.etag) {
      // Other bytes than the compressed forms were made from: drop those.
      for (const coding of CODINGS) {
        const rep = entry.compressed[coding];
        if (rep && rep.data instanceof CachedData) this.#lru.remove(rep.data);
      }
      entry.compressed = {};
    }
    if (!entry.stale) this.#lru.add(data);
  }

  // The route's handler. It takes no `next` (core then allocates none per request): a miss goes
  // to the not-found handler through server.notFound(), errors are thrown or rejected.
  readonly #handle = (req: Request, res: Response): void | Promise<void> => {
    if (!this.#indexed) return this.#ready.then(() => this.#handle(req, res));
    const key = req.params['*']!;
    const entry = this.#entries.get(key);
    if (entry === undefined) return this.#miss(req, res, key);
    if (entry.kind !== Kind.File) return this.#redirect(req, res, entry.name);
    const identity = entry.identity;
    const sibling = entry.siblingCount === 0 ? undefined : this.#unreadSibling(req, entry);
    if (identity === undefined || (entry.cachable && identity.data.chunk === undefined) || sibling !== undefined) {
      return this.#loadThenSend(req, res, entry, sibling);
    }
    if (identity.data.chunk !== undefined) this.#lru.touch(identity.data as CachedData);
    return send(req, res, identity, entry.negotiable ? entry : undefined, this.#config, entry.record.stats);
  };

  /** The sibling to read before answering this request, if its answer is to come from one not in memory. */
  #unreadSibling(req: Request, entry: Entry): Entry | undefined {
    // As in send(): a Range request gets the identity bytes, and no Accept-Encoding means identity.
    if (this.#config.acceptRanges && req.firstHeader('range') !== '') return undefined;
    const accept = req.firstHeader('accept-encoding');
    return accept === '' ? undefined : entry.unreadSibling(accept);
  }

  async #loadThenSend(req: Request, res: Response, entry: Entry, sibling: Entry | undefined): Promise<void> {
    const identity = entry.identity;
    const own = identity === undefined || (entry.cachable && identity.data.chunk === undefined) ? this.load(entry) : undefined;
    // A sibling that cannot be read (gone, or still being written) leaves the answer to the next
    // coding or the identity bytes, as if it were not there; the file's own read decides the rest.
    await Promise.all([own, sibling === undefined ? undefined : this.load(sibling).catch(() => {})]);
    // Room made in the cache for the file's bytes may have pushed the sibling out: one more look.
    const again = entry.siblingCount === 0 ? undefined : this.#unreadSibling(req, entry);
    if (again !== undefined) await this.load(again).catch(() => {});
    if (res.aborted) return;
    await send(req, res, entry.identity!, entry.negotiable ? entry : undefined, this.#config, entry.record.stats);
  }

  #miss(req: Request, res: Response, key: string): void {
    if (this.#dotfiles === 'deny' && hasDotSegment(key)) throw staticError(StaticErrorCodes.FORBIDDEN, 'Forbidden', 403);
    if (!this.#fallthrough) throw staticError(StaticErrorCodes.NOT_FOUND, 'Not Found', 404);
    req.server.notFound(req, res);
  }

  /** A directory without its trailing slash: a relative redirect (never to `//host`). */
  #redirect(req: Request, res: Response, name: string): void {
    const query = req.rawQuery;
    res.redirect(301, `./${encodeURIComponent(name)}/${query === '' ? '' : `?${query}`}`);
  }

  /** `GET <prefix>` without the slash. */
  #root(req: Request, res: Response, name: string): void | Promise<void> {
    if (!this.#indexed) return this.#ready.then(() => this.#root(req, res, name));
    if (this.#entries.has('')) return this.#redirect(req, res, name);
    return this.#miss(req, res, '');
  }

  #put(record: FileRecord): void {
    const old = this.#entries.get(record.rel);
    const entry = new Entry(this, record);
    if (old !== undefined && old.kind === Kind.File) old.drop();
    this.#entries.set(record.rel, entry);
    if (this.precompressed) this.#linkSiblings(entry, entry);
    this.#indexDir(record.rel);
  }

  #remove(record: FileRecord): void {
    const old = this.#entries.get(record.rel);
    if (old !== undefined && old.kind === Kind.File && old.record.rel === record.rel) {
      old.drop();
      this.#entries.delete(record.rel);
      if (this.precompressed) this.#linkSiblings(old, undefined);
    }
    this.#indexDir(record.rel);
  }

  /**
   * Keeps the sibling index current: `entry` (now `present`, or gone when undefined) is linked to
   * the file it is a compressed sibling of (`x` for `x.br`), and, when present, to its own siblings.
   * Only the codings this Node can serve are linked (a `.zst` sibling on a Node without zstd is
   * served only as a file of its own).
   */
  #linkSiblings(entry: Entry, present: Entry | undefined): void {
    const rel = entry.record.rel;
    for (const coding of CODINGS) {
      const suffix = SIBLING_SUFFIX[coding];
      if (rel.length > suffix.length && rel.endsWith(suffix)) {
        const base = this.entryOf(rel.slice(0, -suffix.length));
        if (base !== undefined && (present !== undefined || base.siblingFiles[coding] === entry)) base.link(coding, present);
      }
      if (present !== undefined) present.link(coding, this.entryOf(rel + suffix));
    }
  }

  /** Keeps `dir/` (and `dir` → redirect) pointing at the directory's index file, if it has one. */
  #indexDir(rel: string): void {
    if (this.#indexNames.length === 0) return;
    const slash = rel.lastIndexOf('/');
    const base = rel.slice(slash + 1);
    if (!this.#indexNames.includes(base)) return;
    const dir = slash < 0 ? '' : rel.slice(0, slash);
    const prefix = dir === '' ? '' : `${dir}/`;
    let found: Entry | undefined;
    for (const name of this.#indexNames) {
      found = this.entryOf(`${prefix}${name}`);
      if (found) break;
    }
    if (found) {
      this.#entries.set(prefix, found);
      if (dir !== '' && this.entryOf(dir) === undefined) this.#entries.set(dir, { kind: Kind.Redirect, name: dir.slice(dir.lastIndexOf('/') + 1) });
    } else {
      this.#entries.delete(prefix);
      const at = this.#entries.get(dir);
      if (dir !== '' && at !== undefined && at.kind === Kind.Redirect) this.#entries.delete(dir);
    }
  }

  #emitError(err: Error): void {
    if (this.#errorListeners.length === 0) console.error(err);
    for (const listener of this.#errorListeners) listener(err);
  }
}

function checkOptions(root: string, options: ServeStaticOptions): { root: string; settleTime: number } {
  if (typeof root !== 'string' || root === '') throw invalidOption('serveStatic(root) needs the directory to serve, e.g. serveStatic("./public")');
  if (options === null || typeof options !== 'object') throw invalidOption('serveStatic options must be an object');
  const full = resolve(root);
  let isDir = false;
  try {
    isDir = statSync(full).isDirectory();
  } catch {}
  if (!isDir) throw invalidOption(`serveStatic root ${full} is not a readable directory`);
  const cache = options.cache;
  if (cache !== undefined && cache !== false) {
    const { maxFileSize = 512 * 1024, maxSize = 64 * 1024 * 1024 } = cache;
    if (!Number.isInteger(maxSize) || maxSize < 0) throw invalidOption(`cache.maxSize must be a whole number of bytes, e.g. 67108864 for 64 MiB; got ${maxSize}`);
    if (!Number.isInteger(maxFileSize) || maxFileSize < 0) throw invalidOption(`cache.maxFileSize must be a whole number of bytes; got ${maxFileSize}`);
    if (maxFileSize > maxSize) throw invalidOption(`cache.maxFileSize (${maxFileSize}) cannot be larger than cache.maxSize (${maxSize})`);
  }
  if (options.maxAge !== undefined && !(typeof options.maxAge === 'number' && options.maxAge >= 0)) {
    throw invalidOption(`maxAge is in milliseconds (a number >= 0), e.g. 86_400_000 for a day; got ${String(options.maxAge)}`);
  }
  for (const [name, allowed] of [
    ['dotfiles', ['ignore', 'deny', 'allow']],
    ['symlinks', ['inside', 'follow', 'ignore']],
  ] as const) {
    const value = options[name];
    if (value !== undefined && !(allowed as readonly string[]).includes(value)) {
      throw invalidOption(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}; got ${JSON.stringify(value)}`);
    }
  }
  const index = options.index;
  if (index !== undefined && index !== false && !([] as unknown[]).concat(index).every((n) => typeof n === 'string' && n !== '' && !n.includes('/'))) {
    throw invalidOption('index must be a file name, a list of them, or false');
  }
  const compressOption = options.compress;
  if (typeof compressOption === 'object' && compressOption !== null) {
    const t = compressOption.threshold;
    if (t !== undefined && !(Number.isInteger(t) && t >= 0)) throw invalidOption(`compress.threshold must be a whole number of bytes; got ${t}`);
  }
  if (options.setHeaders !== undefined && typeof options.setHeaders !== 'function') throw invalidOption('setHeaders must be a function (res, path, stats) => void');
  const settleTime = options.settleTime ?? 200;
  if (!(Number.isInteger(settleTime) && settleTime >= 0)) throw invalidOption(`settleTime must be a whole number of milliseconds; got ${settleTime}`);
  return { root: full, settleTime };
}

/**
 * Serves a directory's files under a prefix: `app.use('/assets', serveStatic('./public', options))`.
 * Adds `GET <prefix>/*` (and its HEAD twin) as a native uWS route, plus `GET <prefix>` to
 * redirect to `<prefix>/` when the root has an index file. `app.close()` stops its watcher.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { serveStatic } from '@velox/static';
 * const app = new Server();
 * app.use('/assets', serveStatic('./public', { maxAge: 86_400_000, immutable: true }));
 * app.use('/', serveStatic('./site')); // the rest of the site, under the app's own routes
 * await app.listen(3000);
 * ```
 */
export function serveStatic(root: string, options: ServeStaticOptions = {}): ServeStatic {
  return new StaticFiles(root, options);
}
