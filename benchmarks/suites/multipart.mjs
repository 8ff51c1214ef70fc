// The multipart suite (@velox/multipart): a 1 MiB upload under load, and a ~1 GB upload to disk.
// See benchmarks/README.md, "Suites", for every field.
//
// The request bodies are generated here, when the suite is loaded, into .runs/multipart/ (not
// committed; wrk reads the file through BENCH_BODY_FILE). The floor is raw uWS feeding
// @fastify/busboy, the parser @velox/multipart uses, so the ratio measures Velox's own work.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENT_TYPE, EXPECTED, FIELDS, FILE_SIZE, PROBE, PROBE_SIZE, SLOW_PROBE, SLOW_SIZE, SLOW_STEP, SLOW_STEP_MS, uploadBody, writeUploadBody } from '../servers/multipart/shared.mjs';

const HERE = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BODY = writeUploadBody(path.join(HERE, '.runs', 'multipart', 'upload.body'));
const OTHER_SIZE = 100_003;
const OTHER_BODY = writeUploadBody(path.join(HERE, '.runs', 'multipart', 'upload-other.body'), OTHER_SIZE);
const CLIENT = path.join(HERE, 'servers', 'multipart', 'upload-client.mjs');
const SLOW_CLIENT = path.join(HERE, 'servers', 'multipart', 'slow-client.mjs');
const MiB = 1024 * 1024;

const SERVERS = {
  uws: 'multipart/uws.mjs',
  velox: 'multipart/velox.mjs',
  'hyper-express': 'multipart/hyper-express.mjs',
  fastify: 'multipart/fastify.mjs',
  express: 'multipart/express.mjs',
};

const request = (bodyFile) => ({ method: 'POST', path: '/upload', contentType: CONTENT_TYPE, bodyFile });

/** VmRSS or VmHWM of a process, in MiB. */
function vm(pid, field) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

/**
 * Samples a process's VmRSS every 20 ms until stopped: what the probe reports as the peak during
 * an upload (VmHWM would include start-up).
 */
