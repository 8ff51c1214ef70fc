/**
 * What the tests of create-velox share: the workspace packages built and packed as
 * scripts/check-packs.mjs packs them, create-velox installed from its own tarball, and a way to
 * run its command and the package manager in a child process with this test's Node first on PATH
 * (so the Node 22 pass runs everything on Node 22).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const PACKAGES = join(ROOT, 'packages');
export const SELF = join(PACKAGES, 'create-velox');

/** This process's environment with its own Node first on PATH, and without the package-manager variables of the outer run. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, ...extra };
  for (const key of Object.keys(env)) if (key.startsWith('npm_') && !(key in extra)) delete env[key];
  return env;
}

/** How a command ended. */
export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (never throws on a non-zero exit). */
export function exec(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = childEnv(), timeout = 120_000): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      // A non-zero exit gives its code; a timeout or a failure to start gives none.
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr: code === -1 ? `${stderr}\n${err?.message}` : stderr });
    });
  });
}

/** Runs a command that must succeed; throws with its output otherwise. */
export async function must(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const result = await exec(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** Runs `fn` over `items`, at most `limit` at a time (the machine has two cores). */
async function inPool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A package's manifest. */
async function manifestOf(dir: string): Promise<{ name: string; version: string; dependencies?: Record<string, string> }> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
}

/**
 * The workspace directories of these @velox packages and of every @velox package they depend
 * on (`workspace:` dependencies), @velox/core always among them.
 */
export async function withWorkspaceDeps(names: readonly string[]): Promise<string[]> {
  const seen = new Set<string>();
  const visit = async (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = await manifestOf(join(PACKAGES, name.replace(/^@velox\//, '')));
    for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) if (range.startsWith('workspace:')) await visit(dep);
  };
  for (const name of ['@velox/core', ...names]) await visit(name);
  return [...seen].map((name) => join(PACKAGES, name.replace(/^@velox\//, '')));
}

/** One packed package. */
export interface Packed {
  name: string;
  version: string;
  file: string;
}

/** Builds each package (its `build` script, as check-packs.mjs does) and packs it with `pnpm pack` into `out`. */
export async function buildAndPack(dirs: readonly string[], out: string): Promise<Packed[]> {
  return inPool(dirs, 2, async (dir) => {
    await must('pnpm', ['run', '--silent', 'build'], dir);
    const packed = JSON.parse(await must('pnpm', ['pack', '--json', '--pack-destination', out], dir)) as { name: string; version: string; filename: string };
    return { name: packed.name, version: packed.version, file: packed.filename };
  });
}

/** A new directory under the system's temporary directory (removed by the caller). */
export function newTempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}
