// Medians and ratios over the slices stored in results.json.

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/**
 * Fills `row.median` from the row's successful slices (`row.rounds` holds one
 * entry per slice; results.json files from before slices hold one per round).
 * Slices flagged as disturbed by other load are left out as long as at least
 * half of them are clean; otherwise all are used (and the table says so).
 * `extraFigures` names further per-slice figures (e.g. `mbps`) whose median is kept too.
 */
export function summarizeRow(row, extraFigures = []) {
  const ok = row.rounds.filter((r) => !r.error);
  const clean = ok.filter((r) => !r.disturbed);
  const used = clean.length > 0 && clean.length * 2 >= ok.length ? clean : ok;
  row.median = {
    rps: median(used.map((r) => r.rps)),
    p50Ms: median(used.map((r) => r.p50Ms)),
    p99Ms: median(used.map((r) => r.p99Ms)),
    rssMiB: median(used.map((r) => r.rssMiB)),
    cpuUs: median(used.map((r) => r.cpuMicrosPerRequest)),
  };
  for (const name of extraFigures) {
    if (!(name in row.median)) row.median[name] = median(used.map((r) => r[name]));
  }
  const rps = used.map((r) => r.rps).filter(Number.isFinite);
  row.spread = rps.length ? { minRps: Math.min(...rps), maxRps: Math.max(...rps) } : null;
  row.roundsOk = ok.length;
  row.roundsUsed = used.length;
  row.usesDisturbed = used.some((r) => r.disturbed);
  return row;
}

/** Adds `ratio` (median req/s divided by the baseline's) to every row of a scenario. */
export function addRatios(rowsByFramework, baselineId) {
  const base = rowsByFramework[baselineId];
  const baseRps = base && base.status === 'ok' ? base.median.rps : Number.NaN;
  for (const row of Object.values(rowsByFramework)) {
    row.ratio = row.status === 'ok' && Number.isFinite(baseRps) ? row.median.rps / baseRps : null;
  }
}

/**
 * Medians and ratios of every scenario of a results object, recomputed in place from the stored
 * slices (what `run.mjs` writes RESULTS.md from, and what the charts draw).
 * @example
 * summarizeReport(report); report.results.ping.velox.median.rps;
 */
export function summarizeReport(report) {
  for (const s of report.scenarios) {
    const rows = report.results[s.name] ?? {};
    for (const row of Object.values(rows)) if (row.status === 'ok') summarizeRow(row, s.extraFigures);
    addRatios(rows, s.baseline);
  }
  return report;
}
