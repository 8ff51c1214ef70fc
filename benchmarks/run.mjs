#!/usr/bin/env node
// Benchmark runner: for each scenario of the selected suites (suites/*.mjs), starts each
// framework's server, checks its answer, loads it with wrk (or the scenario's own load
// generator), runs the suites' probes, and writes RESULTS.md and results.json.
// See README.md for the method and the environment variables.
//
//   node run.mjs                    measure (BENCH_* variables narrow it)
//   BENCH_CHECK=1 node run.mjs      start, set up and check every selected server; no load
//   node run.mjs --render [file]    rebuild RESULTS.md from a results.json, no measuring

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bodyFilePath, checkScenario, requestBody } from './lib/check.mjs';
import { foreignProcesses, foreignSeconds, processTimes, stealWindow, waitForQuiet } from './lib/contention.mjs';
import { cpuText, describeMachine, packageVersion } from './lib/machine.mjs';
import { killAll, runPinned, spawnPinned, startServer, stopServer, track } from './lib/processes.mjs';
import { parentMap, processTree, treeCpuMicros, treeRssMiB } from './lib/proctree.mjs';
import { renderMarkdown } from './lib/report.mjs';
import { gitCommit, mergeResults, normalizeResults } from './lib/results.mjs';
import { summarizeReport } from './lib/stats.mjs';
import { findFramework, loadSuites, participants } from './lib/suites.mjs';
import { ensureCommand, have, listScenarios } from './lib/tools.mjs';
import { parseWrk } from './lib/wrk.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEFAULTS = { rounds: 3, slices: 8, duration: 1 };
/** Inline bodies longer than this go to wrk through a file (one environment string is limited to 128 KiB). */
const MAX_ENV_BODY = 64 * 1024;

// ---------------------------------------------------------------- settings

function intEnv(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) fail(`${name} must be an integer >= ${min} (got ${JSON.stringify(raw)})`);
  return n;
}

function listEnv(name) {
  const raw = process.env[name];
  if (!raw) return null;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(1);
}

const config = {
  rounds: intEnv('BENCH_ROUNDS', DEFAULTS.rounds),
  slices: intEnv('BENCH_SLICES', DEFAULTS.slices),
  durationSeconds: intEnv('BENCH_DURATION', DEFAULTS.duration),
  warmupSeconds: intEnv('BENCH_WARMUP', 2, 0),
  connections: intEnv('BENCH_CONNECTIONS', 64),
  threads: 1,
  serverCpu: intEnv('BENCH_SERVER_CPU', 0, 0),
  clientCpu: intEnv('BENCH_CLIENT_CPU', 1, 0),
  startTimeoutMs: 30_000,
  // Contention guard (see lib/contention.mjs): wait up to quietWaitSeconds for
  // the machine to go idle before each measurement; repeat a measurement (up to
  // `retries` times) when other processes used more than maxBackgroundCores of
  // CPU while wrk was running.
  quietWaitSeconds: intEnv('BENCH_QUIET_WAIT', 30, 0),
  maxBackgroundCores: Number(process.env.BENCH_MAX_BACKGROUND ?? 0.1),
  retries: intEnv('BENCH_RETRIES', 2, 0),
};
if (!(config.maxBackgroundCores >= 0)) fail('BENCH_MAX_BACKGROUND must be a number >= 0 (cores)');

const resultsFile = process.env.BENCH_RESULTS ? path.resolve(process.env.BENCH_RESULTS) : path.join(HERE, 'results.json');
const checkOnly = process.env.BENCH_CHECK === '1';
const probesOn = process.env.BENCH_PROBES !== '0';

let catalog;
try {
  catalog = loadSuites();
} catch (e) {
  fail(e.message);
}

// ---------------------------------------------------------------- selection

const onlySuites = listEnv('BENCH_SUITE');
const onlyNames = listEnv('BENCH_ONLY');
const onlyFrameworks = listEnv('BENCH_FRAMEWORKS');

