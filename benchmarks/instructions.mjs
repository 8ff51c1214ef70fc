#!/usr/bin/env node
// Work per request, counted rather than timed: each server runs under valgrind's callgrind,
// gets a fixed number of warm-up requests (so the JIT has settled), then exactly N counted
// requests; the user-space instructions executed in between, divided by N, are the figure.
// The count does not depend on what else the machine is doing, which makes it a cross-check
// for the wrk figures in RESULTS.md on a shared, noisy machine. It leaves out the kernel
// (sockets), which is the same work for every framework answering the same bytes.
// callgrind's cache simulation also counts the level-1 instruction-cache misses per request:
// how much code a request runs through, which instruction counts alone do not show.
//
//   node instructions.mjs                       every scenario, raw uWS + Velox + hyper-express
//   INSTR_ONLY=ping,body INSTR_FRAMEWORKS=velox,hyper-express node instructions.mjs
//   INSTR_WARMUP (default 15000), INSTR_COUNT (default 5000)
//   INSTR_KEEP=1 keeps each callgrind dump (its directory is printed) for callgrind_annotate
//   INSTR_NODE_FLAGS="--flag …" gives the servers' node these flags (V8 flags that NODE_OPTIONS
//     refuses, e.g. --max-inlined-bytecode-size-cumulative=3000); never part of a written run
//
// Writes INSTRUCTIONS.md and instructions.json (only for a full run unless INSTR_WRITE=1).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { frameworkById } from './frameworks.mjs';
import { rawRequest, sendFixed } from './lib/fixed-client.mjs';
import { uwsBuild } from './lib/machine.mjs';
import { ensureCommand, listScenarios, serverCommand } from './lib/tools.mjs';
import { SCENARIOS, scenarioByName } from './scenarios.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_FRAMEWORKS = ['uws', 'uws-async', 'velox', 'hyper-express'];
const warmup = Number(process.env.INSTR_WARMUP ?? 15_000);
const count = Number(process.env.INSTR_COUNT ?? 5_000);
const list = (name) => (process.env[name] ? process.env[name].split(',').map((s) => s.trim()).filter(Boolean) : null);
const onlyScenarios = list('INSTR_ONLY');
const onlyFrameworks = list('INSTR_FRAMEWORKS');
/** Extra flags for the servers' node (INSTR_NODE_FLAGS): an experiment, never a written run. */
const nodeFlags = process.env.INSTR_NODE_FLAGS ? process.env.INSTR_NODE_FLAGS.split(' ').filter(Boolean) : [];

function fail(message) {
  process.stderr.write(`instructions: ${message}\n`);
  process.exit(1);
}

const scenarios = (onlyScenarios ?? SCENARIOS.map((s) => s.name)).map((n) => scenarioByName(n) ?? fail(`unknown scenario ${n}`));
const frameworks = (onlyFrameworks ?? DEFAULT_FRAMEWORKS).map((id) => frameworkById(id) ?? fail(`unknown framework ${id}`));
if (!(Number.isInteger(warmup) && warmup >= 0 && Number.isInteger(count) && count > 0)) fail('INSTR_WARMUP and INSTR_COUNT must be whole numbers');

try {
  ensureCommand('valgrind');
} catch (err) {
  fail(err.message);
}

/**
 * One measurement of `fw` answering `scenario`: instructions and simulated level-1
 * instruction-cache misses per request.
 */
