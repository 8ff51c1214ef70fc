// Runs every package's test suite again on another Node major (installed from the registry by
// scripts/ensure-node.mjs when the machine lacks it), then checks and adds up that pass.
// `pnpm test` runs it for Node 22 after the Node 20 pass.
//
// Usage: node scripts/test-node.mjs 22
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureNode } from './ensure-node.mjs';

const major = Number(process.argv[2]);
if (!Number.isInteger(major)) {
  console.error('usage: node scripts/test-node.mjs <major>');
  process.exit(2);
}
if (Number(process.versions.node.split('.')[0]) === major && existsSync(`.vitest-passes/node-${major}.json`)) {
  console.log(`The suites already ran on this Node (${process.version}); nothing to repeat.`);
  process.exit(0);
}
const bin = ensureNode(major);
// Every `node` that pnpm, turbo and vitest start resolves through PATH: put this one first.
const env = { ...process.env, PATH: `${dirname(bin)}:${process.env.PATH}` };
const run = (command, args) => execFileSync(command, args, { env, stdio: 'inherit' });
const version = execFileSync('node', ['--version'], { env, encoding: 'utf8' }).trim();
console.log(`\nThe test suites again, on Node ${version} (${bin})\n`);
try {
  run('node', ['scripts/test-summary.mjs', '--clean']);
  run('pnpm', ['exec', 'turbo', 'run', 'test', '--concurrency=1']);
} finally {
  run('node', ['scripts/test-summary.mjs', '--node', String(major)]);
}
