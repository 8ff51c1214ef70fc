// What a request body spilled to disk costs core's event loop (@velox/core, src/body-spill.ts):
// the synchronous calls it makes in uWS's data callback and in the stream's read(), timed alone.
//
//   node benchmarks/spill-cost.mjs [dir]     (about 5 s; dir defaults to os.tmpdir())
//
// - create: openSync(O_CREAT | O_EXCL, 0600) + unlinkSync, once per spill episode;
// - append: writeSync of one uWS read (512 KiB) at the file's end, once per read uWS makes
//   while the consumer is paused past bodyBufferSize: the page cache takes it, so this is a
//   copy into the kernel (plus, when the kernel starts writeback, whatever it makes us wait);
// - read back: readSync of 512 KiB from the page cache, once per chunk handed to the consumer;
// - close: closeSync of the (nameless) file, which frees its pages.
// Each figure is the median and the 99th percentile of single calls, in microseconds, and the
// total per MiB spilled (append + read back). A spilled MiB also costs what the in-memory path
// costs anyway (uWS's read, the consumer's own work); the difference to keeping it in memory is
// about append + read back − one 512 KiB copy (Buffer.from, timed too).
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const dir = process.argv[2] ?? tmpdir();
const CHUNK = 512 * 1024;
/** Bytes per file: what one long spill holds (files of 64 MiB, written then read back). */
const FILE = 64 * 1024 * 1024;
const ROUNDS = 4;

const source = randomBytes(CHUNK);
const view = new Uint8Array(source.buffer, source.byteOffset, CHUNK);
const times = { create: [], append: [], readBack: [], close: [], copy: [] };

function time(list, fn) {
  const t = performance.now();
  const out = fn();
  list.push((performance.now() - t) * 1000);
  return out;
}

for (let round = 0; round < ROUNDS; round++) {
  const file = path.join(dir, `velox-body-${process.pid}-${randomBytes(16).toString('hex')}`);
  const fd = time(times.create, () => {
    const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
    unlinkSync(file);
    return fd;
  });
  for (let at = 0; at < FILE; at += CHUNK) time(times.append, () => writeSync(fd, view, 0, CHUNK, at));
  for (let at = 0; at < FILE; at += CHUNK) {
    time(times.readBack, () => {
      const chunk = Buffer.allocUnsafe(CHUNK);
      readSync(fd, chunk, 0, CHUNK, at);
      return chunk;
    });
    time(times.copy, () => Buffer.from(view));
  }
  time(times.close, () => closeSync(fd));
}

const pct = (list, p) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const median = (name) => pct(times[name], 50);
console.log(`Node ${process.version}, ${dir}, ${ROUNDS} files of ${FILE / 1024 / 1024} MiB in ${CHUNK / 1024} KiB calls\n`);
console.log('| call | median (µs) | p99 (µs) | calls |');
console.log('| --- | --- | --- | --- |');
for (const [name, label] of [
  ['create', 'create (open O_EXCL 0600 + unlink)'],
  ['append', 'append 512 KiB (writeSync)'],
  ['readBack', 'read back 512 KiB (readSync)'],
  ['close', 'close'],
  ['copy', 'for comparison: copy 512 KiB in memory (Buffer.from)'],
]) {
  console.log(`| ${label} | ${fmt(median(name))} | ${fmt(pct(times[name], 99))} | ${times[name].length} |`);
}
const perMiB = (median('append') + median('readBack')) * (1024 * 1024 / CHUNK);
const memoryPerMiB = median('copy') * (1024 * 1024 / CHUNK);
console.log(`\nEvent loop per MiB spilled: ${fmt(perMiB)} µs (append + read back), against ${fmt(memoryPerMiB)} µs to copy it in memory.`);
