/**
 * The only file that knows where uWebSockets.js comes from.
 *
 * Two candidates, in order: an installed `uWebSockets.js` (a user's official build, which
 * @velox/core takes as an optional peer dependency), then `@based/uws` (uWS v20.51.0 from the
 * npm registry, core's own dependency). Only a native module is accepted: some registry builds
 * quietly replace a binary that fails to load with a slow JavaScript imitation, and Velox refuses
 * to run on one. When no candidate loads, one error lists each attempt and what to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ErrorCodes, VeloxError } from './errors.ts';

/** The uWebSockets.js module, as typed by the declarations of the build core depends on. */
export type Uws = typeof import('@based/uws');

/** The packages tried, in order. */
export const UWS_CANDIDATES = ['uWebSockets.js', '@based/uws'] as const;

/** One candidate the loader tried, and why it was not taken (or `undefined` when it was). */
export interface UwsAttempt {
  /** The package name that was required. */
  package: string;
  /** Why it was not used; absent for the one that loaded. */
  reason?: string;
}

/** Which build is in use, as {@link uwsBuild} reports it. */
export interface UwsBuild {
  /** The package the module was loaded from: `uWebSockets.js` or `@based/uws`. */
  package: string;
  /** That package's `version` from its package.json (for `@based/uws@6.0.1`, uWS v20.51.0). */
  version: string;
  /** Every candidate tried before it, with the reason it was passed over. */
  attempts: UwsAttempt[];
}

let loaded: { uws: Uws; build: UwsBuild } | undefined;

/**
 * @internal The default of `UWS_HTTP_MAX_HEADERS_SIZE`, in bytes. uWS v20.51 counts the whole
 * request head against it (request line, header lines, the blank line) and answers 431 past it;
 * Node's 16 KB counts only the target and the header names and values. 512 bytes more cover the
 * request line and the `: ` and CRLF of each of the 98 header lines uWS takes, so every head
 * Node accepts by default, Velox accepts too.
 */
export const MAX_HEADERS_SIZE = 16 * 1024 + 512;

/**
 * Loads uWebSockets.js once per process and checks that its native binary is in use. Packages
 * that need the module (for constants such as `SHARED_COMPRESSOR`, or a throwaway app) take it
 * from here instead of resolving it themselves, so the whole process runs one build.
 *
 * @throws VeloxError `VELOX_ERR_UWS_LOAD` when no candidate gives a native module; its message
 *   lists each attempt with its reason, this Node's version and ABI, the platform, the glibc
 *   found, and what to do.
 * @example
 * ```ts
 * import { loadUws } from '@velox/core';
 * const uws = loadUws();
 * const flags = uws.SHARED_COMPRESSOR | uws.SHARED_DECOMPRESSOR;
 * ```
 */
export function loadUws(): Uws {
  if (loaded) return loaded.uws;
  // uWS reads this once, when its binary loads (a static initializer): it must be set first.
  process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(MAX_HEADERS_SIZE);
  loaded = loadFrom(createRequire(import.meta.url));
  return loaded.uws;
}

/**
 * The build {@link loadUws} loaded (loading it first if needed): which package, its version,
 * and the candidates passed over.
 *
 * @example
 * ```ts
 * import { uwsBuild } from '@velox/core';
 * console.log(`uWS from ${uwsBuild().package}@${uwsBuild().version}`); // uWS from @based/uws@6.0.1
 * ```
 */
export function uwsBuild(): UwsBuild {
  loadUws();
  return (loaded as { build: UwsBuild }).build;
}

/**
 * @internal Tries each candidate through `require` (resolved from core's own folder in
 * production; from a test's folder in tests) and returns the first native one.
 */
export function loadFrom(require: NodeJS.Require, candidates: readonly string[] = UWS_CANDIDATES): { uws: Uws; build: UwsBuild } {
  const attempts: UwsAttempt[] = [];
  for (const name of candidates) {
    const outcome = attempt(require, name);
    if ('uws' in outcome) {
      return { uws: outcome.uws, build: { package: name, version: versionOf(require, name), attempts } };
    }
    attempts.push({ package: name, reason: outcome.reason });
  }
  throw loadError(attempts);
}

