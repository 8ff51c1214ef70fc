/**
 * Express 4's View: finds a template under the `views` directories by name and extension (or
 * `<name>/index.<ext>`), and renders it with the engine registered for the extension
 * (`app.engine()`), or with the module of that name's `__express` (`ejs`, `pug`…).
 */
import { statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { loadEngine } from './libs.ts';

/** A template engine: `(path, options, callback(err, html))`. */
export type Engine = (path: string, options: object, callback: (err: unknown, html?: string) => void) => void;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** One template, found on disk. */
export class View {
  defaultEngine: string | undefined;
  ext: string;
  name: string;
  root: string | string[];
  engine: Engine;
  path: string | undefined;

  constructor(name: string, options: { defaultEngine?: string; root: string | string[]; engines: Record<string, Engine> }) {
    this.defaultEngine = options.defaultEngine;
    this.ext = extname(name);
    this.name = name;
    this.root = options.root;
    if (!this.ext && !this.defaultEngine) throw new Error('No default engine was specified and no extension was provided.');
    let fileName = name;
    if (!this.ext) {
      this.ext = this.defaultEngine![0] !== '.' ? `.${this.defaultEngine}` : this.defaultEngine!;
      fileName += this.ext;
    }
    if (!options.engines[this.ext]) {
      const mod = this.ext.slice(1);
      const fn = (loadEngine(mod) as { __express?: Engine }).__express;
      if (typeof fn !== 'function') throw new Error(`Module "${mod}" does not provide a view engine.`);
      options.engines[this.ext] = fn;
    }
    this.engine = options.engines[this.ext]!;
    this.path = this.lookup(fileName);
  }

  lookup(name: string): string | undefined {
    for (const root of ([] as string[]).concat(this.root)) {
      const loc = resolve(root, name);
      const dir = dirname(loc);
      const file = basename(loc);
      const direct = resolve(dir, file);
      if (isFile(direct)) return direct;
      const index = join(dir, basename(file, this.ext), `index${this.ext}`);
      if (isFile(index)) return index;
    }
    return undefined;
  }

  render(options: object, callback: (err: unknown, html?: string) => void): void {
    let sync = true;
    this.engine(this.path!, options, function (this: unknown, ...args: [unknown, string?]) {
      if (!sync) return callback.apply(this, args);
      process.nextTick(() => callback.apply(this, args));
    });
    sync = false;
  }
}