for (const name of onlySuites ?? []) {
  if (!catalog.suites.some((s) => s.name === name)) {
    fail(`unknown suite "${name}" in BENCH_SUITE (known: ${catalog.suites.map((s) => s.name).join(', ')})`);
  }
}
const inSuites = (item) => !onlySuites || onlySuites.includes(item.suite);
for (const name of onlyNames ?? []) {
  const item = catalog.scenarios.find((s) => s.name === name) ?? catalog.probes.find((p) => p.name === name);
  if (!item || !inSuites(item)) {
    const known = [...catalog.scenarios, ...catalog.probes].filter(inSuites).map((s) => s.name);
    fail(`unknown scenario or probe "${name}" in BENCH_ONLY${onlySuites ? ` for BENCH_SUITE=${onlySuites.join(',')}` : ''} (known: ${known.join(', ')})`);
  }
}
const frameworkIds = onlyFrameworks
  ? new Set(
      onlyFrameworks.map(
        (id) =>
          findFramework(catalog.frameworks, id)?.id ??
          fail(`unknown framework "${id}" in BENCH_FRAMEWORKS (known: ${catalog.frameworks.map((x) => x.id).join(', ')})`),
      ),
    )
  : null;
const takesPart = (fw) => (frameworkIds ? frameworkIds.has(fw.id) : !fw.optIn);

const scenarios = catalog.scenarios.filter((s) => inSuites(s) && (!onlyNames || onlyNames.includes(s.name)));
const allProbes = catalog.probes.filter((p) => inSuites(p) && (!onlyNames || onlyNames.includes(p.name)));
const probes = probesOn ? allProbes : [];

const partialReasons = [];
if (onlySuites) partialReasons.push(`BENCH_SUITE=${onlySuites.join(',')}`);
if (onlyNames) partialReasons.push(`BENCH_ONLY=${onlyNames.join(',')}`);
if (onlyFrameworks) partialReasons.push(`BENCH_FRAMEWORKS=${onlyFrameworks.join(',')}`);
if (!probesOn && allProbes.length > 0) partialReasons.push('BENCH_PROBES=0');
// A narrowed run measures only part of the benchmarks: written, it is merged into results.json.
const narrowed = partialReasons.length > 0;
if (config.rounds < DEFAULTS.rounds) partialReasons.push(`${config.rounds} round(s)`);
if (config.slices < DEFAULTS.slices) partialReasons.push(`${config.slices} slice(s) per round`);
if (config.durationSeconds < DEFAULTS.duration) partialReasons.push(`${config.durationSeconds} s per measurement`);
const partial = partialReasons.length > 0;
const writeCommitted = process.env.BENCH_WRITE === '1' || (!partial && process.env.BENCH_WRITE !== '0');

// ---------------------------------------------------------------- tools

function ensureTools() {
  if (scenarios.some((s) => !s.load)) {
    try {
      ensureCommand('wrk');
    } catch (err) {
      fail(err.message);
    }
  }
  if (!have('taskset')) fail('taskset not found (it is part of util-linux)');
  for (const cpu of [config.serverCpu, config.clientCpu]) {
    if (spawnSync('taskset', ['-c', String(cpu), 'true']).status !== 0) {
      fail(`cannot pin to CPU ${cpu}; set BENCH_SERVER_CPU / BENCH_CLIENT_CPU to CPUs this machine has`);
    }
  }
  if (config.serverCpu === config.clientCpu) {
    console.warn('warning: server and wrk share one CPU; the numbers will mostly measure contention');
  }
}

// ---------------------------------------------------------------- processes

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll();
    process.stderr.write(`\nbench: interrupted (${sig})\n`);
    process.exit(130);
  });
}

