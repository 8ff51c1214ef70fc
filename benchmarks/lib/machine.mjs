// What the numbers were measured on.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

function readOr(file, fallback = '') {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

/** Version of an installed package, found from `fromDir`. */
export function packageVersion(name, fromDir) {
  const require = createRequire(path.join(fromDir, 'noop.js'));
  try {
    return require(`${name}/package.json`).version;
  } catch {}
  try {
    // Packages whose "exports" hide package.json: walk up from the entry point.
    let dir = path.dirname(require.resolve(name));
    while (dir !== path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (existsSync(file)) {
        const pkg = JSON.parse(readFileSync(file, 'utf8'));
        if (pkg.name === name || pkg.version) return pkg.version;
      }
      dir = path.dirname(dir);
    }
  } catch {}
  return 'unknown';
}

/** The uWS package the benchmarks depend on, and the binary it loads for this Node. */
export function uwsBuild(fromDir) {
  const require = createRequire(path.join(fromDir, 'noop.js'));
  const entry = require.resolve('uWebSockets.js');
  let dir = path.dirname(entry);
  let pkg = null;
  while (dir !== path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      pkg = JSON.parse(readFileSync(file, 'utf8'));
      break;
    }
    dir = path.dirname(dir);
  }
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  return {
    package: pkg ? `${pkg.name}@${pkg.version}` : 'unknown',
    binary,
    // @trufflesuite's build kept its binaries in binaries/; @based/uws and official builds beside the entry.
    binaryPresent: existsSync(path.join(dir, 'binaries', binary)) || existsSync(path.join(dir, binary)),
  };
}

export function wrkVersion() {
  const r = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  const m = /wrk\s+(\S+)/.exec(`${r.stdout}${r.stderr}`);
  return m ? m[1] : 'unknown';
}

export function gitRevision(cwd) {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${rev} (with uncommitted changes)` : rev;
  } catch {
    return 'unknown';
  }
}

export function describeMachine(fromDir) {
  const cpuinfo = readOr('/proc/cpuinfo');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  const osName = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readOr('/etc/os-release'))?.[1] ?? os.type();
  return {
    cpuModel: model,
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: osName,
    kernel: os.release(),
    node: process.version,
    uws: uwsBuild(fromDir),
    wrk: wrkVersion(),
    git: gitRevision(fromDir),
  };
}

/**
 * The CPU a run measured on, as RESULTS.md and the charts name it: "AMD EPYC, 2 cores".
 * @example cpuText({ cpuModel: 'AMD EPYC', cores: 2 }) // 'AMD EPYC, 2 cores'
 */
export function cpuText(machine) {
  return `${machine.cpuModel}, ${machine.cores} cores`;
}
