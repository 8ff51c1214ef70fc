/**
 * The only file that knows about chokidar: watches a tree and reports paths that changed, each
 * once its writes settled (chokidar's awaitWriteFinish).
 */
import { watch } from 'chokidar';

/** What changed: a file appeared or changed, a file or a directory went away. */
export type WatchEvent = 'file' | 'unlink' | 'unlinkDir';

/** Options of {@link watchTree}. */
export interface WatchOptions {
  /** Paths not to watch (absolute). */
  ignored: (path: string) => boolean;
  /** Milliseconds a file's size must stay the same before it is reported. */
  settleTime: number;
  onEvent: (event: WatchEvent, path: string) => void;
  onError: (err: Error) => void;
}

/** A running watcher. */
export interface WatchHandle {
  /** Resolves once the tree is watched. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Watches `root` (not reporting what is there at start). */
export function watchTree(root: string, options: WatchOptions): WatchHandle {
  const watcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: true,
    ignored: (path: string) => options.ignored(path),
    awaitWriteFinish: { stabilityThreshold: options.settleTime, pollInterval: Math.max(10, Math.min(100, options.settleTime / 4)) },
  });
  watcher.on('add', (path) => options.onEvent('file', path));
  watcher.on('change', (path) => options.onEvent('file', path));
  watcher.on('unlink', (path) => options.onEvent('unlink', path));
  watcher.on('unlinkDir', (path) => options.onEvent('unlinkDir', path));
  watcher.on('error', (err) => options.onError(err as Error));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return { ready, close: () => watcher.close() };
}
