// RESULTS.md from a results object: machine and method once, then one section per suite
// (summary, when measured, targets, probes, one table per scenario), then every round.
import { median } from './stats.mjs';
import { evaluateTargets } from './targets.mjs';

export { addRatios, median, summarizeRow } from './stats.mjs';

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const fmtRps = (x) => (Number.isFinite(x) ? int.format(x) : '–');
const fmtMs = (x) => (Number.isFinite(x) ? `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms` : '–');
const fmtUs = (x) => (Number.isFinite(x) ? `${x.toFixed(2)} µs` : '–');
const fmtMiB = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const fmtRatio = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : `${x.toFixed(2)}×`);
const fmtCores = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const fmtSpread = (row) =>
  row.spread && Number.isFinite(row.median.rps) && row.median.rps > 0
    ? `${Math.round((row.spread.minRps / row.median.rps) * 100)}–${Math.round((row.spread.maxRps / row.median.rps) * 100)}`
    : '–';
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const when = (iso) => (iso ? `${iso.slice(0, 10)} (${iso.slice(11, 16)} UTC)` : 'an unknown date');

/** Column titles of the extra figures a scenario can ask for (`extraFigures`). */
const FIGURE_TITLES = {
  mbps: 'MiB/s received',
  uploadMbps: 'MiB/s sent',
  p75Ms: 'p75',
  p90Ms: 'p90',
  avgMs: 'mean latency',
};
const figureTitle = (name) => FIGURE_TITLES[name] ?? name;
function fmtFigure(name, x) {
  if (!Number.isFinite(x)) return '–';
  if (name.endsWith('Ms')) return fmtMs(x);
  if (Math.abs(x) >= 1000) return int.format(x);
  return x.toFixed(Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2);
}

/**
 * The frameworks of a scenario's table, in order: as its `servers` list them (the suite author's
 * order), else in the order of the file's frameworks; only those with a row.
 */
function rowsOf(results, s) {
  const ids = s.servers ? Object.keys(s.servers) : results.frameworks.map((f) => f.id);
  const byId = new Map(results.frameworks.map((f) => [f.id, f]));
  return ids.filter((id) => results.results[s.name]?.[id] && byId.has(id)).map((id) => byId.get(id));
}

function rowStatusText(row) {
  if (row.status === 'unsupported') return 'not implemented';
  if (row.status === 'skipped') return 'not run';
  return `error: ${row.error}`;
}

/** What one `rps` counts: "request" for req/s, "msg" for msg/s. */
const perWhat = (unit) => (unit === 'req/s' ? 'request' : unit.replace(/\/s$/, ''));

/** The baseline's name in running text and in a column title. */
function baselineNames(id, fwLabel) {
  if (id === 'uws') return { text: 'raw uWebSockets.js', short: 'uWS' };
  return { text: fwLabel[id] ?? id, short: fwLabel[id] ?? id };
}

function fmtConfig(c) {
  if (!c) return 'unknown settings';
  return c.slices !== undefined
    ? `${c.rounds} round(s) × ${c.slices} slice(s) of ${c.durationSeconds} s`
    : `${c.rounds} round(s) of ${c.durationSeconds} s`;
}

function measuredText(m, withConfig = true) {
  // Fewer rounds or slices already show in the settings; say only how the selection was narrowed.
  const narrowed = (m.partialReasons ?? []).filter((r) => r.startsWith('BENCH_'));
  const reasons = narrowed.length ? `; narrowed by ${narrowed.join(', ')}` : '';
  const cpu = m.cpu ? ` on ${m.cpu}` : '';
  return `${when(m.finishedAt)} at commit ${m.commit}${cpu}${withConfig ? `, ${fmtConfig(m.config)}` : ''}${reasons}`;
}

/**
 * Renders RESULTS.md. `suites` are the suites as loadSuites() returns them (titles, targets,
 * references, probes' order); a suite in the file that the code no longer has is still shown,
 * under its name.
 */
