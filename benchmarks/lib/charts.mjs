// The charts of the root README: SVG bar charts of a results.json, written by hand (bars and
// text, no dependency). `charts.mjs` writes them to charts/*.svg and the block of the root
// README that shows them; test/charts.test.mjs reads the SVGs back and compares every bar with
// results.json.
//
// Every figure is read the way `run.mjs --render` reads it for RESULTS.md: the file brought to
// today's shape (normalizeResults), then each row's median over its kept slices (summarizeReport in stats.mjs)
// and its ratio to the scenario's baseline. Each bar carries what it shows as data-
// attributes (data-scenario, data-framework, data-rps, data-ratio) beside its visible label.

import { normalizeResults } from './results.mjs';
import { summarizeReport } from './stats.mjs';

/**
 * @typedef {object} ChartSpec
 * @property {string} name        file name without `.svg`, and the chart's id (data-chart)
 * @property {string} title
 * @property {{ name: string, title: string, caption: string }[]} scenarios  one panel each, three to
 *   a line: the scenario's name in results.json, and the panel's title and caption
 * @property {{ id: string, label?: string, version?: boolean }[]} frameworks  one bar per panel each;
 *   `label` replaces the label results.json gives, `version: false` leaves the version out
 * @property {string[]} highlight framework ids drawn in Velox's colour
 */

/**
 * The charts of the README, in its order.
 *
 * @example
 * CHARTS.map((c) => c.name); // ['core', 'express-app', 'fetch']
 */
export const CHARTS = [
  {
    name: 'core',
    title: 'Velox beside raw uWebSockets.js, other Node.js frameworks and Bun',
    scenarios: [
      { name: 'ping', title: 'ping', caption: 'GET / answers "Hi"' },
      { name: 'query', title: 'query', caption: 'a path and a query parameter' },
      { name: 'body', title: 'body', caption: 'a JSON body parsed and echoed' },
    ],
    frameworks: [
      { id: 'uws', label: 'raw uWebSockets.js', version: false },
      { id: 'velox', version: false },
      { id: 'hyper-express' },
      { id: 'ultimate-express' },
      { id: 'fastify' },
      { id: 'express' },
      { id: 'bun', label: 'Bun.serve' },
    ],
    highlight: ['velox'],
  },
  {
    name: 'express-app',
    title: 'One Express app, unchanged, on the drop-in express() of @velox/express',
    scenarios: [
      { name: 'xapp-ping', title: 'ping', caption: "res.send('Hi')" },
      { name: 'xapp-query', title: 'query', caption: 'req.params and req.query' },
      { name: 'xapp-body', title: 'body', caption: 'express.json(), res.json()' },
      { name: 'xapp-middleware', title: 'middleware', caption: 'five app.use() middlewares' },
      { name: 'xapp-routes', title: 'routes', caption: 'a Router of 50 routes' },
      { name: 'xapp-static', title: 'static', caption: 'a 1 KiB file, express.static' },
    ],
    frameworks: [
      { id: 'velox', label: 'Velox, native routes', version: false },
      { id: 'velox-express', label: '@velox/express', version: false },
      { id: 'velox-express5', label: '@velox/express/5', version: false },
      { id: 'ultimate-express' },
      { id: 'express4', label: 'Express' },
      { id: 'express' },
    ],
    highlight: ['velox-express', 'velox-express5'],
  },
  {
    name: 'fetch',
    title: 'One Hono app (the fetch API) on Velox, Bun and Node.js',
    scenarios: [
      { name: 'fetch-ping', title: 'ping', caption: "c.text('Hi')" },
      { name: 'fetch-query', title: 'query', caption: 'c.req.param(), c.req.query()' },
      { name: 'fetch-body', title: 'body', caption: 'await c.req.json(), c.json()' },
    ],
    frameworks: [
      { id: 'uws', label: 'raw uWebSockets.js, no Hono', version: false },
      { id: 'velox-fetch', label: 'Velox serve()', version: false },
      { id: 'velox-fetch-handler', label: 'Velox fetchHandler()', version: false },
      { id: 'hono-bun', label: 'Bun.serve' },
      { id: 'hono-node-server', label: '@hono/node-server' },
    ],
    highlight: ['velox-fetch', 'velox-fetch-handler'],
  },
];