/** Rejects with `what` timed out after `ms`, unless `promise` settles first. */
function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Runs wrk (pinned to the client CPU unless the scenario says `pin: false`); resolves to its stdout. */
function runWrk(port, scenario, seconds, latency, headers, bodyFile) {
  const { request } = scenario;
  const args = [`-t${config.threads}`, `-c${config.connections}`, `-d${seconds}s`];
  if (latency) args.push('--latency');
  const env = { ...process.env };
  const extraHeaders = Object.entries({ ...request.headers, ...headers });
  if (request.method !== 'GET' || request.body !== undefined || bodyFile !== undefined || extraHeaders.length > 0) {
    args.push('-s', path.join(HERE, 'wrk', 'request.lua'));
    env.BENCH_METHOD = request.method;
    env.BENCH_BODY = bodyFile === undefined ? (request.body ?? '') : '';
    env.BENCH_BODY_FILE = bodyFile ?? '';
    env.BENCH_CONTENT_TYPE = request.contentType ?? '';
    env.BENCH_HEADERS = extraHeaders.map(([name, value]) => `${name}: ${value}`).join('\n');
  }
  args.push(`http://127.0.0.1:${port}${request.path}`);
  return runPinned(scenario.pin ? config.clientCpu : null, 'wrk', args, { env, timeoutMs: (seconds + 30) * 1000 }).then(
    (r) => r.stdout,
    (e) => {
      throw new Error(e.message.replace(/^wrk exited with code/, 'wrk exited with'));
    },
  );
}

// ---------------------------------------------------------------- one round

class RowError extends Error {}

/** Checks that `setup` gave headers wrk and node:http can send. */
function checkHeaders(headers) {
  if (headers === undefined || headers === null) return {};
  if (typeof headers !== 'object') throw new Error('setup must resolve to { headers } (an object of strings)');
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^`|~\w-]+$/.test(name) || typeof value !== 'string' || /[\r\n]/.test(value)) {
      throw new Error(`setup returned a bad header ${JSON.stringify(name)}: ${JSON.stringify(value)}`);
    }
  }
  return { ...headers };
}

/**
 * What happens once per server start before any load: the scenario's `setup` (extra headers, e.g.
 * a session cookie), the correctness check of `request`/`expect` and `extraChecks`, and the
 * scenario's own `check`. Resolves to the headers to send under load.
 */
async function prepare(port, scenario, fwId) {
  const url = `http://127.0.0.1:${port}`;
  let headers = {};
  if (scenario.setup) headers = checkHeaders((await withTimeout(Promise.resolve(scenario.setup({ port, url })), 60_000, 'setup'))?.headers);
  if (scenario.request) await checkScenario(port, scenario, headers, fwId);
  if (scenario.check) await withTimeout(Promise.resolve(scenario.check({ port, url, headers: { ...scenario.request?.headers, ...headers } })), 60_000, 'check');
  return headers;
}

/** The body file wrk reads for a scenario, if its body is too big for the environment. */
function wrkBodyFile(scenario, runDir) {
  const { request } = scenario;
  if (!request) return undefined;
  if (request.bodyFile !== undefined) return bodyFilePath(request);
  if (request.body !== undefined && Buffer.byteLength(request.body) > MAX_ENV_BODY) {
    const file = path.join(runDir, `${scenario.name}.body`);
    if (!existsSync(file)) writeFileSync(file, request.body);
    return file;
  }
  return undefined;
}

/** Runs the scenario's own load generator once and checks what it returns. */
async function customLoad(entry, scenario, seconds, warmup) {
  const ctx = {
    port: entry.port,
    url: `http://127.0.0.1:${entry.port}`,
    seconds,
    cpu: scenario.pin ? config.clientCpu : null,
    headers: { ...scenario.request?.headers, ...entry.headers },
    warmup,
    scenario,
  };
  const figures = await withTimeout(Promise.resolve(scenario.load.measure(ctx)), (seconds + 120) * 1000, 'load.measure');
  if (!figures || typeof figures !== 'object' || !Number.isFinite(figures.rps) || figures.rps < 0) {
    throw new Error(`load.measure must resolve to { rps: <number ≥ 0>, … } (got ${JSON.stringify(figures)})`);
  }
  return figures;
}

/**
 * Starts one server per framework for a scenario, prepares (setup + check) and warms up each
 * one. Resolves to a Map from framework id to { fw, server, port, headers }, and a Map from
 * framework id to the error that kept it out of the set.
 */
