// Medians, ratios and the Markdown report.
import { evaluateTargets, REFERENCES } from './targets.mjs';

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
 */
export function summarizeRow(row) {
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

function rowStatusText(row) {
  if (row.status === 'unsupported') return 'not implemented';
  if (row.status === 'skipped') return 'not run';
  return `error: ${row.error}`;
}

export function renderMarkdown(results) {
  const { machine, config, frameworks, scenarios } = results;
  const fwLabel = Object.fromEntries(frameworks.map((f) => [f.id, f.label]));
  const baseline = frameworks.find((f) => f.baseline);
  const out = [];

  out.push('# Benchmark results', '');
  out.push(
    `Measured on ${results.finishedAt.slice(0, 10)} (${results.finishedAt.slice(11, 16)} UTC) by \`benchmarks/run.mjs\`; the run took ${Math.round(results.elapsedSeconds / 60)} min.`,
  );
  if (results.partial) {
    out.push('', `> **Partial run** (${results.partialReasons.join('; ')}): not every framework or scenario was measured with the default settings.`);
  }
  out.push('', 'Numbers come from one machine and are only comparable within this file. See README.md for how they are produced.', '');

  out.push('## Machine', '');
  out.push('| | |', '| --- | --- |');
  out.push(`| CPU | ${cell(machine.cpuModel)}, ${machine.cores} cores |`);
  out.push(`| Memory | ${machine.memoryGiB} GiB |`);
  out.push(`| OS | ${cell(machine.os)}, Linux ${machine.kernel} |`);
  out.push(`| Node.js | ${machine.node} |`);
  out.push(`| uWebSockets.js | ${machine.uws.package}, native binary \`${machine.uws.binary}\` |`);
  out.push(`| wrk | ${machine.wrk} |`);
  out.push(`| Repository | ${machine.git} |`);
  out.push('');
  out.push(
    `Frameworks: ${frameworks.map((f) => `${f.label} ${f.version}`).join(', ')}.`,
    '',
  );

  // Runs from before slices measured one long stretch per framework and round.
  const sliced = config.slices !== undefined;
  const perRow = config.rounds * (config.slices ?? 1);
  const unit = sliced ? 'slice' : 'round';
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
    '',
  );

  const allRounds = Object.values(results.results).flatMap((rows) => Object.values(rows).flatMap((r) => r.rounds));
  const measured = allRounds.filter((r) => !r.error);
  const disturbed = measured.filter((r) => r.disturbed);
  const repeated = measured.filter((r) => r.attempts > 1);
  out.push(
    `Quality: ${measured.length} ${sliced ? 'slices' : 'measurements'} kept; ${repeated.length} needed a repeat because of other load on the machine; ${disturbed.length} stayed disturbed after ${config.retries + 1} attempts${disturbed.length ? ' (flagged in the per-round table)' : ''}. Median background CPU during the kept measurements: ${fmtCores(median(measured.map((r) => r.backgroundCores)))} of a core.`,
    '',
  );

  // Summary: one row per framework, one column per scenario.
  out.push('## Summary', '', 'Median requests per second (ratio to raw uWebSockets.js).', '');
  out.push(`| Framework | ${scenarios.map((s) => s.name).join(' | ')} |`);
  out.push(`| --- | ${scenarios.map(() => '---:').join(' | ')} |`);
  for (const f of frameworks) {
    const cells = scenarios.map((s) => {
      const row = results.results[s.name]?.[f.id];
      if (!row) return '–';
      if (row.status !== 'ok') return row.status === 'error' ? 'error' : '–';
      return f.baseline ? fmtRps(row.median.rps) : `${fmtRps(row.median.rps)} (${fmtRatio(row.ratio)})`;
    });
    out.push(`| ${cell(f.label)} | ${cells.join(' | ')} |`);
  }
  out.push('');

  out.push(
    '## Targets',
    '',
    `The speed targets of the issues, each a ratio of two medians above: req/s of the first over the second (what "Met" is judged on), and two cross-checks: the second's server CPU per request over the first's, and${sliced ? '' : ' (for runs measured in slices)'} the paired ratio, the median over passes of the first's slice divided by the second's slice of the same pass (only for two frameworks in one scenario).`,
    '',
  );
  out.push('| Issue | Target | Ratio (req/s) | Met | Ratio (CPU per request) | Paired ratio (req/s) |', '| --- | --- | ---: | --- | ---: | ---: |');
  for (const t of evaluateTargets(results)) {
    const met = t.met === null ? 'not measured' : t.met ? 'yes' : '**no**';
    const cpu = t.cpuRatio === null ? '–' : t.cpuRatio.toFixed(3);
    const paired = t.pairedRatio === null ? '–' : t.pairedRatio.toFixed(3);
    out.push(`| ${t.issue} | ${cell(t.label)} | ${t.ratio === null ? '–' : t.ratio.toFixed(3)} | ${met} | ${cpu} | ${paired} |`);
  }
  out.push('');
  const references = evaluateTargets(results, REFERENCES).filter((t) => t.ratio !== null);
  if (references.length > 0) {
    out.push(
      'For reference (not targets): the body scenario\'s handler, `async (req, res) => res.json(await req.json())`, has a cost of its own. Raw uWS running that shape and nothing else (servers/raw-uws-async.mjs: headers copied before uWS\'s callback returns, a pending promise for the body, an async function awaiting it) is the floor for any framework running that handler.',
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

  for (const s of scenarios) {
    out.push(`## ${s.name}`, '', s.summary, '');
    out.push(
      `| Framework | median req/s | ratio to ${baseline ? 'uWS' : 'baseline'} | server CPU per request | p50 | p99 | RSS after load (MiB) | ${unit}s, min–max (% of median) |`,
    );
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const f of frameworks) {
      const row = results.results[s.name]?.[f.id];
      if (!row) continue;
      if (row.status !== 'ok') {
        out.push(`| ${cell(f.label)} | ${cell(rowStatusText(row))} | | | | | | |`);
        continue;
      }
      const m = row.median;
      const notes = [];
      if (row.roundsOk < perRow) notes.push(`${row.roundsOk}/${perRow} ${unit}s`);
      if (row.roundsUsed < row.roundsOk) notes.push(`median of ${row.roundsUsed} undisturbed ${unit}s`);
      if (row.usesDisturbed) notes.push(`includes disturbed ${unit}s`);
      const note = notes.length ? ` (${notes.join(', ')})` : '';
      out.push(
        `| ${cell(f.label)} | ${fmtRps(m.rps)}${note} | ${fmtRatio(row.ratio)} | ${fmtUs(m.cpuUs)} | ${fmtMs(m.p50Ms)} | ${fmtMs(m.p99Ms)} | ${fmtMiB(m.rssMiB)} | ${fmtSpread(row)} |`,
      );
    }
    out.push('');
  }

  if (sliced) renderRounds(out, results, fwLabel);
  else renderLegacyRounds(out, results, fwLabel);
  out.push('', '</details>', '');
  return out.join('\n');
}

/** Runs measured in slices: one line per scenario, framework and round, summing up its slices. */
function renderRounds(out, results, fwLabel) {
  const { scenarios, frameworks } = results;
  out.push('## Every round', '', '<details>', '<summary>Per-round figures (click to open); every slice is in results.json</summary>', '');
  out.push(
    '| Scenario | Framework | Round | Slices kept | median req/s | slowest – fastest slice | median CPU per request | RSS after the last slice (MiB) | most background CPU | Notes |',
  );
  out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const s of scenarios) {
    for (const f of frameworks) {
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
          `| ${s.name} | ${cell(fwLabel[f.id])} | ${round} | ${ok.length} | ${fmtRps(median(rps))} | ${rps.length ? `${fmtRps(Math.min(...rps))} – ${fmtRps(Math.max(...rps))}` : '–'} | ${fmtUs(median(ok.map((r) => r.cpuMicrosPerRequest)))} | ${fmtMiB(last?.rssMiB)} | ${fmtCores(Math.max(0, ...ok.map((r) => r.backgroundCores)))} | ${cell(notes.join('; '))} |`,
        );
      }
    }
  }
}

/** Runs from before slices: one line per measurement. */
function renderLegacyRounds(out, results, fwLabel) {
  const { scenarios, frameworks } = results;
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