async function measure(fw, scenario) {
  const dir = mkdtempSync(path.join(tmpdir(), 'velox-instr-'));
  const server = serverCommand(fw, scenario.name, '0');
  const args = ['--tool=callgrind', `--callgrind-out-file=${dir}/cg.%p`, '--dump-instr=no', '--cache-sim=yes', server.command, ...nodeFlags, ...server.args];
  const child = spawn('valgrind', args, { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  try {
    const port = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /PORT (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`server exited (${code}): ${stderr.split('\n').slice(-5).join(' / ')}`)));
    });
    const payload = rawRequest(scenario.request, port);
    if (warmup > 0) await sendFixed(port, payload, warmup);
    control('-z', child.pid);
    await sendFixed(port, payload, count);
    control('-d', child.pid);
    const dump = path.join(dir, `cg.${child.pid}.1`);
    for (let i = 0; i < 100 && !summary(dump); i++) await sleep(100);
    const total = summary(dump);
    if (!total) throw new Error('callgrind wrote no dump');
    return { instructions: total.Ir / count, i1Misses: total.I1mr / count };
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
    if (process.env.INSTR_KEEP === '1') console.error(`callgrind dump kept in ${dir} (callgrind_annotate it)`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

function control(flag, pid) {
  const r = spawnSync('callgrind_control', [flag, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control ${flag} failed: ${r.stderr || r.stdout}`);
}

/** The dump's totals by event name (callgrind leaves trailing zero counts out), or null. */
function summary(file) {
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  const events = /^events: (.+)$/m.exec(text);
  const totals = /^summary: (.+)$/m.exec(text);
  if (!events || !totals) return null;
  const names = events[1].trim().split(/\s+/);
  const values = totals[1].trim().split(/\s+/).map(Number);
  const out = Object.fromEntries(names.map((name, i) => [name, values[i] ?? 0]));
  const cache = /^desc: I1 cache: (.+)$/m.exec(text);
  if (cache) I1_SIZE = cache[1].trim();
  if (!(out.Ir > 0) || out.I1mr === undefined) throw new Error(`unexpected callgrind summary in ${file}: ${events[1]} / ${totals[1]}`);
  return out;
}

/** The level-1 instruction cache callgrind simulates (it copies the host's), as named in the dump. */
let I1_SIZE = 'the size callgrind takes from this machine';
const implemented = new Map(frameworks.map((fw) => [fw.id, listScenarios(fw)]));
const results = {};
const i1Misses = {};
const started = Date.now();
for (const scenario of scenarios) {
  results[scenario.name] = {};
  i1Misses[scenario.name] = {};
  for (const fw of frameworks) {
    if (!implemented.get(fw.id).includes(scenario.name)) continue;
    const m = await measure(fw, scenario);
    results[scenario.name][fw.id] = Math.round(m.instructions);
    i1Misses[scenario.name][fw.id] = Math.round(m.i1Misses);
    console.log(
      `${scenario.name.padEnd(18)} ${fw.label.padEnd(22)} ${Math.round(m.instructions).toLocaleString('en-US').padStart(8)} instructions/request, ${Math.round(m.i1Misses).toLocaleString('en-US').padStart(6)} L1i misses/request`,
    );
  }
}

// ---------------------------------------------------------------- report

const fmt = (n) => n.toLocaleString('en-US');
const cols = frameworks;
/** A table of one figure per scenario (rows) and framework (columns), with its ratio to raw uWS. */
function perFramework(figures) {
  let table = `| Scenario | ${cols.map((f) => f.label).join(' | ')} |\n| --- | ${cols.map(() => '---:').join(' | ')} |\n`;
  for (const scenario of scenarios) {
    const row = figures[scenario.name];
    const base = row.uws;
    table += `| ${scenario.name} | ${cols.map((f) => (row[f.id] === undefined ? '–' : `${fmt(row[f.id])}${base && f.id !== 'uws' ? ` (${(row[f.id] / base).toFixed(2)}×)` : ''}`)).join(' | ')} |\n`;
  }
  return table;
}
let md = `# Instructions per request\n\nMeasured on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`benchmarks/instructions.mjs\` (${Math.round((Date.now() - started) / 60000)} min).\n\n`;
const uws = uwsBuild(HERE);
md += `Each server runs under valgrind's callgrind (Node.js ${process.version}; uWebSockets.js ${uws.package}, native binary \`${uws.binary}\`). After ${fmt(warmup)} warm-up requests the counters are zeroed, ${fmt(count)} more requests are sent (16 keep-alive connections, one request in flight on each), and the user-space instructions executed meanwhile (all threads: JavaScript, V8, the garbage collector, uWS) are divided by ${fmt(count)}. Kernel work is not counted. Other load on the machine does not change the count. Two runs of the same build agree to within about 1% on most rows; a garbage collection that falls inside the counted window can move a row by a few percent (raw uWS on query counted 10,415 and 11,098 in two runs). Differences larger than that settle comparisons that the noise in RESULTS.md leaves open. They are not time: a request also costs the kernel's socket work, the same for every framework sending the same bytes, so the req/s ratios in RESULTS.md are closer to 1 than these.\n\n`;
md += perFramework(results);
md += '\nIn brackets: instructions relative to raw uWebSockets.js (lower is less work). "uWebSockets.js (raw, async handler)" is raw uWS running the body scenarios through the handler `async (req, res) => res.json(await req.json())` and nothing else: the request headers copied before uWS\'s callback returns, a pending promise for the body, an async function awaiting it (see servers/core/raw-uws-async.mjs). It is the floor for any framework running that handler.\n';
if (cols.some((f) => f.id === 'velox') && cols.some((f) => f.id === 'hyper-express')) {
  md += '\n| Scenario | Velox / hyper-express | Less work than hyper-express |\n| --- | ---: | --- |\n';
  for (const scenario of scenarios) {
    const row = results[scenario.name];
    if (row.velox === undefined || row['hyper-express'] === undefined) continue;
    const ratio = row.velox / row['hyper-express'];
    md += `| ${scenario.name} | ${ratio.toFixed(3)} | ${ratio < 1 ? 'yes' : '**no**'} |\n`;
  }
}
md += `\n## Instruction-cache misses per request\n\nThe same runs, through callgrind's cache simulation (level-1 instruction cache of ${I1_SIZE}): how often a request needs code that is not in the instruction cache. Instruction counts treat every instruction alike; on the machine an instruction fetched from the level-2 cache or further costs several cycles more. A request also passes through the kernel (receive, send, poll), which evicts much of the server's code between requests, so a request that runs through more distinct code pays for more of it on every request. It is a cost instruction counts leave out, not a prediction of req/s on its own (see README.md).\n\n`;
md += perFramework(i1Misses);
md += '\nIn brackets: misses relative to raw uWebSockets.js. The simulated cache is not the machine\'s, and the simulation sees no kernel code, so these are a relative measure of code footprint, not a prediction of time.\n';
const partial = Boolean(onlyScenarios || onlyFrameworks || nodeFlags.length > 0);
if (!partial || (process.env.INSTR_WRITE === '1' && nodeFlags.length === 0)) {
  writeFileSync(path.join(HERE, 'INSTRUCTIONS.md'), md);
  writeFileSync(path.join(HERE, 'instructions.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, uws: uws.package, warmup, count, results, i1Misses }, null, 2)}\n`);
  console.log('wrote INSTRUCTIONS.md and instructions.json');
} else {
  console.log(`\n${md}`);
}