async function startSet(fws, scenario, runDir) {
  const cpu = scenario.pin ? config.serverCpu : null;
  const started = fws.map((fw) => ({ fw, server: startServer(fw, scenario.name, { cpu, startTimeoutMs: config.startTimeoutMs }) }));
  const set = new Map();
  const errors = new Map();
  for (const { fw, server } of started) {
    try {
      const port = await server.ready;
      const headers = await prepare(port, scenario, fw.id);
      set.set(fw.id, { fw, server, port, headers });
    } catch (e) {
      errors.set(fw.id, e.message);
      await stopServer(server);
    }
  }
  if (config.warmupSeconds > 0) {
    for (const [id, entry] of set) {
      try {
        if (scenario.load) await customLoad(entry, scenario, config.warmupSeconds, true);
        else await runWrk(entry.port, scenario, config.warmupSeconds, false, entry.headers, wrkBodyFile(scenario, runDir));
      } catch (e) {
        errors.set(id, `warm-up failed: ${e.message}`);
        set.delete(id);
        await stopServer(entry.server);
      }
    }
  }
  return { set, errors };
}

/**
 * The processes whose CPU is not "other load" during a slice: the runner and everything it
 * started (the loaded server's tree, the load generator), except the round's idle servers,
 * whose CPU counts as background like any other process's.
 */
function ownProcesses(set, loaded) {
  const parents = parentMap();
  const ours = processTree(process.pid, parents);
  for (const entry of set.values()) {
    if (entry === loaded) continue;
    for (const pid of processTree(entry.server.child.pid, parents)) ours.delete(pid);
  }
  return ours;
}

/**
 * One slice: wrk (or the scenario's load generator) loads one server of the set for the slice
 * duration while the other servers of the set sit idle.
 */
async function measureOnce(entry, set, scenario, logBase, runDir) {
  const { server, port } = entry;
  const pid = server.child.pid;
  const before = processTimes();
  const steal = stealWindow();
  const cpuBefore = treeCpuMicros(pid);
  let stats;
  if (scenario.load) {
    const figures = await customLoad(entry, scenario, config.durationSeconds, false);
    writeFileSync(`${logBase}.json`, `${JSON.stringify(figures, null, 2)}\n`);
    stats = { ...figures, requests: Number.isFinite(figures.requests) ? figures.requests : Math.round(figures.rps * config.durationSeconds) };
  } else {
    const output = await runWrk(port, scenario, config.durationSeconds, true, entry.headers, wrkBodyFile(scenario, runDir));
    writeFileSync(`${logBase}.txt`, output);
    stats = parseWrk(output);
    const bodyBytes = scenario.request ? (requestBody(scenario.request)?.length ?? 0) : 0;
    if (bodyBytes > 0) stats.uploadMbps = (bodyBytes * stats.rps) / 2 ** 20;
  }
  const cpuMicros = treeCpuMicros(pid) - cpuBefore;
  const after = processTimes();
  const own = ownProcesses(set, entry);
  const backgroundCores = foreignSeconds(before, after, own) / config.durationSeconds;
  // Who the other load was, for the log when the slice counts as disturbed.
  const busiest = backgroundCores > config.maxBackgroundCores ? foreignProcesses(before, after, own) : [];
  const stealSeconds = steal.end();
  const rssMiB = treeRssMiB(pid);

  if (!server.alive()) {
    throw new RowError(`server died during the load: ${server.lastErr() || 'no output'}`);
  }
  if (stats.requests === 0) throw new RowError(scenario.load ? 'the load generator completed no operation' : 'wrk completed no request');
  if (stats.non2xx > 0) throw new RowError(`${stats.non2xx} of ${stats.requests} answers under load were not 2xx/3xx`);
  return {
    ...stats,
    rssMiB,
    // The server's own CPU time per request: less sensitive than req/s to what the client and
    // the rest of the machine do, so it is the sharper figure for comparing two servers.
    cpuMicrosPerRequest: Math.round((cpuMicros / stats.requests) * 100) / 100,
    backgroundCores: Math.round(backgroundCores * 1000) / 1000,
    stealSeconds,
    ...(busiest.length ? { busiest } : {}),
  };
}

/**
 * Measures one slice. A slice during which other processes used noticeable
 * CPU is repeated; if every attempt was disturbed, the least disturbed one is
 * kept and marked.
 */
