// What run.mjs and instructions.mjs share: finding and installing Debian tools, and starting
// the server files under servers/.

import { spawnSync } from 'node:child_process';
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

/** Asks a server file which scenarios it implements. */
export function listScenarios(fw) {
  const r = spawnSync(process.execPath, serverArgs(fw, '--list'), { cwd: BENCH_DIR, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) {
    const why = (r.stderr || r.stdout || r.error?.message || `exit ${r.status}`).trim().split('\n').slice(-6).join(' / ');
    throw new Error(`could not load servers/${fw.file}: ${why}`);
  }
  return JSON.parse(r.stdout.trim().split('\n').pop());
}