export function renderMarkdown(results, suites = []) {
  const { machine, frameworks, scenarios } = results;
  const config = methodConfig(results);
  const fwLabel = Object.fromEntries(frameworks.map((f) => [f.id, f.label]));
  const out = [];

  out.push('# Benchmark results', '');
  if (results.merged) {
    out.push(
      `Last written on ${when(results.finishedAt)} by \`benchmarks/run.mjs\`, after a run of part of the benchmarks (${results.partialReasons.join('; ')}) that replaced only what it measured; each section says when and at which commit its figures were measured.`,
    );
  } else {
    out.push(
      `Measured on ${results.finishedAt.slice(0, 10)} (${results.finishedAt.slice(11, 16)} UTC) by \`benchmarks/run.mjs\`; the run took ${Math.round(results.elapsedSeconds / 60)} min.`,
    );
    if (results.partial) {
      out.push('', `> **Partial run** (${results.partialReasons.join('; ')}): not every framework or scenario was measured with the default settings.`);
    }
  }
  // Suites measured on different machines (a narrowed run merged in later): each suite's
  // "Measured" table names its CPU, and the Machine table lists every CPU in the file.
  const cpus = [...new Set([...scenarios.map((s) => s.measured?.cpu), ...Object.values(results.probes ?? {}).map((p) => p.measured?.cpu)].filter(Boolean))];
  out.push(
    '',
    cpus.length > 1
      ? "The scenarios were measured on more than one machine over time: each scenario's figures come from one run on one machine (its suite's Measured table names the CPU), so compare frameworks within a scenario, and scenarios with each other only where the CPU is the same. See README.md for how they are produced."
      : 'Numbers come from one machine and are only comparable within this file. See README.md for how they are produced.',
    '',
  );

  out.push('## Machine', '');
  out.push('| | |', '| --- | --- |');
  out.push(`| CPU | ${cpus.length > 1 ? cpus.map(cell).join('; ') : `${cell(machine.cpuModel)}, ${machine.cores} cores`} |`);
  out.push(`| Memory | ${machine.memoryGiB} GiB |`);
  out.push(`| OS | ${cell(machine.os)}, Linux ${machine.kernel} |`);
  out.push(`| Node.js | ${machine.node} |`);
  out.push(`| uWebSockets.js | ${machine.uws.package}, native binary \`${machine.uws.binary}\` |`);
  out.push(`| wrk | ${machine.wrk} |`);
  out.push(`| Repository | ${machine.git} |`);
  out.push('');
  out.push(`Frameworks: ${frameworks.map((f) => `${f.label} ${f.version}`).join(', ')}.`, '');

  renderMethod(out, results, config);

  // Sections in the order of the suites, then any suite the code no longer has.
  const known = suites.map((s) => s.name);
  const inFile = [...new Set([...scenarios.map((s) => s.suite), ...Object.values(results.probes ?? {}).map((p) => p.suite)])];
  const order = [...known.filter((n) => inFile.includes(n)), ...inFile.filter((n) => !known.includes(n))];
  for (const name of order) {
    const suite = suites.find((s) => s.name === name) ?? { name, title: name, targets: [], references: [], probes: [] };
    renderSuite(out, results, suite, fwLabel, config);
  }

  const ordered = order.flatMap((n) => scenarios.filter((s) => s.suite === n));
  const sliced = config.slices !== undefined;
  if (sliced) renderRounds(out, results, ordered, fwLabel);
  else renderLegacyRounds(out, results, ordered, fwLabel);
  out.push('', '</details>', '');
  return out.join('\n');
}

/**
 * The settings the Method section describes: those most scenarios were measured with (after a
 * merge, the narrowed run that wrote the file last may have used fewer rounds; each section
 * states its own settings anyway).
 */
function methodConfig(results) {
  const counts = new Map();
  for (const s of results.scenarios) {
    const c = s.measured?.config ?? results.config;
    const key = JSON.stringify(c);
    counts.set(key, { config: c, n: (counts.get(key)?.n ?? 0) + 1 });
  }
  let best = { config: results.config, n: 0 };
  for (const entry of counts.values()) if (entry.n > best.n) best = entry;
  return best.config;
}