async function measure(entry, set, scenario, logBase, runDir) {
  let best = null;
  for (let attempt = 1; attempt <= config.retries + 1; attempt++) {
    const r = await measureOnce(entry, set, scenario, `${logBase}-a${attempt}`, runDir);
    r.attempts = attempt;
    if (!best || r.backgroundCores < best.backgroundCores) best = { ...r };
    if (r.backgroundCores <= config.maxBackgroundCores) return { ...r, disturbed: false };
    const who = (r.busiest ?? []).map((p) => `${p.name} (pid ${p.pid}) ${p.seconds.toFixed(2)} s`).join(', ');
    console.log(
      `    other processes used ${r.backgroundCores.toFixed(2)} CPU cores during attempt ${attempt}${who ? ` (most: ${who})` : ''}${attempt <= config.retries ? ': measuring again' : ''}`,
    );
  }
  return { ...best, attempts: config.retries + 1, disturbed: true };
}

// ---------------------------------------------------------------- plan

/**
 * Who takes part in each selected scenario: the rows of its table, each 'ok' (to be measured),
 * 'unsupported' (the server file does not list it) or 'error' (the server file does not load).
 */
function plan() {
  const listed = new Map();
  const implemented = (fw) => {
    const key = `${fw.runtime ?? 'node'} ${(fw.nodeArgs ?? []).join(' ')} ${fw.file}`;
    if (!listed.has(key)) {
      try {
        listed.set(key, { names: new Set(listScenarios(fw)) });
      } catch (e) {
        listed.set(key, { error: e.message });
        console.log(`! ${fw.id}: ${e.message}`);
      }
    }
    return listed.get(key);
  };
  const planned = [];
  for (const s of scenarios) {
    const fws = participants(s, catalog.frameworks).filter(takesPart);
    if (fws.length === 0) {
      console.log(`bench: ${s.name}: no framework selected takes part; skipped`);
      continue;
    }
    const rows = {};
    for (const fw of fws) {
      const row = { framework: fw.id, status: 'ok', rounds: [] };
      if (fw.listed) {
        const found = implemented(fw);
        if (found.error) Object.assign(row, { status: 'error', error: found.error });
        else if (!found.names.has(s.name)) row.status = 'unsupported';
      }
      rows[fw.id] = row;
    }
    planned.push({ scenario: s, fws, rows });
  }
  return planned;
}

function probeFrameworks(probe) {
  return Object.entries(probe.servers)
    .map(([id, file]) => ({ ...findFramework(catalog.frameworks, id), file }))
    .filter(takesPart);
}

// ---------------------------------------------------------------- BENCH_CHECK=1

/** Starts every selected server once, runs setup and the checks, stops it: no load at all. */
async function checkAll() {
  let errors = 0;
  let checked = 0;
  const say = (name, id, text) => console.log(`${name.padEnd(20)} ${id.padEnd(20)} ${text}`);
  const attempt = async (name, id, fw, prepareFn) => {
    const server = startServer(fw, name, { startTimeoutMs: config.startTimeoutMs });
    try {
      const port = await server.ready;
      await prepareFn(port);
      checked++;
      say(name, id, 'ok');
    } catch (e) {
      errors++;
      say(name, id, `ERROR ${e.message}`);
    } finally {
      await stopServer(server);
    }
  };
  for (const { scenario, fws, rows } of plan()) {
    for (const fw of fws) {
      const row = rows[fw.id];
      if (row.status === 'unsupported') say(scenario.name, fw.id, 'not implemented');
      else if (row.status === 'error') {
        errors++;
        say(scenario.name, fw.id, `ERROR ${row.error}`);
      } else await attempt(scenario.name, fw.id, fw, (port) => prepare(port, scenario, fw.id));
    }
  }
  for (const probe of probes) {
    for (const fw of probeFrameworks(probe)) {
      await attempt(probe.name, fw.id, fw, async (port) => {
        if (probe.check) await withTimeout(Promise.resolve(probe.check({ id: fw.id, port, url: `http://127.0.0.1:${port}` })), 60_000, 'probe check');
      });
    }
  }
  console.log(`bench: check: ${checked} ok, ${errors} error(s); nothing was loaded`);
  if (errors > 0) process.exitCode = 1;
}

// ---------------------------------------------------------------- probes

