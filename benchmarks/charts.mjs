#!/usr/bin/env node
// Writes the README's charts: charts/<name>.svg for each chart of lib/charts.mjs, from
// node22/results.json (the headline machine's), and the block of the root README.md that shows
// them. Reads results.json only: no measuring, no network.
//
//   node charts.mjs            (pnpm -F @velox/benchmarks charts) write the SVGs and the README block
//   node charts.mjs --check    write nothing; exit 1 and name each file that is not what it would write
//
// Options for trying it on other files: --results <results.json>, --out <dir>, --readme <README.md>.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHARTS, chartData, readmeBlock, renderChart, replaceReadmeBlock, summarizeResults } from './lib/charts.mjs';
import { loadSuites } from './lib/suites.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(HERE);

/**
 * The files `charts.mjs` writes, as { path: text }, from a results.json and a README (by default
 * node22/results.json, charts/ and the root README.md).
 *
 * @example
 * const stale = Object.entries(chartFiles()).filter(([file, text]) => readFileSync(file, 'utf8') !== text);
 */
export function chartFiles({ results = path.join(HERE, 'node22', 'results.json'), out = path.join(HERE, 'charts'), readme = path.join(ROOT, 'README.md') } = {}) {
  const catalog = loadSuites();
  const report = summarizeResults(JSON.parse(readFileSync(results, 'utf8')), (name) => catalog.scenarios.find((s) => s.name === name)?.suite);
  const datas = CHARTS.map((spec) => chartData(report, spec));
  const files = {};
  for (const data of datas) files[path.join(out, `${data.name}.svg`)] = renderChart(data);
  const dir = path.relative(path.dirname(readme), out).split(path.sep).join('/');
  files[readme] = replaceReadmeBlock(readFileSync(readme, 'utf8'), readmeBlock(datas, dir));
  return files;
}

function option(name) {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a path after it`);
  return path.resolve(value);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const files = chartFiles({ results: option('--results'), out: option('--out'), readme: option('--readme') });
    if (process.argv.includes('--check')) {
      const stale = Object.entries(files).filter(([file, text]) => !existsSync(file) || readFileSync(file, 'utf8') !== text);
      if (stale.length > 0) {
        console.error(`charts: not what results.json gives: ${stale.map(([f]) => path.relative(process.cwd(), f)).join(', ')} (run pnpm -F @velox/benchmarks charts)`);
        process.exit(1);
      }
      console.log('charts: every chart matches results.json');
    } else {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, text);
        console.log(`charts: wrote ${path.relative(process.cwd(), file)}`);
      }
    }
  } catch (e) {
    console.error(`charts: ${e.message}`);
    process.exit(1);
  }
}
