#!/usr/bin/env node
// Instructions per request (callgrind, as instructions.mjs) for two suites whose req/s flip with
// the machine's noise: the session suite's route (Velox with and without @velox/session on its
// MemoryStore, the cookie of a stored session sent with every request) and the multipart suite's
// 1 MiB upload (raw uWS + @fastify/busboy, Velox, hyper-express); and the fetch suite's three
// scenarios (the same Hono app on Velox's serve(), with lightResponse: false, and on @hono/node-server,
// beside raw uWS answering the routes itself); and the drop-in express() suite's ping and query
// (native Velox, @velox/express, @velox/express/5, ultimate-express, Express 4 and 5); and the
// stack suite's two scenarios (Velox bare, with its own cors, security headers, rate limit and
// compress, the same headers by hand, and the Express middlewares through nodeCompat). Prints one
// line per server.
//
//   node instructions-suites.mjs [session|multipart|fetch-ping|fetch-query|fetch-body|xapp-ping|xapp-query|stack-small|stack-list]...
//   (default: all)
//   INSTR_WARMUP / INSTR_COUNT: requests before / while counting (session 15000 / 5000,
//   multipart 300 / 200). INSTR_WRITE=1 merges the figures into INSTRUCTIONS-SUITES.md (a row per
//   scenario and server, replaced when measured again). INSTR_SERVERS=a,b counts only the server
//   files whose path contains one of the words (the first server, the ratio's base, always).
//   INSTR_KEEP=1 keeps each callgrind dump (its directory is printed) for callgrind_annotate.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { rawRequest, sendFixed } from './lib/fixed-client.mjs';
import { ensureCommand } from './lib/tools.mjs';
import { CONTENT_TYPE, uploadBody } from './servers/multipart/shared.mjs';
import expressAppSuite from './suites/express-app.mjs';
import fetchSuite from './suites/fetch.mjs';
import stackSuite from './suites/stack.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Starts `file` for `scenario` under callgrind; resolves with the child and its port. */
async function start(file, scenario, dir) {
  const args = ['--tool=callgrind', `--callgrind-out-file=${dir}/cg.%p`, '--dump-instr=no', process.execPath, '--conditions=built', file, scenario, '0'];
  const child = spawn('valgrind', args, { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}): ${stderr.split('\n').slice(-4).join(' / ')}`)));
  });
  return { child, port };
}

/** Instructions per request of `file` answering `payload(port)`, counted over `count` requests. */
async function measure(file, scenario, payload, warmup, count, connections) {
  const dir = mkdtempSync(path.join(tmpdir(), 'velox-instr-'));
  const { child, port } = await start(file, scenario, dir);
  try {
    const bytes = await payload(port);
    await sendFixed(port, bytes, warmup, connections);
    spawnSync('callgrind_control', ['-z', String(child.pid)]);
    await sendFixed(port, bytes, count, connections);
    spawnSync('callgrind_control', ['-d', String(child.pid)]);
    const dump = path.join(dir, `cg.${child.pid}.1`);
    let summary;
    for (let i = 0; i < 200 && !summary; i++) {
      await sleep(100);
      if (existsSync(dump)) summary = /^summary: (\d+)/m.exec(readFileSync(dump, 'utf8'));
    }
    if (!summary) throw new Error(`callgrind wrote no summary for ${file}`);
    return Number(summary[1]) / count;
  } finally {
    child.kill('SIGKILL');
    if (process.env.INSTR_KEEP === '1') console.error(`callgrind dump kept in ${dir} (callgrind_annotate it)`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** GET /visits with the cookie the server set on a first visit (none if it set none). */
async function visits(port) {
  const first = await fetch(`http://127.0.0.1:${port}/visits`);
  const cookie = first.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return Buffer.from(`GET /visits HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${cookie ? `Cookie: ${cookie}\r\n` : ''}\r\n`);
}