function renderMethod(out, results, config) {
  const { scenarios } = results;
  // Runs from before slices measured one long stretch per framework and round.
  const sliced = config.slices !== undefined;
  out.push('## Method', '');
  out.push(
    ...(sliced
      ? [
          `- Each framework's server runs in its own Node.js process pinned to CPU ${config.serverCpu} (\`taskset\`); wrk runs pinned to CPU ${config.clientCpu} with ${config.threads} thread and ${config.connections} keep-alive connections, over loopback. Only one server is under load at a time.`,
          '- Before load, each answer is checked once (status, body, required headers); a wrong answer stops that framework for that scenario and is reported as an error.',
          `- ${config.rounds} round(s) per scenario. A round starts a fresh server for every framework, warms each up with ${config.warmupSeconds} s of the same load (not recorded), then measures ${config.slices} pass(es): in each pass every framework gets one slice of ${config.durationSeconds} s of \`wrk --latency\`, in an order rotated from pass to pass. The servers of a round are stopped at its end.`,
          '- Why slices: on this machine the speed of the CPU itself drifts, for stretches of several seconds, by 20 % or more. Short slices interleaved in one pass put every framework under the same stretches, so a slow stretch lowers all of them instead of one.',
          `- Contention guard: before each pass the runner waits (up to ${config.quietWaitSeconds} s) for the machine to be idle; while wrk runs it adds up the CPU time of every other process, the idle servers of the round included. A slice during which they used more than ${config.maxBackgroundCores} of a core is repeated (up to ${config.retries} times); if all attempts were disturbed, the least disturbed is kept and flagged.`,
          '- Tables show the median over all slices of each figure (slices still disturbed after the repeats are left out when at least half of the slices are clean). Ratio = median req/s divided by the raw uWebSockets.js median for the same scenario. p50/p99 are wrk\'s latency percentiles (median over slices). RSS is the server\'s VmRSS read just after each slice. The last column shows the slowest and fastest slice as a percentage of the median. Server CPU per request is the server process\'s user + system CPU time during a slice divided by the requests it served (median over slices); it includes the kernel\'s work for the server\'s sockets.',
        ]
      : [
          `- Each server runs alone in a fresh Node.js process pinned to CPU ${config.serverCpu} (\`taskset\`); wrk runs pinned to CPU ${config.clientCpu} with ${config.threads} thread and ${config.connections} keep-alive connections, over loopback.`,
          '- Before load, the answer is checked once (status, body, required headers); a wrong answer stops that framework for that scenario and is reported as an error.',
          `- Warm-up: ${config.warmupSeconds} s of the same load, not recorded. Measurement: ${config.durationSeconds} s with \`wrk --latency\`.`,
          `- ${config.rounds} round(s) per scenario; the order of the frameworks is rotated each round so that none always goes first.`,
          `- Contention guard: before each server starts, the runner waits (up to ${config.quietWaitSeconds} s) for the machine to be idle; while wrk runs it adds up the CPU time of every other process. A measurement during which other processes used more than ${config.maxBackgroundCores} of a core is repeated (up to ${config.retries} times); if all attempts were disturbed, the least disturbed is kept and flagged.`,
          '- Tables show the median over rounds of each figure (rounds still disturbed after the repeats are left out when at least half of the rounds are clean). Ratio = median req/s divided by the raw uWebSockets.js median for the same scenario. p50/p99 are wrk\'s latency percentiles (median over rounds). RSS is the server\'s VmRSS read just after the measured load. The last column shows the slowest and fastest round as a percentage of the median. Server CPU per request is the server process\'s user + system CPU time during the measured load divided by the requests served (median over rounds); it includes the kernel\'s work for the server\'s sockets.',
        ]),
  );
  // What only the suites beyond core use; said only when a scenario in the file uses it.
  if (scenarios.some((s) => s.suite !== 'core')) {
    out.push(
      "- Other suites: a scenario's ratios are to its own baseline (named in its table), and a server that starts child processes (a cluster) is measured as a whole: CPU time and VmRSS are summed over the server process and all its descendants. A large request body is read by wrk from a file. Figures are per operation of the scenario's unit (req/s, msg/s …).",
    );
  }
  if (scenarios.some((s) => s.load === 'custom')) {
    out.push(
      `- Scenarios with their own load generator (WebSocket messages and the like) run it instead of wrk, pinned to CPU ${config.clientCpu}, in the same slices, warm-up, contention guard and CPU/RSS sampling; it reports operations per second and, where it can, latency percentiles.`,
    );
  }
  if (Object.keys(results.probes ?? {}).length > 0) {
    out.push('- Probes are one-off measurements (memory with many files or connections, spread over cluster workers …), run once per framework after the sliced scenarios of the run that measured them; each says what it measures.');
  }
  if (scenarios.some((s) => s.pin === false)) {
    out.push('- Scenarios marked "not pinned" (cluster) run the server and the load generator without `taskset`, so that a server can spread over every CPU.');
  }
  out.push('');
}

