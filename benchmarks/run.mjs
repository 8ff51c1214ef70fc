#!/usr/bin/env node
// Benchmark runner: starts each framework's server for each scenario, checks
// its answer, loads it with wrk and writes RESULTS.md and results.json.
// See README.md for the method and the environment variables.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { FRAMEWORKS, frameworkById } from './frameworks.mjs';
import { checkScenario } from './lib/check.mjs';
import { foreignSeconds, processTimes, stealWindow, waitForQuiet } from './lib/contention.mjs';
import { describeMachine, packageVersion } from './lib/machine.mjs';
import { addRatios, renderMarkdown, summarizeRow } from './lib/report.mjs';
import { ensureCommand, have, listScenarios, serverArgs } from './lib/tools.mjs';
import { parseWrk } from './lib/wrk.mjs';
import { SCENARIOS, scenarioByName } from './scenarios.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEFAULTS = { rounds: 3, slices: 8, duration: 1 };

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

const onlyScenarios = listEnv('BENCH_ONLY');
const onlyFrameworks = listEnv('BENCH_FRAMEWORKS');

const scenarios = onlyScenarios
  ? onlyScenarios.map((n) => scenarioByName(n) ?? fail(`unknown scenario "${n}" in BENCH_ONLY (known: ${SCENARIOS.map((s) => s.name).join(', ')})`))
  : SCENARIOS;
const frameworks = onlyFrameworks
  ? FRAMEWORKS.filter((f) =>
      onlyFrameworks.some(
        (id) => (frameworkById(id) ?? fail(`unknown framework "${id}" in BENCH_FRAMEWORKS (known: ${FRAMEWORKS.map((x) => x.id).join(', ')})`)) === f,
      ),
    )
  : FRAMEWORKS.filter((f) => !f.optIn);

const partialReasons = [];
if (onlyScenarios) partialReasons.push(`BENCH_ONLY=${onlyScenarios.join(',')}`);
if (onlyFrameworks) partialReasons.push(`BENCH_FRAMEWORKS=${onlyFrameworks.join(',')}`);
if (config.rounds < DEFAULTS.rounds) partialReasons.push(`${config.rounds} round(s)`);
if (config.slices < DEFAULTS.slices) partialReasons.push(`${config.slices} slice(s) per round`);
if (config.durationSeconds < DEFAULTS.duration) partialReasons.push(`${config.durationSeconds} s per measurement`);
const partial = partialReasons.length > 0;
const writeCommitted = process.env.BENCH_WRITE === '1' || (!partial && process.env.BENCH_WRITE !== '0');

// ---------------------------------------------------------------- tools

function ensureTools() {
  try {
    ensureCommand('wrk');
  } catch (err) {
    fail(err.message);
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

const live = new Set();

function track(child) {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

function killAll() {
  for (const child of live) child.kill('SIGKILL');
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll();
    process.stderr.write(`\nbench: interrupted (${sig})\n`);
    process.exit(130);
  });
}

/** Starts a server pinned to the server CPU and resolves once it prints `PORT <n>`. */
function startServer(fw, scenario) {
  const child = track(
    spawn('taskset', ['-c', String(config.serverCpu), process.execPath, ...serverArgs(fw, scenario.name)], {
      cwd: HERE,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const lastErr = () => stderr.trim().split('\n').slice(-6).join(' / ');

  const ready = new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no PORT line within ${config.startTimeoutMs / 1000} s. ${lastErr()}`)), config.startTimeoutMs);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^PORT (\d+)\s*$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening (${signal ?? `code ${code}`}): ${lastErr() || 'no output'}`));
    });
  });
  // Keep draining stdout so a chatty server never blocks on a full pipe.
  child.stdout.resume();
  return { child, ready, exited, lastErr };
}

async function stopServer(server) {
  const { child, exited } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
  if (!done) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** CPU time (user + system) a process has used so far, in microseconds. */
function readCpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1e6) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

function readRssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Runs wrk pinned to the client CPU; resolves to its stdout. */
function runWrk(port, scenario, seconds, latency) {
  const { request } = scenario;
  const args = ['-c', String(config.clientCpu), 'wrk', `-t${config.threads}`, `-c${config.connections}`, `-d${seconds}s`];
  if (latency) args.push('--latency');
  const env = { ...process.env };
  if (request.method !== 'GET' || request.body !== undefined) {
    args.push('-s', path.join(HERE, 'wrk', 'request.lua'));
    env.BENCH_METHOD = request.method;
    env.BENCH_BODY = request.body ?? '';
    env.BENCH_CONTENT_TYPE = request.contentType ?? '';
  }
  args.push(`http://127.0.0.1:${port}${request.path}`);
  return new Promise((resolve, reject) => {
    const child = track(spawn('taskset', args, { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
    child.once('exit', (code) => {
      clearTimeout(killer);
      if (code === 0) resolve(out);
      else reject(new Error(`wrk exited with ${code}: ${(err || out).trim().split('\n').slice(-3).join(' / ')}`));
    });
  });
}

// ---------------------------------------------------------------- one round

class RowError extends Error {}

/**
 * Starts one server per framework for a scenario, checks each answer and warms
 * each one up. Resolves to a Map from framework id to { server, port }, and a
 * Map from framework id to the error that kept it out of the set.
 */
async function startSet(fws, scenario) {
  const started = fws.map((fw) => ({ fw, server: startServer(fw, scenario) }));
  const set = new Map();
  const errors = new Map();
  for (const { fw, server } of started) {
    try {
      const port = await server.ready;
      await checkScenario(port, scenario);
      set.set(fw.id, { fw, server, port });
    } catch (e) {
      errors.set(fw.id, e.message);
      await stopServer(server);
    }
  }
  if (config.warmupSeconds > 0) {
    for (const [id, entry] of set) {
      try {
        await runWrk(entry.port, scenario, config.warmupSeconds, false);
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
 * One slice: wrk loads one server of the set for the slice duration while the
 * other servers of the set sit idle. Their CPU time counts as background, like
 * any other process's.
 */
async function measureOnce(entry, scenario, logFile) {
  const { server, port } = entry;
  const ours = new Set([process.pid, server.child.pid]);
  const before = processTimes();
  const steal = stealWindow();
  const cpuBefore = readCpuMicros(server.child.pid);
  const output = await runWrk(port, scenario, config.durationSeconds, true);
  const cpuMicros = readCpuMicros(server.child.pid) - cpuBefore;
  const backgroundCores = foreignSeconds(before, processTimes(), ours) / config.durationSeconds;
  const stealSeconds = steal.end();
  const rssMiB = readRssMiB(server.child.pid);
  writeFileSync(logFile, output);

  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    throw new RowError(`server died during the load: ${server.lastErr() || 'no output'}`);
  }
  const stats = parseWrk(output);
  if (stats.requests === 0) throw new RowError('wrk completed no request');
  if (stats.non2xx > 0) throw new RowError(`${stats.non2xx} of ${stats.requests} answers under load were not 2xx/3xx`);
  return {
    ...stats,
    rssMiB,
    // The server's own CPU time per request: less sensitive than req/s to what the client and
    // the rest of the machine do, so it is the sharper figure for comparing two servers.
    cpuMicrosPerRequest: Math.round((cpuMicros / stats.requests) * 100) / 100,
    backgroundCores: Math.round(backgroundCores * 1000) / 1000,
    stealSeconds,
  };
}

/**
 * Measures one slice. A slice during which other processes used noticeable
 * CPU is repeated; if every attempt was disturbed, the least disturbed one is
 * kept and marked.
 */
async function measure(entry, scenario, logBase) {
  let best = null;
  for (let attempt = 1; attempt <= config.retries + 1; attempt++) {
    const r = await measureOnce(entry, scenario, `${logBase}-a${attempt}.txt`);
    r.attempts = attempt;
    if (!best || r.backgroundCores < best.backgroundCores) best = { ...r };
    if (r.backgroundCores <= config.maxBackgroundCores) return { ...r, disturbed: false };
    console.log(
      `    other processes used ${r.backgroundCores.toFixed(2)} CPU cores during attempt ${attempt}${attempt <= config.retries ? ': measuring again' : ''}`,
    );
  }
  return { ...best, attempts: config.retries + 1, disturbed: true };
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

async function main() {
  ensureTools();
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const runDir = path.join(HERE, '.runs', stamp);
  mkdirSync(path.join(runDir, 'wrk'), { recursive: true });

  const machine = describeMachine(HERE);
  if (!machine.uws.binaryPresent) {
    console.warn(`warning: ${machine.uws.package} has no ${machine.uws.binary}; uWS-based servers will refuse to start`);
  }

  const fwInfo = frameworks.map((f) => ({
    id: f.id,
    label: f.label,
    file: f.file,
    baseline: Boolean(f.baseline),
    version: packageVersion(f.pkg, HERE),
  }));

  // Which scenarios each framework implements.
  const supported = new Map();
  const loadErrors = new Map();
  for (const fw of frameworks) {
    try {
      supported.set(fw.id, new Set(listScenarios(fw)));
    } catch (e) {
      loadErrors.set(fw.id, e.message);
      console.log(`! ${fw.id}: ${e.message}`);
    }
  }

  const results = {};
  let planned = 0;
  for (const s of scenarios) {
    results[s.name] = {};
    for (const fw of frameworks) {
      const row = { framework: fw.id, status: 'ok', rounds: [] };
      if (loadErrors.has(fw.id)) Object.assign(row, { status: 'error', error: loadErrors.get(fw.id) });
      else if (!supported.get(fw.id).has(s.name)) row.status = 'unsupported';
      else planned += config.rounds * config.slices;
      results[s.name][fw.id] = row;
    }
  }

  // Per slice: its load plus starting wrk; per server and round: start-up, check and warm-up;
  // per pass: the short idle check.
  const estimate =
    planned * (config.durationSeconds + 0.15) +
    (planned / config.slices) * (config.warmupSeconds + 1) +
    scenarios.length * config.rounds * config.slices * 0.25;
  console.log(
    `bench: ${scenarios.length} scenario(s) × ${frameworks.length} framework(s) × ${config.rounds} round(s) × ${config.slices} slice(s) = ${planned} slice(s) of ${config.durationSeconds} s, about ${fmtDuration(estimate)} plus any wait for the machine to go idle`,
  );
  console.log(`bench: wrk logs in ${path.relative(process.cwd(), runDir) || runDir}`);

  let done = 0;
  const t0 = Date.now();
  const width = String(planned).length;
  for (const s of scenarios) {
    const rows = results[s.name];
    const fail = (id, round, message) => {
      const row = rows[id];
      row.rounds.push({ round, error: message });
      row.status = 'error';
      row.error = message;
      planned -= (config.rounds - round + 1) * config.slices - row.rounds.filter((r) => r.round === round && !r.error).length;
      console.log(`${s.name} r${round} ${id}: ERROR ${message}`);
    };
    for (let round = 1; round <= config.rounds; round++) {
      const fws = frameworks.filter((fw) => rows[fw.id].status === 'ok');
      if (fws.length === 0) break;
      await waitForQuiet({ maxWaitMs: config.quietWaitSeconds * 1000 });
      const { set, errors } = await startSet(fws, s);
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
            const tag = `[${String(done).padStart(width)}/${planned}] ${s.name} r${round}.${slice} ${fw.id}`;
            try {
              const m = await measure(entry, s, path.join(runDir, 'wrk', `${s.name}-${fw.id}-r${round}-s${slice}`));
              rows[fw.id].rounds.push({ round, slice, slot, ...m });
              console.log(
                `${tag}: ${Math.round(m.rps).toLocaleString('en-US')} req/s, p99 ${m.p99Ms.toFixed(2)} ms, ${m.cpuMicrosPerRequest.toFixed(2)} µs CPU/req${m.disturbed ? ' (disturbed by other processes)' : ''}`,
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
    for (const row of Object.values(rows)) if (row.status === 'ok') summarizeRow(row);
    const base = frameworks.find((f) => f.baseline);
    if (base) addRatios(rows, base.id);
  }

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
    scenarios: scenarios.map(({ name, summary, request, expect }) => ({ name, summary, request, expect })),
    results,
  };
  const markdown = renderMarkdown(report);
  const json = `${JSON.stringify(report, null, 2)}\n`;

  writeFileSync(path.join(runDir, 'RESULTS.md'), markdown);
  writeFileSync(path.join(runDir, 'results.json'), json);
  if (writeCommitted) {
    writeFileSync(path.join(HERE, 'RESULTS.md'), markdown);
    writeFileSync(path.join(HERE, 'results.json'), json);
    console.log('bench: wrote benchmarks/RESULTS.md and benchmarks/results.json');
  } else {
    console.log(
      `bench: partial run (${partialReasons.join('; ')}); RESULTS.md left alone (BENCH_WRITE=1 to overwrite). Report: ${path.join(runDir, 'RESULTS.md')}`,
    );
  }
  console.log(`bench: finished in ${fmtDuration(report.elapsedSeconds)}`);

  const failed = Object.entries(results).flatMap(([sn, rows]) =>
    Object.values(rows)
      .filter((r) => r.status === 'error')
      .map((r) => `${sn}/${r.framework}`),
  );
  if (failed.length) {
    console.log(`bench: errors in ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

/**
 * `node run.mjs --render [file]`: rebuilds RESULTS.md from a results.json
 * (default: ./results.json) without measuring anything, e.g. after a change to
 * the report's layout. Medians and ratios are recomputed from the rounds.
 */
function render(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const base = report.frameworks.find((f) => f.baseline);
  for (const rows of Object.values(report.results)) {
    for (const row of Object.values(rows)) if (row.status === 'ok') summarizeRow(row);
    if (base) addRatios(rows, base.id);
  }
  const dir = path.dirname(path.resolve(file));
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(dir, 'RESULTS.md'), renderMarkdown(report));
  console.log(`bench: rendered ${path.join(dir, 'RESULTS.md')} from ${file}`);
}

const run = process.argv[2] === '--render' ? async () => render(process.argv[3] ?? path.join(HERE, 'results.json')) : main;

run().catch((e) => {
  killAll();
  process.stderr.write(`bench: ${e.stack ?? e}\n`);
  process.exit(1);
});
