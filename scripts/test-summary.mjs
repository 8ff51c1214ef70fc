// Adds up the vitest JSON reports of every package and prints one closing line.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Every directory whose tests report here: the packages, the guides' examples, and examples/ (the chat in a browser). */
const dirs = [...readdirSync('packages').map((dir) => join('packages', dir)), join('docs', 'examples'), 'examples'];

if (process.argv.includes('--clean')) {
  // Before a run: drop old reports so a package that runs no test cannot look green.
  for (const dir of dirs) rmSync(join(dir, '.vitest'), { recursive: true, force: true });
  process.exit(0);
}

let passed = 0;
let failed = 0;
let skipped = 0;
const reports = [];
for (const dir of dirs) {
  const file = join(dir, '.vitest', 'report.json');
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  reports.push(`${dir.replace(/^packages[\\/]/, '')}: ${report.numPassedTests} passed`);
}
if (reports.length === 0) {
  console.error('No test reports found: did any tests run?');
  process.exit(1);
}
console.log(reports.join(', '));
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
