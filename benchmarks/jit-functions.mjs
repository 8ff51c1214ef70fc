#!/usr/bin/env node
// Names the JavaScript functions in a callgrind dump of instructions.mjs or
// instructions-suites.mjs. Callgrind counts V8's compiled code by address only (`???:0x…`);
// Node started with `--perf-basic-prof` writes where each compiled function lives to
// /tmp/perf-<pid>.map, and this script joins the two: instructions per request spent in each
// JavaScript function's own code (functions V8 inlined are counted in their caller), largest
// first, and the total of all compiled JavaScript against the whole.
//
//   NODE_OPTIONS=--perf-basic-prof INSTR_KEEP=1 INSTR_FRAMEWORKS=velox INSTR_ONLY=body node instructions.mjs
//   node jit-functions.mjs /tmp/velox-instr-XXXXXX/cg.<pid>.1 [count=5000] [min=5]
//
// `count` is the number of counted requests (INSTR_COUNT, default 5000). The map is read from
// /tmp/perf-<pid>.map, the pid taken from the dump's name. An address V8 reused for another
// function after a garbage collection is named after the last function the map puts there.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [dump, countArg = '5000', minArg = '5'] = process.argv.slice(2);
if (!dump || !existsSync(dump)) {
  console.error('usage: node jit-functions.mjs <callgrind dump> [requests counted] [smallest row]');
  process.exit(2);
}
const pid = /cg\.(\d+)/.exec(path.basename(dump))?.[1];
const mapFile = `/tmp/perf-${pid}.map`;
if (!pid || !existsSync(mapFile)) {
  console.error(`no ${mapFile}: run the server with NODE_OPTIONS=--perf-basic-prof`);
  process.exit(2);
}
const count = Number(countArg);
const min = Number(minArg);

/** [start, end, name] per compiled function, in the order V8 wrote them. */
const ranges = [];
for (const line of readFileSync(mapFile, 'utf8').split('\n')) {
  const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
  if (m) ranges.push([Number.parseInt(m[1], 16), Number.parseInt(m[1], 16) + Number.parseInt(m[2], 16), m[3]]);
}
function nameAt(address) {
  for (let i = ranges.length - 1; i >= 0; i--) {
    const [start, end, name] = ranges[i];
    if (address >= start && address < end) return name;
  }
  return undefined;
}

const annotate = spawnSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', '--auto=no', '--show=Ir', dump], {
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
if (annotate.status !== 0) {
  console.error(annotate.stderr || 'callgrind_annotate failed');
  process.exit(1);
}
const own = new Map();
let total = 0;
let compiled = 0;
let listing = false;
for (const line of annotate.stdout.split('\n')) {
  if (line.includes('file:function')) {
    listing = true;
    continue;
  }
  const totals = /^\s*([\d,]+)\s+\(100\.0%\)\s+PROGRAM TOTALS/.exec(line);
  if (totals) total = Number(totals[1].replaceAll(',', '')) / count;
  const m = listing && /^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$/.exec(line);
  if (!m) continue;
  const ir = Number(m[1].replaceAll(',', '')) / count;
  const address = /^\?\?\?:0x([0-9a-f]+) \[\?\?\?\]$/.exec(m[2]);
  if (!address) continue;
  const name = nameAt(Number.parseInt(address[1], 16)) ?? `unnamed ${m[2]}`;
  compiled += ir;
  own.set(name, (own.get(name) ?? 0) + ir);
}
console.log(`per request: ${Math.round(total).toLocaleString('en-US')} instructions, ${Math.round(compiled).toLocaleString('en-US')} of them in compiled JavaScript`);
for (const [name, ir] of [...own].sort((a, b) => b[1] - a[1])) {
  if (ir >= min) console.log(`${ir.toFixed(0).padStart(8)}  ${name}`);
}
