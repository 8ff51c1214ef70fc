// results.json: reading files of every age, and merging a narrowed run into the stored results.
//
// Since the suites, every scenario in results.json carries the suite it belongs to and
// `measured`: when, at which commit and with which settings the run that measured it ran. A run
// narrowed by BENCH_SUITE, BENCH_ONLY or BENCH_FRAMEWORKS replaces only its own scenarios and
// probes, whole, and keeps everything else with its own `measured`.

import { execFileSync } from 'node:child_process';
import { cpuText } from './machine.mjs';

/** `git rev-parse --short HEAD`, plus `-dirty` when the work tree has changes ('unknown' outside git). */
export function gitCommit(cwd) {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
    return dirty ? `${rev}-dirty` : rev;
  } catch {
    return 'unknown';
  }
}

/** Commit as stored by runs before the suites ("935fd4b (with uncommitted changes)"), in today's form. */
function commitOf(git) {
  if (typeof git !== 'string') return 'unknown';
  return git.replace(/ \(with uncommitted changes\)$/, '-dirty');
}

/**
 * Brings a results object of any age to today's shape, in place: each scenario gets `suite`,
 * `baseline`, `unit`, `extraFigures`, `pin` and `measured` (for old files, from the run that
 * wrote the file), and `probes` exists. `suiteOf(name)` names the suite a scenario belongs to
 * now (files from before the suites only hold core scenarios).
 */
export function normalizeResults(report, suiteOf = () => undefined) {
  const oldBaseline = report.frameworks?.find((f) => f.baseline)?.id ?? 'uws';
  const runMeasured = {
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    commit: commitOf(report.machine?.git),
    ...(report.machine?.cpuModel ? { cpu: cpuText(report.machine) } : {}),
    config: report.config,
    partialReasons: report.partialReasons ?? [],
  };
  for (const s of report.scenarios) {
    s.suite ??= suiteOf(s.name) ?? 'core';
    s.baseline ??= oldBaseline;
    s.unit ??= 'req/s';
    s.extraFigures ??= [];
    s.pin ??= true;
    s.load ??= 'wrk';
    s.measured ??= runMeasured;
  }
  report.probes ??= {};
  return report;
}

/**
 * Merges a narrowed run (`fresh`) into stored results (`stored`): the fresh run's scenarios and
 * probes replace the stored ones of the same name, whole; every other scenario and probe stays as
 * it was. Machine, config and run times at the top come from the fresh run. `order` gives the
 * scenario names and framework ids in the order of the suites, for the merged file's order.
 */
export function mergeResults(stored, fresh, order) {
  const freshNames = new Set(fresh.scenarios.map((s) => s.name));
  const scenarios = [...stored.scenarios.filter((s) => !freshNames.has(s.name)), ...fresh.scenarios];
  const rankIn = (list) => (key) => {
    const i = list.indexOf(key);
    return i === -1 ? list.length : i;
  };
  const rank = rankIn(order.scenarios);
  scenarios.sort((a, b) => rank(a.name) - rank(b.name));

  const results = {};
  for (const s of scenarios) results[s.name] = freshNames.has(s.name) ? fresh.results[s.name] : stored.results[s.name];

  const byId = new Map(stored.frameworks.map((f) => [f.id, f]));
  for (const f of fresh.frameworks) byId.set(f.id, f);
  const fwRank = rankIn(order.frameworks);
  const frameworks = [...byId.values()].sort((a, b) => fwRank(a.id) - fwRank(b.id));

  return {
    ...fresh,
    merged: true,
    frameworks,
    scenarios,
    results,
    probes: { ...stored.probes, ...fresh.probes },
  };
}