/**
 * Reads a results object (as parsed from results.json, of any age) into today's shape with every
 * median and ratio recomputed from the stored slices, as `run.mjs --render` does. Changes it in
 * place and returns it. `suiteOf(name)` names a scenario's suite for files from before the suites.
 *
 * @example
 * const results = summarizeResults(JSON.parse(readFileSync('node22/results.json', 'utf8')));
 * results.results.ping.velox.median.rps; // 106087.06
 */
export function summarizeResults(report, suiteOf) {
  return summarizeReport(normalizeResults(report, suiteOf));
}

/**
 * What one chart shows, from summarized results: a panel per scenario with a bar per framework
 * (`status` 'ok' with `rps` and `ratio`, or why there is no figure), and what the chart says
 * about when and how it was measured. Throws when a scenario of the spec is not in the results.
 *
 * @example
 * const data = chartData(summarizeResults(report), CHARTS[0]);
 * data.panels[0].bars.find((b) => b.id === 'velox').ratio; // 0.9679…
 */
export function chartData(results, spec) {
  const fw = new Map(results.frameworks.map((f) => [f.id, f]));
  const missing = spec.scenarios.filter((s) => !results.scenarios.some((r) => r.name === s.name));
  if (missing.length > 0) {
    throw new Error(
      `chart "${spec.name}": no scenario ${missing.map((s) => `"${s.name}"`).join(', ')} in the results (it has ${results.scenarios.map((s) => s.name).join(', ')}); measure it or take it out of CHARTS in lib/charts.mjs`,
    );
  }
  const labelOf = (f) => f.label ?? fw.get(f.id)?.label ?? f.id;
  const versionOf = (f) => (f.version === false ? '' : (fw.get(f.id)?.version ?? ''));
  const scenarios = spec.scenarios.map(({ name }) => results.scenarios.find((s) => s.name === name));
  const panels = spec.scenarios.map(({ name, title, caption }, i) => {
    const scenario = scenarios[i];
    const rows = results.results[name] ?? {};
    const bars = spec.frameworks.map((f) => {
      const row = rows[f.id];
      const bar = { id: f.id, label: labelOf(f), baseline: f.id === scenario.baseline };
      if (!row) return { ...bar, status: 'missing', rps: null, ratio: null };
      if (row.status !== 'ok') return { ...bar, status: row.status, rps: null, ratio: null };
      const rps = Number.isFinite(row.median.rps) ? row.median.rps : null;
      const ratio = Number.isFinite(row.ratio) ? row.ratio : null;
      return { ...bar, status: rps === null ? 'error' : 'ok', rps, ratio };
    });
    return { scenario: name, title, caption, unit: scenario.unit, baseline: scenario.baseline, bars };
  });

  const baselines = [...new Set(scenarios.map((s) => s.baseline))];
  const baselineLabel = (id) => {
    const f = spec.frameworks.find((x) => x.id === id);
    return f ? labelOf(f) : (fw.get(id)?.label ?? id);
  };
  const days = scenarios.map((s) => s.measured?.finishedAt?.slice(0, 10)).filter(Boolean).sort();
  const configs = [...new Set(scenarios.map((s) => configText(s.measured?.config ?? results.config)))];
  return {
    name: spec.name,
    title: spec.title,
    highlight: spec.highlight,
    rows: spec.frameworks.map((f) => ({ id: f.id, label: labelOf(f), version: versionOf(f) })),
    panels,
    units: [...new Set(scenarios.map((s) => s.unit))],
    baselines: baselines.map((id) => ({ id, label: baselineLabel(id) })),
    node: results.machine?.node ?? 'unknown',
    uws: results.machine?.uws?.package ?? 'unknown',
    cpu: chartCpu(scenarios, results.machine),
    measured: days.length ? { from: days[0], to: days[days.length - 1] } : null,
    configs,
  };
}

function configText(c) {
  if (!c) return 'unknown settings';
  const slices = c.slices !== undefined ? `${c.rounds} rounds × ${c.slices} slices of ${c.durationSeconds} s` : `${c.rounds} rounds of ${c.durationSeconds} s`;
  return `${slices}, wrk with ${c.connections} connections`;
}

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
/**
 * A bar's figure as its label shows it.
 *
 * @example
 * formatRps(106087.06); // '106,087'
 */
export const formatRps = (rps) => int.format(rps);
/**
 * A bar's ratio as its label shows it.
 *
 * @example
 * formatRatio(0.9679); // '0.97×'
 */