function suiteScenarios(results, suite) {
  const inFile = results.scenarios.filter((s) => s.suite === suite.name);
  const codeOrder = (suite.scenarios ?? []).map((s) => s.name);
  const rank = (n) => (codeOrder.includes(n) ? codeOrder.indexOf(n) : codeOrder.length);
  return [...inFile].sort((a, b) => rank(a.name) - rank(b.name));
}

function renderSuite(out, results, suite, fwLabel, config) {
  const scenarios = suiteScenarios(results, suite);
  out.push(`## ${suite.title}`, '');
  out.push(`Suite \`${suite.name}\` (\`BENCH_SUITE=${suite.name}\`).`, '');

  if (scenarios.length > 0) {
    renderSummary(out, results, scenarios, fwLabel);
    renderMeasured(out, scenarios);
    renderQuality(out, results, scenarios);
  }
  renderTargets(out, results, suite, config);
  renderProbes(out, results, suite);
  for (const s of scenarios) renderScenario(out, results, s, fwLabel);
}

/** One row per framework taking part in any of the suite's scenarios, one column per scenario. */
function renderSummary(out, results, scenarios, fwLabel) {
  const units = new Set(scenarios.map((s) => s.unit));
  const baselines = new Set(scenarios.map((s) => s.baseline));
  const uniform = units.size === 1 && baselines.size === 1;
  out.push('### Summary', '');
  if (uniform) {
    const [unit] = units;
    const [baseline] = baselines;
    const what = unit === 'req/s' ? 'requests per second' : unit;
    out.push(`Median ${what} (ratio to ${baselineNames(baseline, fwLabel).text}).`, '');
  } else {
    out.push("Median of each scenario's figure, in the unit its column names, with the ratio to the scenario's baseline.", '');
  }
  const head = (s) => (uniform ? s.name : `${s.name} (${s.unit}; ratio to ${baselineNames(s.baseline, fwLabel).short})`);
  out.push(`| Framework | ${scenarios.map((s) => cell(head(s))).join(' | ')} |`);
  out.push(`| --- | ${scenarios.map(() => '---:').join(' | ')} |`);
  const rows = [...new Set(scenarios.flatMap((s) => rowsOf(results, s)))];
  for (const f of rows) {
    const cells = scenarios.map((s) => {
      const row = results.results[s.name]?.[f.id];
      if (!row) return '–';
      if (row.status !== 'ok') return row.status === 'error' ? 'error' : '–';
      return f.id === s.baseline ? fmtRps(row.median.rps) : `${fmtRps(row.median.rps)} (${fmtRatio(row.ratio)})`;
    });
    out.push(`| ${cell(f.label)} | ${cells.join(' | ')} |`);
  }
  out.push('');
}

/** When, at which commit and how the suite's scenarios were measured. */
function renderMeasured(out, scenarios) {
  const texts = scenarios.map((s) => measuredText(s.measured));
  if (new Set(texts).size === 1) {
    out.push(`Measured on ${texts[0]}.`, '');
    return;
  }
  out.push('| Scenario | Measured |', '| --- | --- |');
  scenarios.forEach((s, i) => {
    out.push(`| ${s.name} | ${cell(texts[i])} |`);
  });
  out.push('');
}

function renderQuality(out, results, scenarios) {
  const retries = Math.max(...scenarios.map((s) => s.measured.config?.retries ?? results.config.retries));
  const sliced = scenarios.every((s) => (s.measured.config ?? results.config).slices !== undefined);
  const allRounds = scenarios.flatMap((s) => Object.values(results.results[s.name] ?? {}).flatMap((r) => r.rounds));
  const measured = allRounds.filter((r) => !r.error);
  const disturbed = measured.filter((r) => r.disturbed);
  const repeated = measured.filter((r) => r.attempts > 1);
  out.push(
    `Quality: ${measured.length} ${sliced ? 'slices' : 'measurements'} kept; ${repeated.length} needed a repeat because of other load on the machine; ${disturbed.length} stayed disturbed after ${retries + 1} attempts${disturbed.length ? ' (flagged in the per-round table)' : ''}. Median background CPU during the kept measurements: ${fmtCores(median(measured.map((r) => r.backgroundCores)))} of a core.`,
    '',
  );
}