function attempt(require: NodeJS.Require, name: string): { uws: Uws } | { reason: string } {
  const printed: string[] = [];
  const { warn, log, error } = console;
  // A build that falls back to JavaScript announces it on the console: keep that text for the error.
  console.warn = console.log = console.error = (...args: unknown[]) => {
    printed.push(args.map(String).join(' '));
  };
  let uws: Uws;
  try {
    uws = require(name) as Uws;
  } catch (cause) {
    const err = cause as NodeJS.ErrnoException;
    if (err?.code === 'MODULE_NOT_FOUND' && String(err.message).includes(`'${name}'`)) return { reason: 'not installed' };
    return { reason: firstLines(err?.message ?? String(cause)) };
  } finally {
    console.warn = warn;
    console.log = log;
    console.error = error;
  }
  if (!isNative(uws)) {
    const said = printed.join(' ').replace(/\s+/g, ' ').trim();
    return { reason: `a JavaScript imitation loaded instead of a native binary${said ? ` (${said.slice(0, 300)})` : ''}` };
  }
  for (const line of printed) warn(line);
  return { uws };
}

/** True when `App` is a native function, as it is in every real uWebSockets.js binary. */
function isNative(uws: Uws): boolean {
  return typeof uws?.App === 'function' && Function.prototype.toString.call(uws.App).includes('[native code]');
}

/** The loader's own sentence plus the dynamic linker's, which says what was missing (e.g. `GLIBC_2.38' not found). */
function firstLines(message: string): string {
  const [first = message, ...rest] = message.split('\n').map((l) => l.trim()).filter(Boolean);
  const linker = rest.find((l) => /GLIBC_|\.node\b|cannot open shared object|invalid ELF|ERR_DLOPEN/.test(l));
  const text = linker ? `${first} ${linker}` : first;
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

/** The version in the package.json above the module's entry (builds need not export `./package.json`). */
function versionOf(require: NodeJS.Require, name: string): string {
  try {
    let dir = require.resolve(name);
    for (let i = 0; i < 5; i++, dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown';
    }
  } catch {}
  return 'unknown';
}

/** The glibc this process runs on, or undefined (musl, macOS, Windows). */
export function glibcVersion(): string | undefined {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime;
}

/** Node ABIs (process.versions.modules) with a binary in @based/uws 6.0.1, and the glibc each needs on Linux. */
const BINARIES: Record<string, { node: string; glibc: string }> = {
  '108': { node: '18', glibc: '2.27' },
  '115': { node: '20', glibc: '2.27' },
  '127': { node: '22', glibc: '2.27' },
  '131': { node: '23', glibc: '2.27' },
  '137': { node: '24', glibc: '2.38' },
  '141': { node: '25', glibc: '2.38' },
};

function olderThan(version: string, than: string): boolean {
  const [a = 0, b = 0] = version.split('.').map(Number);
  const [c = 0, d = 0] = than.split('.').map(Number);
  return a < c || (a === c && b < d);
}

/** What to do, for this platform, Node and glibc. */
function advice(glibc: string | undefined): string {
  const abi = process.versions.modules;
  const binary = BINARIES[abi];
  const official =
    'or install an official uWebSockets.js build for your Node (Velox tries it first): ' +
    '`npm install uWebSockets.js@github:uNetworking/uWebSockets.js#v20.52.0`.';
  if (process.platform === 'linux' && !glibc) {
    return `No glibc was found (musl, as on Alpine?): uWS ships glibc binaries only. Use a glibc image such as node:22-bookworm-slim, ${official}`;
  }
  if (!binary) {
    return `@based/uws has no binary for Node ABI ${abi}. Use Node 20 or 22 (or 24 on glibc ≥ 2.38), ${official}`;
  }
  if (process.platform === 'linux' && glibc && olderThan(glibc, binary.glibc)) {
    return (
      `Its binary for Node ${binary.node} needs glibc ≥ ${binary.glibc} and this system has ${glibc}. ` +
      `Run Node 22 here (Docker: node:22-bookworm), or move to a system with glibc ≥ ${binary.glibc} ` +
      `(Debian 13, Ubuntu 24.04; Docker: node:24-trixie), ${official}`
    );
  }
  return `Check that the package installed completely for ${process.platform}-${process.arch}, ${official}`;
}

function loadError(attempts: UwsAttempt[]): VeloxError {
  const glibc = process.platform === 'linux' ? glibcVersion() : undefined;
  const tried = attempts.map((a) => `  - ${a.package}: ${a.reason}`).join('\n');
  const where =
    `Node ${process.version} (ABI ${process.versions.modules}) on ${process.platform}-${process.arch}` +
    (process.platform === 'linux' ? `, glibc ${glibc ?? 'not found'}` : '');
  return new VeloxError(
    ErrorCodes.UWS_LOAD,
    `Velox could not load a native uWebSockets.js for ${where}. Tried:\n${tried}\n${advice(glibc)} ` +
      'See the @velox/core README, "uWebSockets.js".',
  );
}