export const formatRatio = (ratio) => `${ratio.toFixed(2)}×`;
/**
 * A day range as the charts and the README say it.
 *
 * @example
 * formatDays({ from: '2026-11-26', to: '2026-11-27' }); // 'from 2026-11-26 to 2026-11-27'
 */
export const formatDays = (m) => (m === null ? 'on an unknown date' : m.from === m.to ? `on ${m.from}` : `from ${m.from} to ${m.to}`);

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// Layout, in SVG units (the file is 880 wide, about what GitHub gives a README image).
const W = 880;
const PAD = 24;
const LABEL_W = 200;
const GAP = 20;
const PER_LINE = 3;
const ROW_H = 24;
const BAR_H = 14;
/** Room to the right of the longest bar for its label ("106,087 · 0.97×"). */
const TEXT_W = 104;
const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', 'Noto Sans', Helvetica, Arial, sans-serif";

// Light colours, and dark ones for a dark page: the chart carries its own background either way,
// so it stays readable when the page and the media query disagree.
const STYLE = `
  .bg { fill: #ffffff; stroke: #d1d9e0; }
  .ink { fill: #1f2328; }
  .muted { fill: #59636e; }
  .bar { fill: #b6bfc8; }
  .base { fill: #6e7781; }
  .hl { fill: #8250df; }
  .hl-ink { fill: #6639ba; }
  .line { stroke: #59636e; }
  .rule { stroke: #d1d9e0; }
  .halo { stroke: #ffffff; stroke-width: 4px; stroke-linejoin: round; paint-order: stroke; }
  @media (prefers-color-scheme: dark) {
    .bg { fill: #0d1117; stroke: #3d444d; }
    .ink { fill: #f0f6fc; }
    .muted { fill: #9198a1; }
    .bar { fill: #4d5560; }
    .base { fill: #8b949e; }
    .hl { fill: #a371f7; }
    .hl-ink { fill: #d2a8ff; }
    .line { stroke: #9198a1; }
    .rule { stroke: #3d444d; }
    .halo { stroke: #0d1117; }
  }
  text { font-family: ${FONT}; font-variant-numeric: tabular-nums; }
`;

/**
 * The SVG of one chart, from chartData(). Deterministic: the same data gives the same bytes.
 *
 * @example
 * writeFileSync('charts/core.svg', renderChart(chartData(results, CHARTS[0])));
 */
