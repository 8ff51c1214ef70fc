/**
 * The index of a directory: every file that may be served, by its path relative to the root
 * ('/'-separated, no leading slash), with the real path to open and its stats. Built by a walk at
 * start and kept current by the watcher. A path outside this index is never opened, and a
 * symlink is indexed only when its real path passes the symlink policy, so nothing outside the
 * root is ever reached by accident.
 */
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { StaticErrorCodes, staticError } from './errors.ts';
import { sameVersion } from './file-read.ts';
import { hasDotSegment } from './send.ts';
import { type WatchEvent, type WatchHandle, watchTree } from './watcher.ts';

/** What to do with dotfiles (a path with a segment starting with `.`). */
export type DotfilesPolicy = 'ignore' | 'deny' | 'allow';
/** Which symlinks to follow: those whose target is inside the root, any, or none. */
export type SymlinkPolicy = 'inside' | 'follow' | 'ignore';

/** One indexed file. */
export interface FileRecord {
  /** Path relative to the root, '/'-separated. */
  readonly rel: string;
  /** The real path to open. */
  readonly path: string;
  readonly stats: Stats;
}

/** Options of {@link Directory}. */
export interface DirectoryOptions {
  dotfiles: DotfilesPolicy;
  symlinks: SymlinkPolicy;
  watch: boolean;
  settleTime: number;
  /** Keeps a file in the index when true (paths as 'a/b.txt'). */
  filter?: (rel: string, stats: Stats) => boolean;
}

/** What the directory reports: 'add' and 'change' with the new record, 'delete' with the old one. */
export interface DirectoryListener {
  onAdd(record: FileRecord): void;
  onChange(record: FileRecord, previous: FileRecord): void;
  onDelete(previous: FileRecord): void;
  onError(err: Error): void;
}

/** A directory's file index, with an optional watcher. */
export class Directory {
  readonly root: string;
  readonly records = new Map<string, FileRecord>();
  #options: DirectoryOptions;
  #listener: DirectoryListener;
  #realRoot = '';
  #watcher: WatchHandle | undefined;
  #closed = false;
  /** Per path, the refresh in progress: events for one path are applied in order. */
  #pending = new Map<string, Promise<void>>();
  /** Symlinked directories refused by the policy: nothing under them is watched. */
  #refusedDirs = new Set<string>();
  readonly ready: Promise<void>;

  constructor(root: string, options: DirectoryOptions, listener: DirectoryListener) {
    this.root = root;
    this.#options = options;
    this.#listener = listener;
    this.ready = this.#start();
    // A failed start is reported through ready(); nobody need listen for it otherwise.
    this.ready.catch(() => {});
  }