function renderTargets(out, results, suite, config) {
  const targets = (suite.targets ?? []).map((t) => ({ issue: suite.name, ...t }));
  if (targets.length > 0) {
    const sliced = config.slices !== undefined;
    out.push(
      '### Targets',
      '',
      `The speed targets of the issues, each the req/s of the first framework over the second's, three ways: the ratio of the two medians above; the second's server CPU per request over the first's; and${sliced ? '' : ' (for runs measured in slices)'} the paired ratio, the median over passes of the first's slice divided by the second's slice of the same pass (only for two frameworks in one scenario). "Met" is judged on the paired ratio where there is one (slices measured back to back share the machine's drift), else on the ratio of medians.`,
      '',
    );
    out.push('| Issue | Target | Ratio (req/s) | Met | Ratio (CPU per request) | Paired ratio (req/s) |', '| --- | --- | ---: | --- | ---: | ---: |');
    for (const t of evaluateTargets(results, targets)) {
      const met = t.met === null ? 'not measured' : t.met ? 'yes' : '**no**';
      const cpu = t.cpuRatio === null ? '–' : t.cpuRatio.toFixed(3);
      const paired = t.pairedRatio === null ? '–' : t.pairedRatio.toFixed(3);
      out.push(`| ${cell(t.issue)} | ${cell(t.label)} | ${t.ratio === null ? '–' : t.ratio.toFixed(3)} | ${met} | ${cpu} | ${paired} |`);
    }
    out.push('');
  }
  const references = evaluateTargets(results, suite.references ?? []).filter((t) => t.ratio !== null);
  if (references.length > 0) {
    out.push(
      suite.referencesNote ?? 'For reference (not targets):',
      '',
      '| Comparison | Ratio (req/s) | Ratio (CPU per request) | Paired ratio (req/s) |',
      '| --- | ---: | ---: | ---: |',
    );
    for (const t of references) {
      out.push(
        `| ${cell(t.label)} | ${t.ratio.toFixed(3)} | ${t.cpuRatio === null ? '–' : t.cpuRatio.toFixed(3)} | ${t.pairedRatio === null ? '–' : t.pairedRatio.toFixed(3)} |`,
      );
    }
    out.push('');
  }
}

function renderProbes(out, results, suite) {
  const stored = Object.entries(results.probes ?? {}).filter(([, p]) => p.suite === suite.name);
  const codeOrder = (suite.probes ?? []).map((p) => p.name);
  const rank = (n) => (codeOrder.includes(n) ? codeOrder.indexOf(n) : codeOrder.length);
  stored.sort(([a], [b]) => rank(a) - rank(b));
  for (const [name, p] of stored) {
    out.push(`### ${p.title ?? name}`, '');
    out.push(`Probe \`${name}\`, measured once per framework on ${measuredText(p.measured, false)}.`, '');
    if (p.error) {
      out.push(`**Error:** ${cell(p.error)}`, '');
      continue;
    }
    out.push(`| ${p.columns.map(cell).join(' | ')} |`);
    out.push(`| ${p.columns.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`);
    for (const row of p.rows) {
      out.push(`| ${p.columns.map((_, i) => cell(typeof row[i] === 'number' ? fmtFigure('', row[i]) : (row[i] ?? ''))).join(' | ')} |`);
    }
    out.push('');
    if (p.notes) out.push(p.notes, '');
  }
}

function renderScenario(out, results, s, fwLabel) {
  const config = s.measured?.config ?? results.config;
  const sliced = config.slices !== undefined;
  const perRow = config.rounds * (config.slices ?? 1);
  const unit = sliced ? 'slice' : 'round';
  const extra = s.extraFigures ?? [];
  const pinNote = s.pin === false ? ' Not pinned: server and load generator may use every CPU.' : '';
  out.push(`### ${s.name}`, '', `${s.summary}${pinNote}`, '');
  out.push(
    `| Framework | median ${s.unit} | ratio to ${baselineNames(s.baseline, fwLabel).short} | server CPU per ${perWhat(s.unit)} | p50 | p99 | RSS after load (MiB) | ${extra.map((x) => `${figureTitle(x)} | `).join('')}${unit}s, min–max (% of median) |`,
  );
  out.push(`| --- | ---: | ---: | ---: | ---: | ---: | ---: | ${extra.map(() => '---: | ').join('')}---: |`);
  for (const f of rowsOf(results, s)) {
    const row = results.results[s.name][f.id];
    if (row.status !== 'ok') {
      out.push(`| ${cell(f.label)} | ${cell(rowStatusText(row))} | | | | | | ${extra.map(() => '| ').join('')}|`);
      continue;
    }
    const m = row.median;
    const notes = [];
    if (row.roundsOk < perRow) notes.push(`${row.roundsOk}/${perRow} ${unit}s`);
    if (row.roundsUsed < row.roundsOk) notes.push(`median of ${row.roundsUsed} undisturbed ${unit}s`);
    if (row.usesDisturbed) notes.push(`includes disturbed ${unit}s`);
    const note = notes.length ? ` (${notes.join(', ')})` : '';
    out.push(
      `| ${cell(f.label)} | ${fmtRps(m.rps)}${note} | ${fmtRatio(row.ratio)} | ${fmtUs(m.cpuUs)} | ${fmtMs(m.p50Ms)} | ${fmtMs(m.p99Ms)} | ${fmtMiB(m.rssMiB)} | ${extra.map((x) => `${fmtFigure(x, m[x])} | `).join('')}${fmtSpread(row)} |`,
    );
  }
  out.push('');
}