export function renderChart(data) {
  const lines = Math.ceil(data.panels.length / PER_LINE);
  const perLine = Math.min(PER_LINE, data.panels.length);
  const panelW = (W - 2 * PAD - LABEL_W - GAP * (perLine - 1)) / perLine;
  const barMax = panelW - TEXT_W;
  const top = 78;
  const headH = 40;
  const lineH = headH + data.rows.length * ROW_H + 18;
  const footTop = top + lines * lineH + 6;
  const H = footTop + 40;
  // One scale for the whole chart, so panels compare too.
  const max = Math.max(...data.panels.flatMap((p) => p.bars.map((b) => b.rps ?? 0)), 1);
  const hl = new Set(data.highlight);
  const n = (x) => Math.round(x * 10) / 10;

  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${data.name}-title ${data.name}-desc" data-chart="${esc(data.name)}" data-node="${esc(data.node)}" data-measured="${esc(data.measured ? `${data.measured.from}/${data.measured.to}` : '')}">`,
    `<title id="${data.name}-title">${esc(data.title)}</title>`,
    `<desc id="${data.name}-desc">${esc(chartSummary(data))}</desc>`,
    `<style>${STYLE}</style>`,
    `<rect class="bg" x="0.5" y="0.5" width="${W - 1}" height="${H - 1}" rx="6"/>`,
    `<text class="ink" x="${PAD}" y="34" font-size="17" font-weight="600">${esc(data.title)}</text>`,
    `<text class="muted" x="${PAD}" y="58" font-size="13">${esc(subtitle(data))}</text>`,
  );

  for (let line = 0; line < lines; line++) {
    const y0 = top + line * lineH;
    const panels = data.panels.slice(line * PER_LINE, (line + 1) * PER_LINE);
    // Framework labels, once per line of panels.
    data.rows.forEach((row, r) => {
      const y = y0 + headH + r * ROW_H + ROW_H / 2 + 4.5;
      const strong = hl.has(row.id);
      const version = row.version ? ` <tspan class="muted" font-weight="400">${esc(row.version)}</tspan>` : '';
      out.push(
        `<text class="${strong ? 'hl-ink' : 'ink'}" x="${PAD + LABEL_W - 12}" y="${n(y)}" font-size="13" text-anchor="end"${strong ? ' font-weight="600"' : ''}>${esc(row.label)}${version}</text>`,
      );
    });
    panels.forEach((panel, p) => {
      const x0 = PAD + LABEL_W + p * (panelW + GAP);
      out.push(
        `<g data-panel="${esc(panel.scenario)}">`,
        `<text class="ink" x="${n(x0)}" y="${y0 + 14}" font-size="13" font-weight="600">${esc(panel.title)}</text>`,
        `<text class="muted" x="${n(x0)}" y="${y0 + 30}" font-size="11.5">${esc(panel.caption)}</text>`,
        `<line class="rule" x1="${n(x0)}" y1="${y0 + headH - 2}" x2="${n(x0)}" y2="${y0 + headH + data.rows.length * ROW_H + 2}" stroke-width="1"/>`,
      );
      // A dashed line at the baseline's figure: 1.00×.
      const base = panel.bars.find((b) => b.baseline && b.rps !== null) ?? null;
      const baseRps = base?.rps ?? panel.bars.find((b) => b.id === panel.baseline)?.rps ?? null;
      if (baseRps !== null) {
        const bx = n(x0 + (baseRps / max) * barMax);
        out.push(
          `<line class="line" x1="${bx}" y1="${y0 + headH - 2}" x2="${bx}" y2="${y0 + headH + data.rows.length * ROW_H + 2}" stroke-width="1" stroke-dasharray="3 3"/>`,
        );
      }
      panel.bars.forEach((bar, r) => {
        const y = y0 + headH + r * ROW_H + (ROW_H - BAR_H) / 2;
        const ty = n(y + BAR_H / 2 + 4.5);
        const cls = hl.has(bar.id) ? 'hl' : bar.baseline ? 'base' : 'bar';
        if (bar.status !== 'ok') {
          const why = bar.status === 'missing' || bar.status === 'skipped' ? 'not measured' : bar.status === 'unsupported' ? 'not implemented' : 'error';
          out.push(
            `<g data-scenario="${esc(panel.scenario)}" data-framework="${esc(bar.id)}" data-status="${esc(bar.status)}">`,
            `<text class="muted" x="${n(x0 + 4)}" y="${ty}" font-size="12">${why}</text>`,
            '</g>',
          );
          return;
        }
        const w = Math.max(1.5, (bar.rps / max) * barMax);
        const ratio = bar.ratio === null ? '' : ` data-ratio="${bar.ratio.toFixed(4)}"`;
        const label = bar.baseline ? `${formatRps(bar.rps)}` : bar.ratio === null ? formatRps(bar.rps) : `${formatRps(bar.rps)} · ${formatRatio(bar.ratio)}`;
        const strong = hl.has(bar.id);
        out.push(
          `<g data-scenario="${esc(panel.scenario)}" data-framework="${esc(bar.id)}" data-status="ok" data-rps="${bar.rps}"${ratio}>`,
          `<rect class="${cls}" x="${n(x0)}" y="${n(y)}" width="${n(w)}" height="${BAR_H}" rx="2"/>`,
          `<text class="${strong ? 'hl-ink' : 'ink'} halo" x="${n(x0 + w + 5)}" y="${ty}" font-size="12"${strong ? ' font-weight="600"' : ''}>${esc(label)}</text>`,
          '</g>',
        );
      });
      out.push('</g>');
    });
  }

  const foot = [
    `Node.js ${data.node}, ${data.uws}, ${data.cpu}: the server pinned to one core, wrk to another, over loopback. Measured ${formatDays(data.measured)}.`,
    `Median of ${data.configs.join('; ')}. Higher is better. Method and every figure: benchmarks/node22/RESULTS.md.`,
  ];
  foot.forEach((text, i) => {
    out.push(`<text class="muted" x="${PAD}" y="${footTop + 12 + i * 17}" font-size="11.5">${esc(text)}</text>`);
  });
  out.push('</svg>', '');
  return out.join('\n');
}

/** "Requests per second", or the unit the scenarios share. */
function quantity(data) {
  const unit = data.units.length === 1 ? data.units[0] : 'operations per second';
  return unit === 'req/s' ? 'Requests per second' : unit;
}

const baselineText = (data) => data.baselines.map((b) => b.label).join(' or ');

