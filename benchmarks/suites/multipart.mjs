// The multipart suite (@velox/multipart): a 1 MiB upload under load, and a ~1 GB upload to disk.
// See benchmarks/README.md, "Suites", for every field.
//
// The request bodies are generated here, when the suite is loaded, into .runs/multipart/ (not
// committed; wrk reads the file through BENCH_BODY_FILE). The floor is raw uWS feeding
// @fastify/busboy, the parser @velox/multipart uses, so the ratio measures Velox's own work.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENT_TYPE, EXPECTED, FIELDS, FILE_SIZE, PROBE, PROBE_SIZE, uploadBody, writeUploadBody } from '../servers/multipart/shared.mjs';

const HERE = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BODY = writeUploadBody(path.join(HERE, '.runs', 'multipart', 'upload.body'));
const OTHER_SIZE = 100_003;
const OTHER_BODY = writeUploadBody(path.join(HERE, '.runs', 'multipart', 'upload-other.body'), OTHER_SIZE);
const CLIENT = path.join(HERE, 'servers', 'multipart', 'upload-client.mjs');

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
