// Evaluating a suite's speed targets: each compares two frameworks' req/s from results.json,
//   a / b >= min   ("ahead of" is a ratio above 1; `strict: true` makes it a / b > min),
// judged on the paired ratio (the median over passes of a's slice divided by b's slice of the
// same pass: the machine's drift cancels out within a pass) where the two share a scenario and
// were measured in slices, else on the ratio of the two medians, which is always shown beside it.
// The targets themselves are data in suites/*.mjs (the core suite's in suites/core.mjs).

import { median } from './stats.mjs';

export { REFERENCES, TARGETS } from '../suites/core.mjs';

/** Evaluates every target against a results object; rows whose figures are missing say so. */
export function evaluateTargets(results, list) {
  const rps = ([scenario, fw]) => {
    const row = results.results[scenario]?.[fw];
    return row && row.status === 'ok' ? row.median.rps : Number.NaN;
  };
  const cpu = ([scenario, fw]) => {
    const row = results.results[scenario]?.[fw];
    return row && row.status === 'ok' ? row.median.cpuUs : Number.NaN;
  };
  // Slices of two frameworks in one scenario measured in the same pass: the median of their ratios.
  const paired = (a, b) => {
    if (a[0] !== b[0]) return Number.NaN;
    const rowA = results.results[a[0]]?.[a[1]];
    const rowB = results.results[b[0]]?.[b[1]];
    if (!rowA || !rowB || rowA.status !== 'ok' || rowB.status !== 'ok') return Number.NaN;
    const key = (r) => `${r.round}.${r.slice}`;
    const inB = new Map(rowB.rounds.filter((r) => r.slice !== undefined && !r.error && !r.disturbed).map((r) => [key(r), r.rps]));
    const ratios = rowA.rounds
      .filter((r) => r.slice !== undefined && !r.error && !r.disturbed && inB.has(key(r)))
      .map((r) => r.rps / inB.get(key(r)));
    return median(ratios);
  };
  return list.map((t) => {
    const ratio = rps(t.a) / rps(t.b);
    const pairedRatio = paired(t.a, t.b);
    // The same comparison by server CPU per request (the inverse, so that above 1 still means faster).
    const cpuRatio = cpu(t.b) / cpu(t.a);
    const known = Number.isFinite(ratio);
    const judged = Number.isFinite(pairedRatio) ? pairedRatio : ratio;
    const met = known && t.min !== undefined && (t.strict ? judged > t.min : judged >= t.min);
    return {
      ...t,
      ratio: known ? ratio : null,
      met: known ? met : null,
      cpuRatio: Number.isFinite(cpuRatio) ? cpuRatio : null,
      pairedRatio: Number.isFinite(pairedRatio) ? pairedRatio : null,
    };
  });
}
