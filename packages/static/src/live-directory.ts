/**
 * LiveDirectory: a watched directory held in memory, for templates and the like (what
 * HyperExpress users know from the live-directory package). Every file that passes the filter
 * is read at start and read again when it changes; `get()` is synchronous.
 */
import type { Stats } from 'node:fs';
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import { Directory, type DotfilesPolicy, type FileRecord, type SymlinkPolicy } from './directory.ts';
import { invalidOption } from './errors.ts';
import { readSettled } from './file-read.ts';
import { strongEtag } from './send.ts';

/** A file held by a {@link LiveDirectory}. */
export interface LiveFile {
  /** Path from the directory's root, with a leading slash: `/emails/welcome.html`. */
  readonly path: string;
  readonly content: Buffer;
  /** Strong ETag of the content (quoted). */
  readonly etag: string;
  readonly mtime: Date;
  readonly size: number;
}

/** Options of {@link LiveDirectory}. */
export interface LiveDirectoryOptions {
  /** Keep only the files for which this returns true (path with a leading slash). Default: every file. */
  filter?: (path: string, stats: Stats) => boolean;
  /** Follow changes on disk. Default: `true`. */
  watch?: boolean;
  /** Dotfiles: `'ignore'` leaves them out, `'allow'` keeps them (`'deny'` is the same as `'ignore'` here). Default: `'ignore'`. */
  dotfiles?: DotfilesPolicy;
  /** Symlinks: `'inside'` (targets inside the root), `'follow'` (any) or `'ignore'`. Default: `'inside'`. */
  symlinks?: SymlinkPolicy;
  /** Files bigger than this many bytes are left out. Default: 16 MiB. */
  maxFileSize?: number;
  /** Milliseconds a file must stay unchanged before it is read after a change. Default: `200`. */
  settleTime?: number;
}

/** The events of a {@link LiveDirectory}. */
export interface LiveDirectoryEvents {
  add: (file: LiveFile) => void;
  change: (file: LiveFile, previous: LiveFile) => void;
  delete: (previous: LiveFile) => void;
  error: (err: Error) => void;
}

/**
 * A directory kept in memory and in step with the disk.
 *
 * @example
 * ```ts
 * import { LiveDirectory } from '@velox/static';
 * const views = new LiveDirectory('./views', { filter: (path) => path.endsWith('.html') });
 * await views.ready();
 * app.get('/email', (req, res) => res.html(views.get('/email.html')!.content.toString()));
 * views.on('change', (file) => console.log(`${file.path} changed`));
 * app.addHook('onClose', () => views.close());
 * ```
 */
export class LiveDirectory {
  /** The absolute path of the directory. */
  readonly root: string;
  readonly #files = new Map<string, LiveFile>();
  readonly #listeners: { [K in keyof LiveDirectoryEvents]: Array<LiveDirectoryEvents[K]> } = { add: [], change: [], delete: [], error: [] };
  readonly #dir: Directory;
  readonly #maxFileSize: number;
  readonly #settleTime: number;
  /** Per path, the read in progress, so reads of one file finish in order. */
  readonly #reads = new Map<string, Promise<void>>();
  #started = false;
  #ready: Promise<void>;