/** Runs measured in slices: one line per scenario, framework and round, summing up its slices. */
function renderRounds(out, results, scenarios, fwLabel) {
  out.push('## Every round', '', '<details>', '<summary>Per-round figures (click to open); every slice is in results.json</summary>', '');
  out.push(
    '| Scenario | Framework | Round | Slices kept | median req/s | slowest – fastest slice | median CPU per request | RSS after the last slice (MiB) | most background CPU | Notes |',
  );
  out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const s of scenarios) {
    // Figures of another unit than req/s say so.
    const u = s.unit && s.unit !== 'req/s' ? ` ${s.unit}` : '';
    for (const f of rowsOf(results, s)) {
      const row = results.results[s.name]?.[f.id];
      const rounds = [...new Set((row?.rounds ?? []).map((r) => r.round))];
      for (const round of rounds) {
        const all = row.rounds.filter((r) => r.round === round);
        const ok = all.filter((r) => !r.error);
        const notes = all.filter((r) => r.error).map((r) => `error: ${r.error}`);
        const disturbed = ok.filter((r) => r.disturbed).length;
        const repeated = ok.filter((r) => r.attempts > 1).length;
        if (disturbed) notes.push(`${disturbed} disturbed`);
        if (repeated) notes.push(`${repeated} repeated`);
        const socketErrors = ok.reduce((n, r) => {
          const se = r.socketErrors;
          return se ? n + se.connect + se.read + se.write + se.timeout : n;
        }, 0);
        if (socketErrors) notes.push(`${socketErrors} socket errors`);
        const rps = ok.map((r) => r.rps);
        const last = ok[ok.length - 1];
        out.push(
          `| ${s.name} | ${cell(fwLabel[f.id])} | ${round} | ${ok.length} | ${fmtRps(median(rps))}${u} | ${rps.length ? `${fmtRps(Math.min(...rps))} – ${fmtRps(Math.max(...rps))}${u}` : '–'} | ${fmtUs(median(ok.map((r) => r.cpuMicrosPerRequest)))} | ${fmtMiB(last?.rssMiB)} | ${fmtCores(Math.max(0, ...ok.map((r) => r.backgroundCores)))} | ${cell(notes.join('; '))} |`,
        );
      }
    }
  }
}

/** Runs from before slices: one line per measurement. */
function renderLegacyRounds(out, results, scenarios, fwLabel) {
  const { frameworks } = results;
  out.push('## Every round', '', '<details>', '<summary>Per-round figures (click to open)</summary>', '');
  out.push('| Scenario | Framework | Round | Slot | req/s | p50 | p99 | RSS (MiB) | Background CPU | Attempts | Notes |');
  out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const s of scenarios) {
    for (const f of frameworks) {
      const row = results.results[s.name]?.[f.id];
      for (const r of row?.rounds ?? []) {
        const notes = [];
        if (r.error) notes.push(`error: ${r.error}`);
        if (r.disturbed) notes.push('disturbed');
        const se = r.socketErrors;
        if (se && se.connect + se.read + se.write + se.timeout > 0) {
          notes.push(`socket errors c${se.connect}/r${se.read}/w${se.write}/t${se.timeout}`);
        }
        out.push(
          `| ${s.name} | ${cell(fwLabel[f.id])} | ${r.round} | ${r.slot} | ${fmtRps(r.rps)} | ${fmtMs(r.p50Ms)} | ${fmtMs(r.p99Ms)} | ${fmtMiB(r.rssMiB)} | ${fmtCores(r.backgroundCores)} | ${r.attempts ?? '–'} | ${cell(notes.join('; '))} |`,
        );
      }
    }
  }
}
