// Where compressing a whole body synchronously stops paying, for @velox/compress's `syncThreshold`
// default: gzip (zlib's default level) of JSON bodies of 1, 4, 16, 64 and 256 KB, compressed with
// gzipSync on the event loop or with zlib.gzip (libuv's thread pool, 4 in flight), with the
// machine's other cores idle or kept busy by one spinning process per core. Then a 2 KB JSON
// through brotli at quality 4 and 11 and gzip at level 6 (size and time), for the brotli default.
//
//   node benchmarks/compress-crossover.mjs        (about 30 s; prints a Markdown table)
//
// Figures per body: `sync` is the event loop's time per body (all of the work is there);
// `async loop` is the event loop's busy time per body with zlib.gzip (the rest runs on the pool),
// from performance.eventLoopUtilization(); `async wall` is the wall time per body with 4 in flight
// (throughput). A server whose event loop is its bottleneck gains from the pool when
// `sync` > `async loop` AND a core is free for the pool to run on.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import * as zlib from 'node:zlib';

const SIZES_KB = [1, 4, 16, 64, 256];
const RUN_MS = 500;
const IN_FLIGHT = 4;

/** A JSON list of records that changes with `seed`, about `bytes` long. */
function json(bytes, seed = 1) {
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  const items = [];
  let text = '[]';
  for (let id = 1; text.length < bytes; id++) {
    items.push({
      id,
      name: `${words[Math.floor(rnd() * 10)]} ${words[Math.floor(rnd() * 10)]}`,
      email: `user${Math.floor(rnd() * 100000)}@example.com`,
      active: rnd() > 0.5,
      score: Math.round(rnd() * 10000) / 100,
      tags: [words[Math.floor(rnd() * 10)], words[Math.floor(rnd() * 10)]],
      updated: new Date(1_700_000_000_000 + Math.floor(rnd() * 1e10)).toISOString(),
    });
    text = JSON.stringify(items);
  }
  return Buffer.from(text.slice(0, bytes));
}

function timeSync(body) {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < RUN_MS) {
    zlib.gzipSync(body);
    n++;
    if ((n & 3) === 0) now = performance.now();
  }
  now = performance.now();
  return ((now - start) * 1000) / n;
}

function timeAsync(body) {
  return new Promise((resolve) => {
    let done = 0;
    let inFlight = 0;
    let stopping = false;
    const elu0 = performance.eventLoopUtilization();
    const start = performance.now();
    const launch = () => {
      inFlight++;
      zlib.gzip(body, () => {
        inFlight--;
        done++;
        if (!stopping && performance.now() - start >= RUN_MS) stopping = true;
        if (!stopping) launch();
        else if (inFlight === 0) {
          const wall = performance.now() - start;
          const elu = performance.eventLoopUtilization(elu0);
          resolve({ loop: (elu.active * 1000) / done, wall: (wall * 1000) / done });
        }
      });
    };
    for (let i = 0; i < IN_FLIGHT; i++) launch();
  });
}

function spinners(count) {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for(;;);'], { stdio: 'ignore' }));
}

const bodies = SIZES_KB.map((kb) => json(kb * 1024));
// Warm up both paths.
for (const body of bodies) zlib.gzipSync(body);
await timeAsync(bodies[1]);

const rows = [];
for (const load of ['idle', 'busy']) {
  const children = load === 'busy' ? spinners(availableParallelism()) : [];
  if (children.length) await new Promise((r) => setTimeout(r, 300));
  try {
    for (let i = 0; i < SIZES_KB.length; i++) {
      const sync = timeSync(bodies[i]);
      const async = await timeAsync(bodies[i]);
      rows.push({ load, kb: SIZES_KB[i], sync, loop: async.loop, wall: async.wall });
    }
  } finally {
    for (const child of children) child.kill('SIGKILL');
  }
}

console.log(`Node ${process.version}, ${availableParallelism()} cores; gzip level ${zlib.constants.Z_DEFAULT_COMPRESSION} (zlib's default, 6)\n`);
console.log('| other cores | body | sync µs/body | async: event loop µs/body | async: wall µs/body (4 in flight) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of rows) console.log(`| ${r.load} | ${r.kb} KB | ${r.sync.toFixed(1)} | ${r.loop.toFixed(1)} | ${r.wall.toFixed(1)} |`);

// Brotli quality for dynamic bodies: a 2 KB JSON.
const small = json(2048, 7);
const codecs = [
  ['gzip level 6', (b) => zlib.gzipSync(b)],
  ['brotli quality 4', (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } })],
  ['brotli quality 11', (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } })],
];
if (typeof zlib.zstdCompressSync === 'function') codecs.push(['zstd level 3', (b) => zlib.zstdCompressSync(b)]);
console.log(`\n2 KB JSON (${small.length} bytes):\n`);
console.log('| coding | bytes | µs per body (sync) |');
console.log('| --- | ---: | ---: |');
for (const [name, fn] of codecs) {
  const size = fn(small).length;
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < RUN_MS) {
    fn(small);
    n++;
  }
  console.log(`| ${name} | ${size} | ${(((performance.now() - start) * 1000) / n).toFixed(1)} |`);
}
