// What run.mjs and instructions.mjs share: finding and installing Debian tools, and starting
// the server files under servers/ (with Node, or with Bun for a framework of `runtime: 'bun'`).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** True when `cmd` is on PATH. */
export function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Makes sure `cmd` is on PATH, installing the Debian package `pkg` with apt-get if it is not
 * (running `apt-get update` first if the install fails). Throws with the reason otherwise.
 */
export function ensureCommand(cmd, pkg = cmd) {
  if (have(cmd)) return;
  console.log(`${cmd} not found: installing ${pkg} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', pkg], { stdio: 'inherit', env }).status === 0;
  if (!install()) {
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    if (!install()) throw new Error(`could not install ${pkg} (apt-get install -y ${pkg} failed; are you root?)`);
  }
  if (!have(cmd)) throw new Error(`${cmd} is still not on PATH after installing ${pkg}`);
}

/** Node.js arguments that start a framework's server file (run from the benchmarks folder). */
export function serverArgs(fw, ...rest) {
  return [...(fw.nodeArgs ?? []), path.join('servers', fw.file), ...rest];
}

/** The package whose binary runs the servers of `runtime: 'bun'` (x64 Linux only). */
export const BUN_PACKAGE = '@oven/bun-linux-x64';

/**
 * The Bun binary of the pinned @oven/bun-linux-x64 (an optional dependency, so that installing
 * the workspace elsewhere than on x64 Linux skips it). Throws, naming the fix, when it is absent.
 */
export function bunBinary() {
  let dir;
  try {
    dir = path.dirname(createRequire(path.join(BENCH_DIR, 'noop.js')).resolve(`${BUN_PACKAGE}/package.json`));
  } catch {
    throw new Error(
      `${BUN_PACKAGE} is not installed (an optional dependency of the benchmarks, for x64 Linux only; this is ${process.platform}-${process.arch}): run pnpm install on x64 Linux`,
    );
  }
  const binary = path.join(dir, 'bin', 'bun');
  if (!existsSync(binary)) throw new Error(`${BUN_PACKAGE} has no bin/bun at ${binary}`);
  return binary;
}

/**
 * The executable and its arguments that start a framework's server file (from the benchmarks
 * folder): Node with the framework's `nodeArgs`, or the Bun binary for `runtime: 'bun'`.
 * @returns {{ command: string, args: string[] }}
 */
export function serverCommand(fw, ...rest) {
  if (fw.runtime === 'bun') return { command: bunBinary(), args: [path.join('servers', fw.file), ...rest] };
  if (fw.runtime !== undefined && fw.runtime !== 'node') throw new Error(`unknown runtime ${JSON.stringify(fw.runtime)} for ${fw.id}`);
  return { command: process.execPath, args: serverArgs(fw, ...rest) };
}

/** Asks a server file which scenarios it implements. */
export function listScenarios(fw) {
  const { command, args } = serverCommand(fw, '--list');
  const r = spawnSync(command, args, { cwd: BENCH_DIR, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) {
    const why = (r.stderr || r.stdout || r.error?.message || `exit ${r.status}`).trim().split('\n').slice(-6).join(' / ');
    throw new Error(`could not load servers/${fw.file}: ${why}`);
  }
  return JSON.parse(r.stdout.trim().split('\n').pop());
}