function upload(port) {
  const body = uploadBody();
  const head = `POST /upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** A scenario of a suite module (its request as bytes), counted for the given server files. */
function suiteScenario(suite, name, files) {
  const payload = async (port) => rawRequest(suite.scenarios.find((s) => s.name === name).request, port);
  return { scenario: name, files, payload, warmup: 15_000, count: 5_000, connections: 16 };
}

const FETCH_FILES = ['fetch/raw-uws.mjs', 'fetch/velox-serve.mjs', 'fetch/velox-serve-native.mjs', 'fetch/hono-node-server.mjs'];
const fetchScenario = (name) => suiteScenario(fetchSuite, name, FETCH_FILES);
const XAPP_FILES = ['express-app/velox.mjs', 'express-app/velox-express.mjs', 'express-app/velox-express5.mjs', 'express-app/ultimate-express.mjs', 'express-app/express4.mjs', 'express-app/express5.mjs'];
const xappScenario = (name) => suiteScenario(expressAppSuite, name, XAPP_FILES);

const STACK_FILES = ['stack/velox-bare.mjs', 'stack/velox.mjs', 'stack/velox-hand.mjs', 'stack/velox-nodecompat.mjs'];
/** The stack suite's requests carry Origin and Accept-Encoding: written into the bytes here (rawRequest sends no headers of its own). */
function stackScenario(name) {
  const request = stackSuite.scenarios.find((s) => s.name === name).request;
  const extra = Object.entries(request.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const payload = async (port) => Buffer.from(rawRequest(request, port).toString('latin1').replace('\r\n\r\n', `\r\n${extra}\r\n`), 'latin1');
  return { scenario: name, files: STACK_FILES, payload, warmup: 15_000, count: 5_000, connections: 16 };
}

const SUITES = {
  session: { scenario: 'session', files: ['session/velox-nosession.mjs', 'session/velox.mjs'], payload: visits, warmup: 15_000, count: 5_000, connections: 16 },
  multipart: { scenario: 'upload', files: ['multipart/uws.mjs', 'multipart/velox.mjs', 'multipart/hyper-express.mjs'], payload: upload, warmup: 300, count: 200, connections: 4 },
  'fetch-ping': fetchScenario('fetch-ping'),
  'fetch-query': fetchScenario('fetch-query'),
  'fetch-body': fetchScenario('fetch-body'),
  'xapp-ping': xappScenario('xapp-ping'),
  'xapp-query': xappScenario('xapp-query'),
  'stack-small': stackScenario('small'),
  'stack-list': stackScenario('list'),
};

ensureCommand('valgrind');
const rows = [];
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: HERE, encoding: 'utf8' }).stdout.trim();
const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: HERE, encoding: 'utf8' }).stdout.trim() !== '';
const stamp = `${new Date().toISOString().slice(0, 10)}, ${commit}${dirty ? '-dirty' : ''}, Node ${process.version}`;
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SUITES);
for (const name of chosen) {
  const suite = SUITES[name];
  if (!suite) throw new Error(`unknown suite ${name}; one of ${Object.keys(SUITES).join(', ')}`);
  const warmup = Number(process.env.INSTR_WARMUP ?? suite.warmup);
  const count = Number(process.env.INSTR_COUNT ?? suite.count);
  const figures = {};
  const only = process.env.INSTR_SERVERS?.split(',').filter(Boolean);
  const files = only ? suite.files.filter((f, i) => i === 0 || only.some((w) => f.includes(w))) : suite.files;
  for (const file of files) {
    try {
      figures[file] = await measure(path.join('servers', file), suite.scenario, suite.payload, warmup, count, suite.connections);
    } catch (err) {
      // A server that cannot be counted (it failed to start, or answered with an error): say so and go on.
      console.log(`${name.padEnd(10)} ${file.padEnd(30)} not counted: ${err.message.split('\n')[0]}`);
      figures[file] = Number.NaN;
      continue;
    }
    console.log(`${name.padEnd(10)} ${file.padEnd(30)} ${Math.round(figures[file]).toLocaleString('en-US').padStart(10)} instructions/request`);
  }
  const [base] = files;
  for (const file of files) {
    const ratio = file === base ? '1' : (figures[file] / figures[base]).toFixed(3);
    const count = Number.isNaN(figures[file]) ? 'not counted (see the run)' : Math.round(figures[file]).toLocaleString('en-US');
    rows.push({ key: `${name}|${file}`, line: `| ${name} | \`servers/${file}\` | ${count} | ${Number.isNaN(figures[file]) ? '–' : ratio} | ${stamp} |` });
    if (file !== base) console.log(`${name.padEnd(10)} ${file} / ${base}: ${ratio}`);
  }
}
console.log(`Node ${process.version}`);
if (process.env.INSTR_WRITE === '1') {
  // Merged into the file: a row of this run replaces the same scenario and server's row, others stay.
  const file = path.join(HERE, 'INSTRUCTIONS-SUITES.md');
  const kept = new Map();
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^\| ([\w-]+) \| `servers\/([^`]+)` \|/.exec(line);
      if (m) kept.set(`${m[1]}|${m[2]}`, line.split(' | ').length === 4 ? `${line.slice(0, -2)} | earlier run |` : line);
    }
  }
  for (const row of rows) kept.set(row.key, row.line);
  const order = Object.keys(SUITES);
  const sorted = [...kept].sort(([a], [b]) => order.indexOf(a.split('|')[0]) - order.indexOf(b.split('|')[0]));
  const md = `# Instructions per request, other suites\n\nWritten by \`benchmarks/instructions-suites.mjs\` (callgrind as in INSTRUCTIONS.md: counted requests after warm-up ones, all user-space instructions of the server process divided by the count), each row from the run named in its last column; a run with \`INSTR_WRITE=1\` replaces the rows it measured. The ratio is to the first server of each scenario in the same run.\n\n| Scenario | Server | Instructions per request | Ratio | Measured (date, commit, Node) |\n| --- | --- | ---: | ---: | --- |\n${sorted.map(([, line]) => line).join('\n')}\n`;
  writeFileSync(file, md);
  console.log('wrote INSTRUCTIONS-SUITES.md');
}
