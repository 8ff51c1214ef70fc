// The files the static suite serves, made once per machine under the OS temp directory (same
// bytes everywhere: a seeded generator, fixed mtimes). Written to a temporary name and renamed, so
// servers started at the same time never see a half-made tree.
//
//   site/small.txt   1 KiB   (scenario `static`, and `static-304`)
//   site/large.txt   256 KiB (scenario `static-large`)
//   many/dNN/fNNNN.txt  10,000 files of 1 KiB (probe `static-rss`)

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(tmpdir(), 'velox-bench-static-v1');
export const SITE = join(ROOT, 'site');
export const MANY = join(ROOT, 'many');
export const MANY_COUNT = 10_000;
export const SMALL_SIZE = 1024;
export const LARGE_SIZE = 256 * 1024;
/** A fixed mtime (2025-01-01), so Last-Modified is the same on every machine. */
const MTIME = new Date('2025-01-01T00:00:00Z');

/** Printable text from a seeded generator (xorshift32): compressible, like a real asset. */
function text(size, seed) {
  const words = ['velox', 'static', 'file', 'serve', 'cache', 'range', 'etag', 'bytes', 'head', 'uws'];
  let x = seed >>> 0 || 1;
  let out = '';
  while (out.length < size) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out += words[x % words.length] + ((x >>> 8) % 7 === 0 ? '\n' : ' ');
  }
  return Buffer.from(out.slice(0, size));
}

/** The path of the n-th file of `many/`, relative to it. */
export function manyPath(n) {
  return `d${String(Math.floor(n / 100)).padStart(2, '0')}/f${String(n).padStart(4, '0')}.txt`;
}

/** Makes the tree if it is not there yet; returns its paths. */
export function ensureFixture() {
  if (!existsSync(join(ROOT, 'done'))) {
    const temp = `${ROOT}.${process.pid}.tmp`;
    rmSync(temp, { recursive: true, force: true });
    mkdirSync(join(temp, 'site'), { recursive: true });
    writeFileSync(join(temp, 'site', 'small.txt'), text(SMALL_SIZE, 1));
    writeFileSync(join(temp, 'site', 'large.txt'), text(LARGE_SIZE, 2));
    for (let n = 0; n < MANY_COUNT; n++) {
      const path = join(temp, 'many', manyPath(n));
      if (n % 100 === 0) mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text(1024, 1000 + n));
      utimesSync(path, MTIME, MTIME);
    }
    for (const name of ['small.txt', 'large.txt']) utimesSync(join(temp, 'site', name), MTIME, MTIME);
    writeFileSync(join(temp, 'done'), '');
    try {
      renameSync(temp, ROOT);
    } catch {
      // Another server made it first.
      rmSync(temp, { recursive: true, force: true });
    }
  }
  return { root: ROOT, site: SITE, many: MANY };
}

/** The bytes of a file of the tree (for the checks). */
export function fixtureFile(relative) {
  ensureFixture();
  return readFileSync(join(ROOT, relative));
}
