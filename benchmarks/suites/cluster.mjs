// The cluster suite (@velox/cluster): ping and query served by one Velox process, by a cluster of
// one worker and by a cluster of two, all running the same app (servers/cluster/app.mjs), with
// nothing pinned (`pin: false`: the workers, the primary and wrk share the machine's cores, as a
// cluster would in production). The runner sums CPU time over each server's process tree, so the
// CPU per request column covers the primary and every worker: it should stay flat from one
// process to two workers. The `cluster-spread` probe shows how the kernel spreads connections
// (SO_REUSEPORT) and the requests of a wrk run across two workers.
import net from 'node:net';
import { parseWrk } from '../lib/wrk.mjs';

const servers = {
  velox: 'cluster/velox-single.mjs',
  'velox-cluster-1': 'cluster/velox-1.mjs',
  'velox-cluster-2': 'cluster/velox-2.mjs',
};

/** GET `path` on a new connection (so the kernel picks a worker anew); resolves to the body. */
async function fresh(url, path) {
  const res = await fetch(`${url}${path}`, { headers: { connection: 'close' } });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  return res.text();
}

/** Opens `count` connections at once, asks each which worker holds it, then closes them all. */
async function connectionSpread(port, count) {
  const sockets = [];
  try {
    const answers = await Promise.all(
      Array.from({ length: count }, () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1');
          sockets.push(socket);
          let text = '';
          socket.on('error', reject);
          socket.on('data', (d) => {
            text += d;
            const end = text.indexOf('\r\n\r\n');
            const length = /content-length: (\d+)/i.exec(text);
            if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) resolve(text.slice(end + 4, end + 4 + Number(length[1])));
          });
          socket.write('GET /__worker HTTP/1.1\r\nHost: bench\r\n\r\n');
        }),
      ),
    );
    const tally = new Map();
    for (const worker of answers) tally.set(worker, (tally.get(worker) ?? 0) + 1);
    return tally;
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}

/** Asks /__stats on new connections until every worker has answered with its request count. */
async function requestCounts(url, workers) {
  const counts = new Map();
  for (let i = 0; i < 500 && counts.size < workers; i++) {
    const { worker, requests } = JSON.parse(await fresh(url, '/__stats'));
    counts.set(worker, requests);
  }
  if (counts.size < workers) throw new Error(`only workers ${[...counts.keys()].join(', ')} answered /__stats`);
  return counts;
}

const CONNECTIONS = 256;
const WRK_SECONDS = 5;

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'cluster',
  title: '@velox/cluster',
  frameworks: [
    { id: 'velox-cluster-1', label: 'Velox cluster, 1 worker', pkg: '@velox/cluster', nodeArgs: ['--conditions=built'] },
    { id: 'velox-cluster-2', label: 'Velox cluster, 2 workers', pkg: '@velox/cluster', nodeArgs: ['--conditions=built'] },
  ],
  scenarios: [
    {
      name: 'cluster-ping',
      summary: 'GET / answers `Hi`, from one Velox process, a cluster of 1 worker and a cluster of 2 (unpinned; CPU summed over the process tree).',
      servers,
      baseline: 'velox',
      pin: false,
      request: { method: 'GET', path: '/' },
      expect: { status: 200, body: 'Hi' },
    },
    {
      name: 'cluster-query',
      summary:
        'GET /id/:id?name=… answers `<id> <name>` with the header `x-powered: velox-bench`, from one Velox process, a cluster of 1 worker and a cluster of 2 (unpinned).',
      servers,
      baseline: 'velox',
      pin: false,
      request: { method: 'GET', path: '/id/123?name=velox' },
      expect: { status: 200, body: '123 velox', headers: { 'x-powered': 'velox-bench' } },
      extraChecks: [
        {
          request: { method: 'GET', path: '/id/abc?name=other' },
          expect: { status: 200, body: 'abc other', headers: { 'x-powered': 'velox-bench' } },
        },
      ],
    },
  ],
  targets: [],
  references: [
    { label: 'ping: cluster of 2 workers / cluster of 1', a: ['cluster-ping', 'velox-cluster-2'], b: ['cluster-ping', 'velox-cluster-1'] },
    { label: 'ping: cluster of 1 worker / one process', a: ['cluster-ping', 'velox-cluster-1'], b: ['cluster-ping', 'velox'] },
    { label: 'query: cluster of 2 workers / cluster of 1', a: ['cluster-query', 'velox-cluster-2'], b: ['cluster-query', 'velox-cluster-1'] },
    { label: 'query: cluster of 1 worker / one process', a: ['cluster-query', 'velox-cluster-1'], b: ['cluster-query', 'velox'] },
  ],
  referencesNote:
    'This machine has 2 cores, shared by the server processes and wrk (nothing is pinned in this suite), so a second worker competes with the load generator for the second core: req/s with 2 workers shows what one more worker gains here, not on a machine with spare cores. Server CPU per request (in the detail tables, summed over the primary and its workers) is the figure that should stay flat as workers are added.',
  probes: [
    {
      name: 'cluster-spread',
      title: 'How a cluster of 2 workers shares connections and requests',
      servers: { 'velox-cluster-2': 'cluster/velox-2.mjs' },
      async check({ url }) {
        const seen = new Set();
        for (let i = 0; i < 300 && seen.size < 2; i++) seen.add(await fresh(url, '/__worker'));
        if (seen.size < 2) throw new Error(`only worker(s) ${[...seen].join(', ')} answered on 300 new connections`);
        await requestCounts(url, 2);
      },
      async run(ctx) {
        const server = await ctx.start('velox-cluster-2', { pin: false });
        const connections = await connectionSpread(server.port, CONNECTIONS);
        await ctx.waitForQuiet();
        const cpuBefore = server.cpuMicros();
        const { stdout } = await ctx.runPinned(null, 'wrk', ['-t1', '-c64', `-d${WRK_SECONDS}s`, '--latency', `${server.url}/`], {
          timeoutMs: (WRK_SECONDS + 30) * 1000,
        });
        const cpuMicros = server.cpuMicros() - cpuBefore;
        const wrk = parseWrk(stdout);
        const requests = await requestCounts(server.url, 2);
        await server.stop();
        const total = [...requests.values()].reduce((a, b) => a + b, 0);
        const rows = ['1', '2'].map((worker) => {
          const c = connections.get(worker) ?? 0;
          const r = requests.get(worker) ?? 0;
          return [`worker ${worker}`, c, `${((100 * c) / CONNECTIONS).toFixed(1)} %`, r, `${((100 * r) / total).toFixed(1)} %`];
        });
        return {
          columns: ['Worker', `Connections (of ${CONNECTIONS} opened at once)`, 'Share', `Requests (wrk -c64, ${WRK_SECONDS} s, unpinned)`, 'Share'],
          rows,
          notes: `Connections: ${CONNECTIONS} connections opened together, each asked once which worker accepted it. Requests: GET / under wrk with 64 keep-alive connections, counted by each worker (a connection stays with the worker that accepted it, so this split follows wrk's 64 connections). wrk measured ${Math.round(wrk.rps)} req/s; server CPU (primary and workers) ${(cpuMicros / wrk.requests).toFixed(1)} µs per request.`,
        };
      },
    },
  ],
};