async function runProbe(probe, runDir, measuredBase) {
  const started = [];
  const fws = probeFrameworks(probe);
  const ctx = {
    frameworks: fws.map(({ id, label, file }) => ({ id, label, file })),
    serverCpu: config.serverCpu,
    clientCpu: config.clientCpu,
    runDir,
    config,
    log: (message) => console.log(`  ${probe.name}: ${message}`),
    /** Starts the probe's server for `id` (pinned to the server CPU unless `pin: false`). */
    async start(id, { args = [], env = process.env, pin = true, file } = {}) {
      const fw = fws.find((f) => f.id === id) ?? (file ? findFramework(catalog.frameworks, id) : undefined);
      if (!fw) throw new Error(`probe ${probe.name}: no server for "${id}" (servers: ${fws.map((f) => f.id).join(', ') || 'none selected'})`);
      const server = startServer({ ...fw, file: file ?? fw.file }, probe.name, {
        cpu: pin ? config.serverCpu : null,
        args,
        env,
        startTimeoutMs: config.startTimeoutMs,
      });
      started.push(server);
      const port = await server.ready;
      const pid = server.child.pid;
      return {
        port,
        pid,
        url: `http://127.0.0.1:${port}`,
        rssMiB: () => treeRssMiB(pid),
        cpuMicros: () => treeCpuMicros(pid),
        stop: () => stopServer(server),
      };
    },
    spawnPinned,
    runPinned,
    track,
    treeRssMiB,
    treeCpuMicros,
    waitForQuiet: () => waitForQuiet({ maxWaitMs: config.quietWaitSeconds * 1000 }),
  };
  const entry = { suite: probe.suite, title: probe.title, servers: probe.servers };
  try {
    await waitForQuiet({ maxWaitMs: config.quietWaitSeconds * 1000 });
    const r = await probe.run(ctx);
    if (!r || !Array.isArray(r.columns) || !Array.isArray(r.rows) || !r.rows.every((row) => Array.isArray(row))) {
      throw new Error('run must resolve to { columns: string[], rows: any[][], notes?: string }');
    }
    Object.assign(entry, { columns: r.columns.map(String), rows: r.rows, notes: r.notes ? String(r.notes) : undefined });
  } catch (e) {
    entry.error = e.message;
  } finally {
    await Promise.all(started.map((s) => stopServer(s)));
  }
  entry.measured = { ...measuredBase, finishedAt: new Date().toISOString() };
  return entry;
}

// ---------------------------------------------------------------- main