function subtitle(data) {
  return `${quantity(data)}, and the ratio to ${baselineText(data)} (the dashed line) in the same run.`;
}

/**
 * The chart in words: its <desc>, and the README image's alt text (the highlighted bars' figures).
 *
 * @example
 * chartSummary(chartData(results, CHARTS[0])); // 'Velox beside raw uWebSockets.js, … ping: Velox 106,087 (0.97×); …'
 */
export function chartSummary(data) {
  const hl = new Set(data.highlight);
  const parts = data.panels.map((p) => {
    const bars = p.bars.filter((b) => hl.has(b.id) && b.status === 'ok' && !b.baseline);
    const text = bars.map((b) => `${b.label} ${formatRps(b.rps)}${b.ratio === null ? '' : ` (${formatRatio(b.ratio)})`}`);
    return text.length ? `${p.title}: ${text.join(', ')}` : null;
  });
  return `${data.title}. ${quantity(data)} (ratio to ${baselineText(data)}): ${parts.filter(Boolean).join('; ')}. Node.js ${data.node}, measured ${formatDays(data.measured)}.`;
}

/** The line that opens the README's charts block (README_END closes it). */
export const README_BEGIN = '<!-- charts: written by `pnpm -F @velox/benchmarks charts` from benchmarks/node22/results.json; edit lib/charts.mjs, not this block -->';
export const README_END = '<!-- /charts -->';

/**
 * The README's block of charts: each image with its figures as alt text, then the line saying
 * on which Node and when they were measured, and where the method is.
 *
 * @example
 * const block = readmeBlock(CHARTS.map((spec) => chartData(results, spec)), 'benchmarks/charts');
 */
export function readmeBlock(datas, dir) {
  const nodes = [...new Set(datas.map((d) => d.node))];
  const days = datas.flatMap((d) => (d.measured ? [d.measured.from, d.measured.to] : [])).sort();
  const measured = days.length ? { from: days[0], to: days[days.length - 1] } : null;
  const out = [README_BEGIN];
  for (const d of datas) out.push('', `![${chartSummary(d).replace(/[[\]]/g, '')}](${dir}/${d.name}.svg)`);
  out.push(
    '',
    `Measured on Node.js ${nodes.join(', ')} ${formatDays(measured)}, on ${machinesText(datas)}, the server pinned to one and the load generator (wrk) to another: how, in [the method](benchmarks/node22/RESULTS.md#method) and [benchmarks/README.md](benchmarks/README.md); every figure, with latency, CPU and memory, in [benchmarks/node22/RESULTS.md](benchmarks/node22/RESULTS.md).`,
    README_END,
  );
  return out.join('\n');
}

/**
 * The README with its charts block replaced; throws when the markers are missing.
 *
 * @example
 * writeFileSync('README.md', replaceReadmeBlock(readFileSync('README.md', 'utf8'), readmeBlock(datas, 'benchmarks/charts')));
 */
export function replaceReadmeBlock(readme, block) {
  const begin = readme.indexOf(README_BEGIN);
  const end = readme.indexOf(README_END);
  if (begin < 0 || end < begin) throw new Error(`the README has no charts block: put the lines\n${README_BEGIN}\n${README_END}\nwhere the charts go`);
  return readme.slice(0, begin) + block + readme.slice(end + README_END.length);
}

/** The CPU a chart's scenarios were measured on ("2 cores (AMD EPYC)"), from their records, else the file's machine. */
function chartCpu(scenarios, machine) {
  const cpus = [...new Set(scenarios.map((s) => s.measured?.cpu).filter(Boolean))];
  if (cpus.length > 0) return cpus.map((c) => c.replace(/^(.*), (\d+) cores$/, '$2 cores ($1)')).join(' and ');
  return machine ? `${machine.cores} cores (${machine.cpuModel})` : 'an unknown machine';
}

/** The machines the charts were measured on: one, or each with the charts it measured ("2 cores (AMD EPYC) for express-app"). */
function machinesText(datas) {
  const cpus = [...new Set(datas.map((d) => d.cpu))];
  if (cpus.length === 0) return 'an unknown machine';
  if (cpus.length === 1) return cpus[0];
  return cpus
    .map((cpu) => {
      const names = datas.filter((d) => d.cpu === cpu).map((d) => d.name);
      return `${cpu} for the ${names.join(' and ')} chart${names.length > 1 ? 's' : ''}`;
    })
    .join(', ');
}
