// The README's charts (charts/*.svg, written by charts.mjs) against node22/results.json: every
// bar's figures are read back from the committed SVG and compared with the medians and ratios
// recomputed here from the stored slices, and with what RESULTS.md prints; so a chart that was
// not written again after results.json changed fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { chartFiles } from '../charts.mjs';
import { CHARTS, chartData, README_BEGIN, README_END, renderChart, replaceReadmeBlock, summarizeResults } from '../lib/charts.mjs';
import { normalizeResults } from '../lib/results.mjs';
import { addRatios, summarizeRow } from '../lib/stats.mjs';

const HERE = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const RESULTS = path.join(HERE, 'node22', 'results.json');
const CHARTS_DIR = path.join(HERE, 'charts');
const README = path.join(HERE, '..', 'README.md');
const scratch = mkdtempSync(path.join(tmpdir(), 'velox-charts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const loadReport = (file = RESULTS) => JSON.parse(readFileSync(file, 'utf8'));

/** Every bar a chart should show, recomputed from the slices as RESULTS.md's renderer does. */
function expectedBars(report, spec) {
  normalizeResults(report);
  const bars = [];
  for (const { name } of spec.scenarios) {
    const scenario = report.scenarios.find((s) => s.name === name);
    const rows = report.results[name];
    for (const row of Object.values(rows)) if (row.status === 'ok') summarizeRow(row, scenario.extraFigures);
    addRatios(rows, scenario.baseline);
    for (const { id } of spec.frameworks) {
      const row = rows[id];
      bars.push({
        scenario: name,
        framework: id,
        status: row?.status ?? 'missing',
        baseline: id === scenario.baseline,
        rps: row?.status === 'ok' ? row.median.rps : null,
        ratio: row?.status === 'ok' ? row.ratio : null,
      });
    }
  }
  return bars;
}

const unescapeXml = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');

/** The bars of an SVG as written: data- attributes, the rect's width, the label's text. */
function readBars(svg) {
  const bars = [];
  for (const m of svg.matchAll(/<g (data-scenario="[^>]*)>\n([\s\S]*?)\n<\/g>/g)) {
    const attrs = Object.fromEntries([...m[1].matchAll(/data-([a-z]+)="([^"]*)"/g)].map(([, k, v]) => [k, unescapeXml(v)]));
    const width = m[2].match(/<rect [^>]*width="([\d.]+)"/)?.[1];
    const text = unescapeXml((m[2].match(/<text [^>]*>([\s\S]*?)<\/text>/)?.[1] ?? '').replace(/<[^>]+>/g, ''));
    bars.push({
      scenario: attrs.scenario,
      framework: attrs.framework,
      status: attrs.status,
      rps: attrs.rps === undefined ? null : Number(attrs.rps),
      ratio: attrs.ratio === undefined ? null : Number(attrs.ratio),
      width: width === undefined ? null : Number(width),
      text,
    });
  }
  return bars;
}

const thousands = (x) => Math.round(x).toLocaleString('en-US');

/** What differs between the bars an SVG shows and those results.json gives. */
function compare(svg, expected) {
  const shown = readBars(svg);
  const problems = [];
  const key = (b) => `${b.scenario}/${b.framework}`;
  const byKey = new Map(shown.map((b) => [key(b), b]));
  if (byKey.size !== shown.length) problems.push('a bar is drawn twice');
  for (const want of expected) {
    const got = byKey.get(key(want));
    byKey.delete(key(want));
    if (!got) {
      problems.push(`${key(want)}: no bar`);
      continue;
    }
    if (got.status !== want.status) problems.push(`${key(want)}: status ${got.status}, results.json says ${want.status}`);
    if (got.rps !== want.rps) problems.push(`${key(want)}: ${got.rps} req/s, results.json gives ${want.rps}`);
    const ratio = want.ratio === null ? null : Number(want.ratio.toFixed(4));
    if (got.ratio !== ratio) problems.push(`${key(want)}: ratio ${got.ratio}, results.json gives ${ratio}`);
    if (want.status === 'ok') {
      // The baseline's bar shows no ratio (it is 1.00×, the dashed line).
      const label = ratio === null || want.baseline ? thousands(want.rps) : `${thousands(want.rps)} · ${want.ratio.toFixed(2)}×`;
      if (got.text !== label) problems.push(`${key(want)}: labelled "${got.text}", results.json gives "${label}"`);
    }
  }
  for (const k of byKey.keys()) problems.push(`${k}: a bar results.json does not have in this chart`);
  return problems;
}

/** The medians and ratios RESULTS.md prints, by framework label and scenario: "106,087 (0.97×)". */
function resultsMdCells(md) {
  const cells = new Map();
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('| Framework |') || !lines[i + 1]?.startsWith('| --- |')) continue;
    const head = lines[i].split('|').slice(2, -1).map((c) => c.trim());
    for (let j = i + 2; lines[j]?.startsWith('|'); j++) {
      const row = lines[j].split('|').slice(1, -1).map((c) => c.trim());
      head.forEach((scenario, c) => {
        cells.set(`${scenario}/${row[0]}`, row[c + 1]);
      });
    }
  }
  return cells;
}

describe('the committed charts (charts/*.svg)', () => {
  for (const spec of CHARTS) {
    it(`${spec.name}.svg shows each bar's median req/s and ratio as results.json gives them`, () => {
      const svg = readFileSync(path.join(CHARTS_DIR, `${spec.name}.svg`), 'utf8');
      const expected = expectedBars(loadReport(), spec);
      expect(expected.filter((b) => b.status === 'ok').length).toBeGreaterThan(spec.scenarios.length);
      expect(compare(svg, expected)).toEqual([]);
    });

    it(`${spec.name}.svg draws each bar in proportion to its req/s`, () => {
      const bars = readBars(readFileSync(path.join(CHARTS_DIR, `${spec.name}.svg`), 'utf8')).filter((b) => b.status === 'ok');
      const top = bars.reduce((a, b) => (b.rps > a.rps ? b : a));
      for (const bar of bars) {
        // Widths are written to 0.1; the thinnest bars are drawn 1.5 wide at least.
        expect(Math.abs(bar.width - Math.max(1.5, (top.width * bar.rps) / top.rps)), `${bar.scenario}/${bar.framework}`).toBeLessThan(0.15);
      }
    });

    it(`${spec.name}.svg says on which Node.js and on which days its scenarios were measured`, () => {
      const svg = readFileSync(path.join(CHARTS_DIR, `${spec.name}.svg`), 'utf8');
      const report = loadReport();
      const days = spec.scenarios.map((s) => report.scenarios.find((r) => r.name === s.name).measured.finishedAt.slice(0, 10)).sort();
      expect(svg).toContain(`data-node="${report.machine.node}"`);
      expect(svg).toContain(`data-measured="${days[0]}/${days[days.length - 1]}"`);
      expect(svg).toContain(`Node.js ${report.machine.node}`);
      expect(svg).toContain(days[0] === days[days.length - 1] ? `Measured on ${days[0]}.` : `Measured from ${days[0]} to ${days[days.length - 1]}.`);
    });

    it(`${spec.name}.svg shows the figures RESULTS.md prints beside it`, () => {
      const report = loadReport();
      const label = new Map(report.frameworks.map((f) => [f.id, f.label]));
      const cells = resultsMdCells(readFileSync(path.join(HERE, 'node22', 'RESULTS.md'), 'utf8'));
      const bars = readBars(readFileSync(path.join(CHARTS_DIR, `${spec.name}.svg`), 'utf8')).filter((b) => b.status === 'ok');
      for (const bar of bars) {
        const cell = cells.get(`${bar.scenario}/${label.get(bar.framework)}`);
        expect(cell, `${bar.scenario}/${bar.framework}`).toBe(bar.text.replace(/ · (.*)$/, ' ($1)'));
      }
    });
  }

  it('are what `pnpm -F @velox/benchmarks charts` writes from results.json now, and so is the README block', () => {
    const files = chartFiles();
    expect(Object.keys(files).sort()).toEqual([README, ...CHARTS.map((s) => path.join(CHARTS_DIR, `${s.name}.svg`))].sort());
    for (const [file, text] of Object.entries(files)) expect(readFileSync(file, 'utf8'), path.relative(HERE, file)).toBe(text);
  });

  it('are shown in the README, with the Node.js version and the days they were measured', () => {
    const readme = readFileSync(README, 'utf8');
    const block = readme.slice(readme.indexOf(README_BEGIN), readme.indexOf(README_END));
    const report = loadReport();
    for (const spec of CHARTS) expect(block).toContain(`](benchmarks/charts/${spec.name}.svg)`);
    const days = CHARTS.flatMap((spec) => spec.scenarios.map((s) => report.scenarios.find((r) => r.name === s.name).measured.finishedAt.slice(0, 10))).sort();
    expect(block).toContain(`Measured on Node.js ${report.machine.node} from ${days[0]} to ${days[days.length - 1]}`);
    expect(block).toContain('(benchmarks/node22/RESULTS.md#method)');
    expect(readFileSync(path.join(HERE, 'node22', 'RESULTS.md'), 'utf8')).toContain('\n## Method\n');
  });
});

describe('a chart after results.json changed', () => {
  // Velox's ping slices 10 % faster: the figures the committed core chart shows are stale.
  const changed = path.join(scratch, 'results.json');
  const report = loadReport();
  for (const slice of report.results.ping.velox.rounds) slice.rps *= 1.1;
  writeFileSync(changed, JSON.stringify(report));

  it('fails the comparison, naming the bar', () => {
    const svg = readFileSync(path.join(CHARTS_DIR, 'core.svg'), 'utf8');
    const problems = compare(svg, expectedBars(loadReport(changed), CHARTS[0]));
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^ping\/velox: 106087\.06 req\/s, results\.json gives 116695\.\d+$/);
    expect(problems[1]).toBe('ping/velox: ratio 0.9679, results.json gives 1.0647');
    expect(problems[2]).toBe('ping/velox: labelled "106,087 · 0.97×", results.json gives "116,696 · 1.06×"');
  });

  it('makes `charts.mjs --check` exit 1 and name the stale files', () => {
    const run = spawnSync(process.execPath, ['charts.mjs', '--check', '--results', changed], { cwd: HERE, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^charts: not what results\.json gives: charts\/core\.svg, \.\.\/README\.md \(run pnpm -F @velox\/benchmarks charts\)\n$/);
  });

  it('is written again by `charts.mjs`, and then matches', () => {
    const out = path.join(scratch, 'charts');
    const readme = path.join(scratch, 'README.md');
    cpSync(README, readme);
    execFileSync(process.execPath, ['charts.mjs', '--results', changed, '--out', out, '--readme', readme], { cwd: HERE });
    const svg = readFileSync(path.join(out, 'core.svg'), 'utf8');
    expect(compare(svg, expectedBars(loadReport(changed), CHARTS[0]))).toEqual([]);
    expect(compare(svg, expectedBars(loadReport(), CHARTS[0]))).toHaveLength(3);
    expect(readFileSync(path.join(out, 'fetch.svg'), 'utf8')).toBe(readFileSync(path.join(CHARTS_DIR, 'fetch.svg'), 'utf8'));
    expect(readFileSync(readme, 'utf8')).toContain('ping: Velox 116,696 (1.06×)');
  });
});

describe('charts.mjs --check', () => {
  it('exits 0 on the committed charts and README', () => {
    const run = spawnSync(process.execPath, ['charts.mjs', '--check'], { cwd: HERE, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('charts: every chart matches results.json\n');
  });

  it('exits 1 with a message when an option has no path', () => {
    const run = spawnSync(process.execPath, ['charts.mjs', '--check', '--results'], { cwd: HERE, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('charts: --results needs a path after it\n');
  });
});

describe('chartData() and renderChart()', () => {
  it('draw a framework that failed as "error" and one that was not run as "not measured", without figures', () => {
    const report = summarizeResults(loadReport());
    report.results.ping.fastify = { framework: 'fastify', status: 'error', error: 'wrong body', rounds: [] };
    delete report.results.query.express;
    const svg = renderChart(chartData(report, CHARTS[0]));
    const bars = readBars(svg);
    expect(bars.find((b) => b.scenario === 'ping' && b.framework === 'fastify')).toEqual({ scenario: 'ping', framework: 'fastify', status: 'error', rps: null, ratio: null, width: null, text: 'error' });
    expect(bars.find((b) => b.scenario === 'query' && b.framework === 'express')).toEqual({ scenario: 'query', framework: 'express', status: 'missing', rps: null, ratio: null, width: null, text: 'not measured' });
    expect(bars.filter((b) => b.status === 'ok')).toHaveLength(3 * 7 - 2);
  });

  it('leave out every ratio of a scenario whose baseline failed', () => {
    const report = loadReport();
    report.results.body.uws = { framework: 'uws', status: 'error', error: 'did not start', rounds: [] };
    summarizeResults(report);
    const bars = readBars(renderChart(chartData(report, CHARTS[0]))).filter((b) => b.scenario === 'body');
    expect(bars.find((b) => b.framework === 'velox')).toMatchObject({ status: 'ok', rps: 85159.03, ratio: null, text: '85,159' });
    expect(bars.every((b) => b.ratio === null)).toBe(true);
  });

  it('say "from … to …" when the scenarios were measured on different days', () => {
    const report = loadReport();
    report.scenarios.find((s) => s.name === 'query').measured.finishedAt = '2026-12-03T10:00:00.000Z';
    const svg = renderChart(chartData(summarizeResults(report), CHARTS[0]));
    expect(svg).toContain('data-measured="2026-11-27/2026-12-03"');
    expect(svg).toContain('Measured from 2026-11-27 to 2026-12-03.');
  });

  it('throws naming the scenario a chart needs and results.json lacks', () => {
    const report = loadReport();
    report.scenarios = report.scenarios.filter((s) => s.name !== 'xapp-static');
    expect(() => chartData(summarizeResults(report), CHARTS[1])).toThrow(/^chart "express-app": no scenario "xapp-static" in the results \(it has ping, .*\); measure it or take it out of CHARTS in lib\/charts\.mjs$/);
  });

  it('escape what they write into the SVG', () => {
    const report = summarizeResults(loadReport());
    const spec = { ...CHARTS[0], title: 'a <b> & "c"', frameworks: [{ id: 'uws' }, { id: 'velox', label: 'Velox <fast> & "small"', version: false }] };
    const svg = renderChart(chartData(report, spec));
    expect(svg).toContain('>a &lt;b&gt; &amp; &quot;c&quot;</text>');
    expect(svg).toContain('>Velox &lt;fast&gt; &amp; &quot;small&quot;</text>');
    expect(svg).not.toContain('<b>');
  });
});

describe('replaceReadmeBlock()', () => {
  it('replaces what lies between the markers and nothing else', () => {
    const readme = `# Velox\n\nintro\n\n${README_BEGIN}\nold\n${README_END}\n\nrest\n`;
    expect(replaceReadmeBlock(readme, `${README_BEGIN}\nnew\n${README_END}`)).toBe(`# Velox\n\nintro\n\n${README_BEGIN}\nnew\n${README_END}\n\nrest\n`);
  });

  it('throws, saying which lines to add, when the README has no charts block', () => {
    expect(() => replaceReadmeBlock('# Velox\n', 'block')).toThrow(`the README has no charts block: put the lines\n${README_BEGIN}\n${README_END}\nwhere the charts go`);
  });
});