function rotate(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

function fmtDuration(seconds) {
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m ? `${m} min ${s} s` : `${s} s`;
}

/** What results.json keeps of a scenario's definition (a large inline body only by its size). */
function scenarioRecord(s, fws, measured) {
  const request = s.request && s.request.body !== undefined && s.request.body.length > 4096 ? { ...s.request, body: undefined, bodyBytes: Buffer.byteLength(s.request.body) } : s.request;
  return {
    name: s.name,
    summary: s.summary,
    suite: s.suite,
    request,
    expect: s.expect,
    baseline: s.baseline,
    unit: s.unit,
    extraFigures: s.extraFigures,
    pin: s.pin,
    load: s.load ? 'custom' : 'wrk',
    servers: Object.fromEntries(fws.map((fw) => [fw.id, fw.file])),
    measured,
  };
}


const order = () => ({ scenarios: catalog.scenarios.map((s) => s.name), frameworks: catalog.frameworks.map((f) => f.id) });

async function main() {
  if (scenarios.length === 0 && probes.length === 0) {
    console.log(`bench: nothing to ${checkOnly ? 'check' : 'run'}: the selected suites (${onlySuites?.join(', ') ?? 'all'}) have no scenario or probe${onlyNames ? ' of those names' : ''} yet`);
    return;
  }
  if (checkOnly) return checkAll();
  ensureTools();
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const runDir = path.join(HERE, '.runs', stamp);
  mkdirSync(path.join(runDir, 'wrk'), { recursive: true });

  const machine = describeMachine(HERE);
  if (!machine.uws.binaryPresent) {
    console.warn(`warning: ${machine.uws.package} has no ${machine.uws.binary}; uWS-based servers will refuse to start`);
  }
  const commit = gitCommit(HERE);
  machine.git = commit;
  // The CPU goes with each scenario and probe: a narrowed run merged into results.json may come
  // from another machine than the suites it keeps, and each suite's figures say where they ran.
  const measuredBase = { startedAt: startedAt.toISOString(), commit, cpu: cpuText(machine), config, partialReasons };

  const planned = plan();
  let slicesPlanned = 0;
  for (const p of planned) slicesPlanned += Object.values(p.rows).filter((r) => r.status === 'ok').length * config.rounds * config.slices;

  // Per slice: its load plus starting wrk; per server and round: start-up, check and warm-up;
  // per pass: the short idle check.
  const estimate =
    slicesPlanned * (config.durationSeconds + 0.15) +
    (slicesPlanned / config.slices) * (config.warmupSeconds + 1) +
    planned.length * config.rounds * config.slices * 0.25;
  const fwCount = new Set(planned.flatMap((p) => p.fws.map((f) => f.id))).size;
  console.log(
    `bench: ${planned.length} scenario(s) × ${fwCount} framework(s) × ${config.rounds} round(s) × ${config.slices} slice(s) = ${slicesPlanned} slice(s) of ${config.durationSeconds} s${probes.length ? `, plus ${probes.length} probe(s)` : ''}, about ${fmtDuration(estimate)} plus any wait for the machine to go idle`,
  );
  console.log(`bench: wrk logs in ${path.relative(process.cwd(), runDir) || runDir}`);

  const results = {};
  const records = [];
  let done = 0;
  const t0 = Date.now();
  const width = String(slicesPlanned).length;
  for (const { scenario: s, fws: allFws, rows } of planned) {
    results[s.name] = rows;
    const fail = (id, round, message) => {
      const row = rows[id];
      row.rounds.push({ round, error: message });
      row.status = 'error';
      row.error = message;
      slicesPlanned -= (config.rounds - round + 1) * config.slices - row.rounds.filter((r) => r.round === round && !r.error).length;
      console.log(`${s.name} r${round} ${id}: ERROR ${message}`);
    };
    for (let round = 1; round <= config.rounds; round++) {
      const fws = allFws.filter((fw) => rows[fw.id].status === 'ok');
      if (fws.length === 0) break;
      await waitForQuiet({ maxWaitMs: config.quietWaitSeconds * 1000 });
      const { set, errors } = await startSet(fws, s, runDir);
      for (const [id, message] of errors) fail(id, round, message);
      try {
        for (let slice = 1; slice <= config.slices; slice++) {
          // A short wait for an idle machine before each pass (every framework once).
          await waitForQuiet({ maxWaitMs: config.quietWaitSeconds * 1000, sampleMs: 200 });
          const order = rotate(fws, (round - 1) * config.slices + slice - 1);
          let slot = 0;
          for (const fw of order) {
            // A framework that failed has left the set (or never joined it).
            const entry = set.get(fw.id);
            if (!entry) continue;
            slot++;
            done++;
            // A custom load (the WebSocket scenarios) can leave a server with queued work after
            // its slice; the next slice starts once the machine is idle again, so that work does
            // not land on another framework's slice.
            if (s.load) await waitForQuiet({ maxWaitMs: 10_000, sampleMs: 100 });
            const tag = `[${String(done).padStart(width)}/${slicesPlanned}] ${s.name} r${round}.${slice} ${fw.id}`;
            try {
              const m = await measure(entry, set, s, path.join(runDir, 'wrk', `${s.name}-${fw.id}-r${round}-s${slice}`), runDir);
              rows[fw.id].rounds.push({ round, slice, slot, ...m });
              const p99 = Number.isFinite(m.p99Ms) ? `, p99 ${m.p99Ms.toFixed(2)} ms` : '';
              console.log(
                `${tag}: ${Math.round(m.rps).toLocaleString('en-US')} ${s.unit}${p99}, ${m.cpuMicrosPerRequest.toFixed(2)} µs CPU/op${m.disturbed ? ' (disturbed by other processes)' : ''}`,
              );
            } catch (e) {
              // A wrong or missing answer ends this framework's row: no number is reported for it.
              fail(fw.id, round, e instanceof RowError ? e.message : `harness error: ${e.message}`);
              set.delete(fw.id);
              await stopServer(entry.server);
            }
          }
        }
      } finally {
        await Promise.all([...set.values()].map((entry) => stopServer(entry.server)));
      }
    }
    records.push(scenarioRecord(s, allFws, { ...measuredBase, finishedAt: new Date().toISOString() }));
  }

  const probeResults = {};
  for (const probe of probes) {
    console.log(`bench: probe ${probe.name} (${probe.title})`);
    probeResults[probe.name] = await runProbe(probe, runDir, measuredBase);
    const r = probeResults[probe.name];
    console.log(r.error ? `bench: probe ${probe.name}: ERROR ${r.error}` : `bench: probe ${probe.name}: ${r.rows.length} row(s)`);
  }

  const used = new Set([...planned.flatMap((p) => p.fws.map((f) => f.id)), ...probes.flatMap((p) => probeFrameworks(p).map((f) => f.id))]);
  const fwInfo = catalog.frameworks
    .filter((f) => used.has(f.id))
    .map((f) => ({
      id: f.id,
      label: f.label,
      file: f.file,
      suite: f.suite,
      baseline: Boolean(f.baseline),
      version: f.pkg ? packageVersion(f.pkg, HERE) : 'n/a',
    }));

  const finishedAt = new Date();
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    elapsedSeconds: Math.round((Date.now() - t0) / 1000),
    partial,
    partialReasons,
    config,
    machine,
    frameworks: fwInfo,
    scenarios: records,
    results,
    probes: probeResults,
  };
  summarizeReport(report);
  writeFileSync(path.join(runDir, 'RESULTS.md'), renderMarkdown(report, catalog.suites));
  writeFileSync(path.join(runDir, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);

  if (writeCommitted) {
    let written = report;
    if (narrowed && existsSync(resultsFile)) {
      const stored = readResults(resultsFile);
      written = mergeResults(stored, report, order());
      summarizeReport(written);
    }
    const mdFile = path.join(path.dirname(resultsFile), 'RESULTS.md');
    writeFileSync(resultsFile, `${JSON.stringify(written, null, 2)}\n`);
    writeFileSync(mdFile, renderMarkdown(written, catalog.suites));
    console.log(`bench: ${written.merged ? 'merged this run into' : 'wrote'} ${path.relative(process.cwd(), resultsFile) || resultsFile} and RESULTS.md beside it`);
  } else {
    console.log(
      `bench: partial run (${partialReasons.join('; ')}); RESULTS.md left alone (BENCH_WRITE=1 to merge it in). Report: ${path.join(runDir, 'RESULTS.md')}`,
    );
  }
  console.log(`bench: finished in ${fmtDuration(report.elapsedSeconds)}`);

  const failed = [
    ...Object.entries(results).flatMap(([sn, rows]) =>
      Object.values(rows)
        .filter((r) => r.status === 'error')
        .map((r) => `${sn}/${r.framework}`),
    ),
    ...Object.entries(probeResults)
      .filter(([, p]) => p.error)
      .map(([name]) => `probe ${name}`),
  ];
  if (failed.length) {
    console.log(`bench: errors in ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

/** Reads a results.json of any age into today's shape. */
function readResults(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  return normalizeResults(report, (name) => catalog.scenarios.find((s) => s.name === name)?.suite);
}

/**
 * `node run.mjs --render [file]`: rebuilds RESULTS.md from a results.json
 * (default: BENCH_RESULTS or ./results.json) without measuring anything, e.g. after a change to
 * the report's layout. Medians and ratios are recomputed from the rounds; the file is rewritten
 * in today's shape.
 */
function render(file) {
  const report = readResults(file);
  summarizeReport(report);
  const dir = path.dirname(path.resolve(file));
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(dir, 'RESULTS.md'), renderMarkdown(report, catalog.suites));
  console.log(`bench: rendered ${path.join(dir, 'RESULTS.md')} from ${file}`);
}

const run = process.argv[2] === '--render' ? async () => render(process.argv[3] ?? resultsFile) : main;

run().catch((e) => {
  killAll();
  process.stderr.write(`bench: ${e.stack ?? e}\n`);
  process.exit(1);
});
