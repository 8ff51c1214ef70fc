// The static suite (@velox/static): a cached 1 KiB file, a cached 256 KiB file (MiB/s), and a
// revalidation answered 304, against raw uWS sending the same bytes with the same headers from
// a Buffer; plus RSS with 10,000 cached files. The files are made by servers/static/fixture.mjs.

import { fixtureFile, MANY_COUNT, manyPath } from '../servers/static/fixture.mjs';

const servers = {
  uws: 'static/raw-uws.mjs',
  velox: 'static/velox.mjs',
  'hyper-express': 'static/hyper-express.mjs',
  fastify: 'static/fastify.mjs',
  'ultimate-express': 'static/ultimate-express.mjs',
  express: 'static/express.mjs',
};

const PEERS = ['hyper-express', 'fastify', 'ultimate-express', 'express'];

/** The check of a file answer: its exact bytes as text/plain. */
function fileExpect(name) {
  return { status: 200, body: fixtureFile(`site/${name}`).toString(), contentType: 'text/plain' };
}

/** Sends the framework's own ETag back, so every request of the scenario is a revalidation. */
async function revalidate({ url }) {
  const res = await fetch(`${url}/static/small.txt`);
  await res.arrayBuffer();
  const etag = res.headers.get('etag');
  if (!etag) throw new Error('no ETag on /static/small.txt');
  return { headers: { 'if-none-match': etag } };
}

const targets = [];
for (const scenario of ['static', 'static-large', 'static-304']) {
  targets.push({ label: `${scenario}: Velox ≥ 0.90 × raw uWS`, a: [scenario, 'velox'], b: [scenario, 'uws'], min: 0.9 });
  for (const peer of PEERS) {
    targets.push({ label: `${scenario}: Velox ahead of ${peer}`, a: [scenario, 'velox'], b: [scenario, peer], min: 1, strict: true });
  }
}

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'static',
  title: '@velox/static',
  frameworks: [],
  scenarios: [
    {
      name: 'static',
      summary: 'GET /static/small.txt, a 1 KiB file held in memory (Velox: serveStatic defaults; raw uWS: a Buffer with the same headers).',
      servers,
      request: { method: 'GET', path: '/static/small.txt' },
      expect: fileExpect('small.txt'),
    },
    {
      name: 'static-large',
      summary: 'GET /static/large.txt, a 256 KiB file held in memory; MiB/s received.',
      servers,
      request: { method: 'GET', path: '/static/large.txt' },
      expect: fileExpect('large.txt'),
      extraFigures: ['mbps'],
    },
    {
      name: 'static-304',
      summary: 'GET /static/small.txt with If-None-Match set to the ETag the framework itself sent: a 304 revalidation.',
      servers,
      request: { method: 'GET', path: '/static/small.txt' },
      setup: revalidate,
      expect: { status: 304 },
    },
  ],
  targets,
  references: [],
  probes: [
    {
      name: 'static-rss',
      title: 'RSS with 10,000 cached files',
      servers: {
        uws: 'static/raw-uws.mjs',
        velox: 'static/velox.mjs',
        'hyper-express': 'static/hyper-express.mjs',
        fastify: 'static/fastify.mjs',
      },
      async check({ url }) {
        const res = await fetch(`${url}/many/${manyPath(MANY_COUNT - 1)}`);
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200 || !body.equals(fixtureFile(`many/${manyPath(MANY_COUNT - 1)}`))) throw new Error(`wrong answer for the last file (${res.status})`);
      },
      async run(ctx) {
        const rows = [];
        for (const fw of ctx.frameworks) {
          const server = await ctx.start(fw.id);
          const atStart = server.rssMiB();
          // Every file once (Velox and Fastify read on first request; raw uWS and live-directory at start).
          for (let n = 0; n < MANY_COUNT; n += 50) {
            await Promise.all(
              Array.from({ length: Math.min(50, MANY_COUNT - n) }, async (_, i) => {
                const res = await fetch(`${server.url}/many/${manyPath(n + i)}`);
                if (res.status !== 200) throw new Error(`${fw.id}: ${res.status} for ${manyPath(n + i)}`);
                await res.arrayBuffer();
              }),
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 1000));
          rows.push([fw.label, atStart, server.rssMiB()]);
          await server.stop();
        }
        return {
          columns: ['Framework', 'RSS at start (MiB)', 'RSS after one request per file (MiB)'],
          rows,
          notes:
            '10,000 files of 1 KiB in 100 directories (10 MiB of content). raw uWS and hyper-express + live-directory read every file at start; Velox reads each on its first request and keeps it (within 64 MiB); Fastify + @fastify/static keeps nothing in memory (for reference).',
        };
      },
    },
  ],
};