function sampleRss(pid) {
  let peak = vm(pid, 'VmRSS');
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, vm(pid, 'VmRSS'));
    } catch {}
  }, 20);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'multipart',
  title: '@velox/multipart',
  frameworks: [],
  scenarios: [
    {
      name: 'upload',
      summary: `POST /upload, multipart/form-data: one ${FILE_SIZE / 1024 / 1024} MiB file (pseudo-random bytes) and ${Object.keys(FIELDS).length} small fields (${uploadBody().length} bytes in all); the server reads every byte of the file through its multipart API, counts them and answers {"file","fields"} as JSON. Floor: raw uWS feeding @fastify/busboy.`,
      servers: SERVERS,
      baseline: 'uws',
      request: request(path.relative(HERE, BODY)),
      expect: { status: 200, json: EXPECTED, contentType: 'application/json' },
      // A different file size, so that a server answering a constant fails the check.
      extraChecks: [{ request: request(path.relative(HERE, OTHER_BODY)), expect: { status: 200, json: { file: OTHER_SIZE, fields: EXPECTED.fields }, contentType: 'application/json' } }],
      // uploadMbps: request bytes × req/s (wrk's own Transfer/sec counts only the small answers).
      extraFigures: ['uploadMbps'],
    },
  ],
  targets: [
    { label: 'Velox ≥ 0.90 × raw uWS + @fastify/busboy', a: ['upload', 'velox'], b: ['upload', 'uws'], min: 0.9 },
    { label: 'Velox ahead of hyper-express', a: ['upload', 'velox'], b: ['upload', 'hyper-express'], min: 1, strict: true },
    { label: 'Velox ahead of Fastify + @fastify/multipart', a: ['upload', 'velox'], b: ['upload', 'fastify'], min: 1, strict: true },
    { label: 'Velox ahead of Express + multer', a: ['upload', 'velox'], b: ['upload', 'express'], min: 1, strict: true },
  ],
  references: [],
  probes: [
    {
      name: SLOW_PROBE,
      title: `A ${SLOW_SIZE / MiB} MiB upload to a slow consumer, from a client faster than it (issue 45)`,
      servers: { velox: SERVERS.velox, 'hyper-express': SERVERS['hyper-express'] },
      // BENCH_CHECK=1: each server takes the scenario's upload, with the slow route, and answers /ping.
      async check({ id, url }) {
        const ping = await fetch(`${url}/ping`);
        if (ping.status !== 200 || (await ping.text()) !== 'pong') throw new Error(`${id}: GET /ping did not answer pong`);
        const res = await fetch(`${url}/upload`, { method: 'POST', body: readFileSync(BODY), headers: { 'content-type': CONTENT_TYPE } });
        const got = await res.json();
        if (res.status !== 200 || got.file !== EXPECTED.file || got.fields !== EXPECTED.fields) {
          throw new Error(`${id}: expected ${JSON.stringify(EXPECTED)}, got ${res.status} ${JSON.stringify(got)}`);
        }
      },
      async run(ctx) {
        const rows = [];
        // Velox as released (bodyBufferSize 8 MiB, the rest in a temporary file) and as before
        // issue 45 (everything in memory); hyper-express on the same route.
        const variants = [];
        for (const fw of ctx.frameworks) {
          if (fw.id === 'velox') {
            variants.push({ id: fw.id, label: `${fw.label} (bodyBufferSize 8 MiB, files)`, env: {} });
            variants.push({ id: fw.id, label: `${fw.label} (bodyBufferSize Infinity, as before)`, env: { BENCH_BODY_BUFFER_SIZE: 'Infinity' } });
          } else variants.push({ id: fw.id, label: fw.label, env: {} });
        }
        for (const variant of variants) {
          for (const framing of ['cl', 'chunked']) {
            await ctx.waitForQuiet();
            const server = await ctx.start(variant.id, { env: { ...process.env, ...variant.env } });
            const before = vm(server.pid, 'VmRSS');
            const stop = sampleRss(server.pid);
            const { json } = await ctx.runPinned(ctx.clientCpu, process.execPath, [SLOW_CLIENT, String(server.port), String(SLOW_SIZE), framing]);
            const peak = stop();
            await server.stop();
            const name = framing === 'cl' ? 'Content-Length' : 'chunked';
            let answer;
            try {
              answer = JSON.parse(json.answer);
            } catch {}
            if (json.status !== 200 || answer?.file !== SLOW_SIZE) {
              ctx.log(`${SLOW_PROBE}: ${variant.label}, ${name}: did not take the upload: ${JSON.stringify(json).slice(0, 300)}`);
              rows.push([variant.label, name, `failed (${json.status || json.error || 'no answer'})`, '', before.toFixed(0), peak.toFixed(0), (peak - before).toFixed(0), '', '', '']);
              continue;
            }
            const seconds = json.ms / 1000;
            const { median, p99, max } = json.pings;
            rows.push([
              variant.label,
              name,
              seconds.toFixed(2),
              (SLOW_SIZE / MiB / seconds).toFixed(0),
              before.toFixed(0),
              peak.toFixed(0),
              (peak - before).toFixed(0),
              median.toFixed(1),
              p99.toFixed(1),
              max.toFixed(1),
            ]);
          }
        }
        return {
          columns: ['Server', 'Framing', 'Duration (s)', 'MiB/s', 'RSS before (MiB)', 'Peak RSS (MiB)', 'Peak − before (MiB)', '/ping median (ms)', '/ping p99 (ms)', '/ping max (ms)'],
          rows,
          notes:
            `One file of ${SLOW_SIZE / MiB} MiB (pseudo-random bytes) in one multipart body, sent over loopback by servers/multipart/slow-client.mjs as fast as its socket takes it, with a Content-Length or chunked, to a route whose file consumer takes ${SLOW_STEP / MiB} MiB per ${SLOW_STEP_MS} ms (the same function for every server, fed by each framework's own multipart API: Velox req.multipart() part.file.stream, hyper-express req.multipart() field.file.stream). ` +
            'A client faster than the route is what nginx is when it passes on an upload it buffered; uWS v20.51 reads on past a pause while its reads fill 512 KB, so without a bound the server may hold the rest of the body (core README: Backpressure on request bodies). ' +
            'Peak RSS: VmRSS sampled every 20 ms during the upload (a fresh server per row; garbage not yet collected counts). Duration: from connect to the answer, at the client. ' +
            '/ping: the same client asks GET /ping on a connection of its own every 20 ms (after the previous answer) while the upload runs: how long other requests wait meanwhile. ' +
            'Velox runs twice: as released, and with BENCH_BODY_BUFFER_SIZE=Infinity (bodyBufferSize: Infinity, no files: everything in memory, as before issue 45).',
        };
      },
    },
    {
      name: PROBE,
      title: `A ${(PROBE_SIZE / 1e6).toFixed(0)} MB upload streamed to disk`,
      servers: SERVERS,
      // BENCH_CHECK=1: each probe server takes the scenario's upload and answers it right.
      async check({ id, url }) {
        const res = await fetch(`${url}/upload`, { method: 'POST', body: readFileSync(BODY), headers: { 'content-type': CONTENT_TYPE } });
        const got = await res.json();
        if (res.status !== 200 || got.file !== EXPECTED.file || got.fields !== EXPECTED.fields) {
          throw new Error(`${id}: expected ${JSON.stringify(EXPECTED)}, got ${res.status} ${JSON.stringify(got)}`);
        }
      },
      async run(ctx) {
        const rows = [];
        for (const fw of ctx.frameworks) {
          await ctx.waitForQuiet();
          const server = await ctx.start(fw.id);
          const before = vm(server.pid, 'VmRSS');
          const { json } = await ctx.runPinned(ctx.clientCpu, process.execPath, [CLIENT, String(server.port), String(PROBE_SIZE)]);
          const peak = vm(server.pid, 'VmHWM');
          await server.stop();
          let answer;
          try {
            answer = JSON.parse(json.answer);
          } catch {}
          if (json.status !== 200 || answer?.file !== PROBE_SIZE) {
            ctx.log(`${PROBE}: ${fw.label} did not take the upload: ${JSON.stringify(json).slice(0, 300)}`);
            rows.push([fw.label, `failed (${json.status || json.error})`, '', before.toFixed(0), peak.toFixed(0), '']);
            continue;
          }
          const seconds = json.ms / 1000;
          rows.push([fw.label, seconds.toFixed(2), (PROBE_SIZE / 1024 / 1024 / seconds).toFixed(0), before.toFixed(0), peak.toFixed(0), (peak - before).toFixed(0)]);
        }
        return {
          columns: ['Framework', 'Duration (s)', 'MiB/s', 'RSS before (MiB)', 'Peak RSS (MiB, VmHWM)', 'Peak − before (MiB)'],
          rows,
          notes:
            `One file of ${PROBE_SIZE.toLocaleString('en')} zero bytes in one multipart body (under 10^9 bytes: uWS v20.30 reads at most 9 digits of Content-Length), sent over loopback by servers/multipart/upload-client.mjs with backpressure, written to a file in os.tmpdir() by each framework's own API (Velox part.write(), hyper-express field.write(), Fastify pipeline(part.file, createWriteStream), multer disk storage, the floor busboy → createWriteStream) and deleted after. ` +
            'Duration: from connect to the answer, at the client. Peak RSS: the server process\'s VmHWM after the upload (it includes start-up).',
        };
      },
    },
  ],
};
