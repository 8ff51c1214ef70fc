// The speed targets the issues set, as ratios of two medians from the same run.
//   a / b >= min   ("ahead of" is a ratio above 1)

import { median } from './report.mjs';

const ahead = (scenario, peer, issue) => ({
  issue,
  label: `Velox ahead of ${peer} on ${scenario}`,
  a: [scenario, 'velox'],
  b: [scenario, peer],
  min: 1,
  strict: true,
});

export const TARGETS = [
  { issue: 'core', label: 'Velox ping ≥ 0.95 × raw uWS', a: ['ping', 'velox'], b: ['ping', 'uws'], min: 0.95 },
  { issue: 'core', label: 'Velox query ≥ 0.95 × raw uWS', a: ['query', 'velox'], b: ['query', 'uws'], min: 0.95 },
  { issue: 'core', label: 'Velox body ≥ 0.90 × raw uWS', a: ['body', 'velox'], b: ['body', 'uws'], min: 0.9 },
  ...['ping', 'query', 'body', 'middleware', 'routes'].map((s) => ahead(s, 'hyper-express', 'core')),
  { issue: 'router', label: 'Velox nested routers ≥ 0.95 × Velox flat route', a: ['nested', 'velox'], b: ['flat', 'velox'], min: 0.95 },
  { issue: 'router', label: 'Velox validated body ≥ 0.85 × Velox unvalidated body', a: ['validated', 'velox'], b: ['body', 'velox'], min: 0.85 },
  ...['nested', 'router-middleware', 'validated'].flatMap((s) =>
    ['hyper-express', 'ultimate-express', 'fastify'].map((peer) => ahead(s, peer, 'router')),
  ),
];

/**
 * Ratios that explain a target without being one: how far the handler shape of the body
 * scenarios alone lets raw uWS fall behind raw uWS answering from its data callback, and where
 * Velox stands against that floor.
 */
export const REFERENCES = [
  { label: 'raw uWS through the async handler shape (the floor) / raw uWS, body', a: ['body', 'uws-async'], b: ['body', 'uws'] },
  { label: 'Velox / that floor, body', a: ['body', 'velox'], b: ['body', 'uws-async'] },
];

/** Evaluates every target against a results object; rows whose figures are missing say so. */
export function evaluateTargets(results, list = TARGETS) {
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
    const met = known && t.min !== undefined && (t.strict ? ratio > t.min : ratio >= t.min);
    return {
      ...t,
      ratio: known ? ratio : null,
      met: known ? met : null,
      cpuRatio: Number.isFinite(cpuRatio) ? cpuRatio : null,
      pairedRatio: Number.isFinite(pairedRatio) ? pairedRatio : null,
    };
  });
}