  async #start(): Promise<void> {
    this.#realRoot = await realpath(this.root);
    if (this.#options.watch) {
      // Watch first, then walk: a change during the walk is reported and applied after it.
      this.#watcher = watchTree(this.root, {
        ignored: (path) => this.#ignored(path),
        settleTime: this.#options.settleTime,
        onEvent: (event, path) => this.#onEvent(event, path),
        onError: (err) => this.#listener.onError(staticError(StaticErrorCodes.WATCH_FAILED, `Watching ${this.root} failed: ${err.message}`, 500, err)),
      });
    }
    await this.#walk(this.root, '', new Set([this.#realRoot]));
    if (this.#watcher) await this.#watcher.ready;
  }

  /** Stops the watcher; pending refreshes finish quietly. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.ready.catch(() => {});
    await this.#watcher?.close();
    await Promise.allSettled([...this.#pending.values()]);
  }

  #inside(real: string): boolean {
    return real === this.#realRoot || real.startsWith(this.#realRoot + sep);
  }

  #relOf(path: string): string | undefined {
    const rel = relative(this.root, path);
    if (rel === '' || rel.startsWith('..')) return rel === '' ? '' : undefined;
    return sep === '/' ? rel : rel.split(sep).join('/');
  }

  #ignored(path: string): boolean {
    const rel = this.#relOf(path);
    if (rel === undefined) return true;
    if (rel === '') return false;
    if (this.#options.dotfiles !== 'allow' && hasDotSegment(rel)) return true;
    for (const dir of this.#refusedDirs) if (rel === dir || rel.startsWith(`${dir}/`)) return true;
    return false;
  }

  async #walk(dir: string, relDir: string, seen: Set<string>): Promise<void> {
    if (this.#closed) return;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      // A directory we may not read is left out, like a file we may not read.
      if (relDir === '') throw err;
      return;
    }
    const files: Array<Promise<void>> = [];
    for (const entry of entries) {
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      if (this.#options.dotfiles !== 'allow' && entry.name.charCodeAt(0) === 46) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        await this.#walk(path, rel, seen);
      } else if (entry.isSymbolicLink()) {
        if (this.#options.symlinks === 'ignore') continue;
        const target = await this.#resolve(path);
        if (target === undefined) {
          this.#refusedDirs.add(rel);
          continue;
        }
        if (target.stats.isDirectory()) {
          if (seen.has(target.real)) {
            this.#refusedDirs.add(rel); // a loop: not walked, not watched
            continue;
          }
          await this.#walk(path, rel, new Set([...seen, target.real]));
        } else if (target.stats.isFile()) this.#set(rel, target.real, target.stats);
      } else if (entry.isFile()) {
        files.push(this.#statFile(path, rel));
        if (files.length >= 64) await Promise.all(files.splice(0));
      }
    }
    await Promise.all(files);
  }

  async #statFile(path: string, rel: string): Promise<void> {
    try {
      const stats = await stat(path);
      if (stats.isFile()) this.#set(rel, path, stats);
    } catch {
      // Gone since readdir listed it.
    }
  }

  /** A symlink's real path and stats, if the policy lets it be followed. */
  async #resolve(path: string): Promise<{ real: string; stats: Stats } | undefined> {
    try {
      const real = await realpath(path);
      if (this.#options.symlinks === 'inside' && !this.#inside(real)) return undefined;
      return { real, stats: await stat(real) };
    } catch {
      return undefined; // dangling
    }
  }

  #set(rel: string, path: string, stats: Stats): void {
    const filter = this.#options.filter;
    if (filter && !filter(rel, stats)) return this.#delete(rel);
    const previous = this.records.get(rel);
    if (previous && previous.path === path && sameVersion(previous.stats, stats)) return;
    const record: FileRecord = { rel, path, stats };
    this.records.set(rel, record);
    if (previous) this.#listener.onChange(record, previous);
    else this.#listener.onAdd(record);
  }

  #delete(rel: string): void {
    const previous = this.records.get(rel);
    if (!previous) return;
    this.records.delete(rel);
    this.#listener.onDelete(previous);
  }

  #onEvent(event: WatchEvent, path: string): void {
    if (this.#closed) return;
    const rel = this.#relOf(path);
    if (rel === undefined || rel === '') return;
    if (event === 'unlinkDir') {
      for (const key of [...this.records.keys()]) if (key.startsWith(`${rel}/`)) this.#delete(key);
      return;
    }
    // Events for one path run one after another, each looking at the disk afresh.
    const previous = this.#pending.get(rel) ?? Promise.resolve();
    const next = previous.then(() => this.#refresh(rel, path));
    this.#pending.set(rel, next);
    next.then(() => {
      if (this.#pending.get(rel) === next) this.#pending.delete(rel);
    });
  }

  /** Looks at one path on disk again and updates the index to match. */
  async #refresh(rel: string, path: string): Promise<void> {
    if (this.#closed) return;
    try {
      const link = await lstat(path);
      if (link.isSymbolicLink()) {
        const target = this.#options.symlinks === 'ignore' ? undefined : await this.#resolve(path);
        if (!target?.stats.isFile()) return this.#delete(rel);
        return this.#set(rel, target.real, target.stats);
      }
      if (!link.isFile()) return this.#delete(rel);
      // A file reached through a symlinked directory: check where it really is.
      const real = await realpath(path);
      if (this.#options.symlinks === 'inside' && !this.#inside(real)) return this.#delete(rel);
      if (this.#options.symlinks === 'ignore' && real !== join(this.#realRoot, rel)) return this.#delete(rel);
      this.#set(rel, real, link);
    } catch {
      this.#delete(rel);
    }
  }
}