  constructor(root: string, options: LiveDirectoryOptions = {}) {
    if (typeof root !== 'string' || root === '') throw invalidOption('LiveDirectory needs the directory, e.g. new LiveDirectory("./views")');
    this.root = resolve(root);
    let isDir = false;
    try {
      isDir = statSync(this.root).isDirectory();
    } catch {}
    if (!isDir) throw invalidOption(`LiveDirectory root ${this.root} is not a readable directory`);
    const { filter } = options;
    if (filter !== undefined && typeof filter !== 'function') throw invalidOption('filter must be a function (path, stats) => boolean');
    this.#maxFileSize = options.maxFileSize ?? 16 * 1024 * 1024;
    this.#settleTime = options.settleTime ?? 200;
    if (!(Number.isInteger(this.#maxFileSize) && this.#maxFileSize >= 0)) throw invalidOption(`maxFileSize must be a whole number of bytes; got ${options.maxFileSize}`);
    if (!(Number.isInteger(this.#settleTime) && this.#settleTime >= 0)) throw invalidOption(`settleTime must be a whole number of milliseconds; got ${options.settleTime}`);
    this.#dir = new Directory(
      this.root,
      {
        dotfiles: options.dotfiles === 'allow' ? 'allow' : 'ignore',
        symlinks: options.symlinks ?? 'inside',
        watch: options.watch ?? true,
        settleTime: this.#settleTime,
        filter: (rel, stats) => stats.size <= this.#maxFileSize && (filter === undefined || filter(`/${rel}`, stats)),
      },
      {
        onAdd: (record) => this.#track(this.#load(record)),
        onChange: (record) => this.#track(this.#load(record)),
        onDelete: (previous) => this.#track(this.#drop(previous)),
        onError: (err) => this.#emit('error', err),
      },
    );
    this.#ready = this.#dir.ready.then(async () => {
      // Files found by the walk are read now; ready() waits for all of them.
      await Promise.all([...this.#reads.values()]);
      this.#started = true;
    });
    this.#ready.catch(() => {});
  }

  /**
   * Resolves once every file is read (and watched).
   * @example
   * ```ts
   * await views.ready();
   * ```
   */
  ready(): Promise<void> {
    return this.#ready;
  }

  /**
   * A file by its path from the root (`/a.html` or `a.html`), or undefined.
   * @example
   * ```ts
   * const file = views.get('/email.html');
   * ```
   */
  get(path: string): LiveFile | undefined {
    return this.#files.get(path.startsWith('/') ? path : `/${path}`);
  }

  /**
   * The paths of every file held, sorted.
   * @example
   * ```ts
   * for (const path of views.paths()) console.log(path);
   * ```
   */
  paths(): string[] {
    return [...this.#files.keys()].sort();
  }

  /**
   * Listens for `'add'`, `'change'`, `'delete'` (after the content is read) and `'error'`.
   * @example
   * ```ts
   * views.on('change', (file, previous) => console.log(file.path, previous.size, '→', file.size));
   * ```
   */
  on<K extends keyof LiveDirectoryEvents>(event: K, listener: LiveDirectoryEvents[K]): this {
    const list = this.#listeners[event] as Array<LiveDirectoryEvents[K]> | undefined;
    if (!list) throw invalidOption(`LiveDirectory emits add, change, delete and error, not ${JSON.stringify(event)}`);
    list.push(listener);
    return this;
  }

  /**
   * Removes a listener.
   * @example
   * ```ts
   * views.off('change', onChange);
   * ```
   */
  off<K extends keyof LiveDirectoryEvents>(event: K, listener: LiveDirectoryEvents[K]): this {
    const list = this.#listeners[event] as Array<LiveDirectoryEvents[K]> | undefined;
    const i = list ? list.indexOf(listener) : -1;
    if (i >= 0) list!.splice(i, 1);
    return this;
  }

  /**
   * Stops watching. Files stay readable with `get()`.
   * @example
   * ```ts
   * app.addHook('onClose', () => views.close());
   * ```
   */
  async close(): Promise<void> {
    await this.#dir.close();
    await Promise.allSettled([...this.#reads.values()]);
  }

  #track(work: () => Promise<void>): void {
    // Reads of one path one after another; the key is the record's path.
    const key = (work as unknown as { key: string }).key;
    const previous = this.#reads.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    this.#reads.set(key, next);
    next.then(() => {
      if (this.#reads.get(key) === next) this.#reads.delete(key);
    });
  }

  #load(record: FileRecord): () => Promise<void> {
    const path = `/${record.rel}`;
    const work = async () => {
      if (this.#dir.records.get(record.rel) !== record) return; // superseded
      try {
        const read = await readSettled(record.path, this.#settleTime, this.#maxFileSize);
        if (read === undefined || this.#dir.records.get(record.rel) !== record) return;
        const file: LiveFile = { path, content: read.body, etag: strongEtag(read.body), mtime: read.stats.mtime, size: read.body.length };
        const previous = this.#files.get(path);
        if (previous && previous.etag === file.etag) return;
        this.#files.set(path, file);
        if (!this.#started) return; // the first read of the files found at start: no events
        if (previous) this.#emit('change', file, previous);
        else this.#emit('add', file);
      } catch (err) {
        // Gone before it could be read: the watcher's delete follows.
        if ((err as { status?: number }).status !== 404) this.#emit('error', err as Error);
      }
    };
    return Object.assign(work, { key: path });
  }

  #drop(record: FileRecord): () => Promise<void> {
    const path = `/${record.rel}`;
    const work = async () => {
      if (this.#dir.records.has(record.rel)) return; // back already
      const previous = this.#files.get(path);
      if (!previous) return;
      this.#files.delete(path);
      this.#emit('delete', previous);
    };
    return Object.assign(work, { key: path });
  }

  #emit<K extends keyof LiveDirectoryEvents>(event: K, ...args: Parameters<LiveDirectoryEvents[K]>): void {
    const list = this.#listeners[event] as Array<(...a: unknown[]) => void>;
    if (event === 'error' && list.length === 0) return console.error(args[0]);
    for (const listener of list.slice()) {
      try {
        listener(...args);
      } catch (err) {
        if (event !== 'error') this.#emit('error', err as Error);
      }
    }
  }
}
