// Adds up the vitest JSON reports of every package and prints one closing line.
//
//   node scripts/test-summary.mjs --clean          before a pass: drop old reports
//   node scripts/test-summary.mjs [--node 22]      after a pass: add up, check every report ran on
//                                                  that Node major (default: the Node running this),
//                                                  keep the pass's counts in .vitest-passes/
//   node scripts/test-summary.mjs --total          after the last pass: one line over every pass
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every directory whose tests report here: the packages, the guides' examples, examples/ (the chat in a browser), and benchmarks/ (the README's charts against results.json). */
const dirs = [...readdirSync('packages').map((dir) => join('packages', dir)), join('docs', 'examples'), 'examples', 'benchmarks'];
const passes = '.vitest-passes';
const args = process.argv.slice(2);

if (args.includes('--clean')) {
  // Before a pass: drop old reports so a package that runs no test cannot look green.
  for (const dir of dirs) rmSync(join(dir, '.vitest'), { recursive: true, force: true });
  if (args.includes('--all')) rmSync(passes, { recursive: true, force: true });
  process.exit(0);
}

if (args.includes('--total')) {
  const files = existsSync(passes) ? readdirSync(passes).sort() : [];
  if (files.length === 0) {
    console.error('No test passes recorded: did any tests run?');
    process.exit(1);
  }
  const all = files.map((f) => JSON.parse(readFileSync(join(passes, f), 'utf8')));
  const sum = (key) => all.reduce((n, pass) => n + pass[key], 0);
  console.log(`Passes: ${all.map((p) => `Node ${p.node} (${p.passed} passed, ${p.failed} failed)`).join('; ')}`);
  console.log(`Tests: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
  process.exit(sum('failed') > 0 ? 1 : 0);
}

const flag = args.indexOf('--node');
const major = flag >= 0 ? Number(args[flag + 1]) : Number(process.versions.node.split('.')[0]);
let passed = 0;
let failed = 0;
let skipped = 0;
const reports = [];
const wrongNode = [];
const versions = new Set();
for (const dir of dirs) {
  const file = join(dir, '.vitest', 'report.json');
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  reports.push(`${dir.replace(/^packages[\\/]/, '')}: ${report.numPassedTests} passed`);
  const nodeFile = join(dir, '.vitest', 'node.json');
  const version = existsSync(nodeFile) ? JSON.parse(readFileSync(nodeFile, 'utf8')).version : 'unknown';
  versions.add(version);
  if (!version.startsWith(`v${major}.`)) wrongNode.push(`${dir} ran on ${version}`);
}
if (reports.length === 0) {
  console.error('No test reports found: did any tests run?');
  process.exit(1);
}
console.log(reports.join(', '));
if (wrongNode.length > 0) {
  console.error(`Expected every package's tests on Node ${major}, but: ${wrongNode.join('; ')}`);
  process.exit(1);
}
const node = [...versions].join(', ');
mkdirSync(passes, { recursive: true });
writeFileSync(join(passes, `node-${major}.json`), JSON.stringify({ node, passed, failed, skipped }));
console.log(`Node ${node}: ${passed} tests passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
