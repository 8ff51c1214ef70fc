// The ws suite (@velox/ws): WebSocket messages per second against raw uWebSockets.js,
// hyper-express's websockets and the `ws` package on node:http, and the server's memory per
// 10,000 idle connections. wrk cannot send WebSocket messages: the load comes from
// lib/ws-load.mjs (raw TCP, pre-built masked frames, pipelined, replies counted by bytes), run
// pinned to the client CPU for each slice. See benchmarks/README.md, "WebSocket load".

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPinned } from '../lib/processes.mjs';
import { checkEcho, checkFanout } from '../lib/ws-load.mjs';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const LOAD = path.join(BENCH_DIR, 'lib', 'ws-load.mjs');

/** Echo: connections, and frames in flight on each. */
const ECHO_CONNECTIONS = 100;
const ECHO_WINDOW = 32;
/**
 * Fan-out: subscribers of the one topic, and messages the publisher keeps in flight. Each message
 * in flight is 1,000 deliveries of server work, so the window also bounds what a server still has
 * to send when its slice ends: 32 keeps that under half a second for every server here (512 left
 * the ws package busy for seconds into the next framework's slice), and still keeps 16,000
 * deliveries queued when the publisher tops up.
 */
const SUBSCRIBERS = 1000;
const FANOUT_WINDOW = 32;
/** Idle connections for the memory probe. */
const IDLE_CONNECTIONS = 10_000;

const SERVERS = {
  uws: 'ws/raw-uws.mjs',
  velox: 'ws/velox.mjs',
  'hyper-express': 'ws/hyper-express.mjs',
  'node-ws': 'ws/ws.mjs',
};

// The runner's check before load: the HTTP route each server has, then the WebSocket itself.
const health = { request: { method: 'GET', path: '/health' }, expect: { status: 200, body: 'ok' } };
const CLIENT_FIGURES = ['client CPU %', 'client µs/msg'];

/** Runs the generator for one slice (or the warm-up) and hands its figures to the runner. */
async function generate(cpu, args) {
  const { json } = await runPinned(cpu, process.execPath, [LOAD, ...args.map(String)], { timeoutMs: 120_000 });
  if (!json || !Number.isFinite(json.rps)) throw new Error('the WebSocket load generator printed no figures');
  if (json.messages === 0) throw new Error('no message came back during the slice');
  return json;
}

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'ws',
  title: '@velox/ws',
  frameworks: [{ id: 'node-ws', label: 'ws (node:http)', pkg: 'ws' }],
  scenarios: [
    {
      name: 'ws-echo',
      summary: `${ECHO_CONNECTIONS} WebSocket connections each keep ${ECHO_WINDOW} messages of 32 bytes of text in flight; the server sends each one back. Messages echoed per second.`,
      servers: SERVERS,
      ...health,
      check: ({ port }) => checkEcho(port),
      load: { measure: ({ port, seconds, cpu }) => generate(cpu, ['echo', port, seconds, ECHO_CONNECTIONS, ECHO_WINDOW]) },
      unit: 'msg/s',
      extraFigures: CLIENT_FIGURES,
    },
    {
      name: 'ws-fanout',
      summary: `One publisher keeps up to ${FANOUT_WINDOW} messages of 32 bytes of text in flight (topping up when half arrived); the server publishes each to a topic with ${SUBSCRIBERS} subscribers (all other connections). Messages delivered per second, all subscribers together.`,
      servers: SERVERS,
      ...health,
      check: ({ port }) => checkFanout(port),
      load: { measure: ({ port, seconds, cpu }) => generate(cpu, ['fanout', port, seconds, SUBSCRIBERS, FANOUT_WINDOW]) },
      unit: 'msg/s',
      extraFigures: CLIENT_FIGURES,
    },
  ],
  targets: [
    { label: 'Velox ws-echo ≥ 0.90 × raw uWS', a: ['ws-echo', 'velox'], b: ['ws-echo', 'uws'], min: 0.9 },
    { label: 'Velox ws-fanout ≥ 0.90 × raw uWS', a: ['ws-fanout', 'velox'], b: ['ws-fanout', 'uws'], min: 0.9 },
    { label: 'Velox ws-echo ahead of hyper-express', a: ['ws-echo', 'velox'], b: ['ws-echo', 'hyper-express'], min: 1, strict: true },
    { label: 'Velox ws-fanout ahead of hyper-express', a: ['ws-fanout', 'velox'], b: ['ws-fanout', 'hyper-express'], min: 1, strict: true },
    { label: 'Velox ws-echo ahead of ws (node:http)', a: ['ws-echo', 'velox'], b: ['ws-echo', 'node-ws'], min: 1, strict: true },
    { label: 'Velox ws-fanout ahead of ws (node:http)', a: ['ws-fanout', 'velox'], b: ['ws-fanout', 'node-ws'], min: 1, strict: true },
  ],
  references: [],
  probes: [
    {
      name: 'ws-idle',
      title: `Server RSS per ${IDLE_CONNECTIONS.toLocaleString('en-US')} idle WebSocket connections`,
      servers: SERVERS,
      async check({ port }) {
        const { open } = await import('../lib/ws-load.mjs');
        const { socket } = await open(port, '/idle');
        socket.destroy();
      },
      async run(ctx) {
        const rows = [];
        for (const fw of ctx.frameworks) {
          const server = await ctx.start(fw.id);
          await new Promise((r) => setTimeout(r, 500));
          const before = server.rssMiB();
          const client = ctx.spawnPinned(ctx.clientCpu, process.execPath, [LOAD, 'idle', String(server.port), String(IDLE_CONNECTIONS)], {
            cwd: BENCH_DIR,
          });
          try {
            await new Promise((resolve, reject) => {
              let out = '';
              let err = '';
              const timer = setTimeout(() => reject(new Error(`${fw.id}: the connections were not all open within 120 s`)), 120_000);
              client.stdout.on('data', (d) => {
                out += d;
                if (out.includes('READY')) {
                  clearTimeout(timer);
                  resolve();
                }
              });
              client.stderr.on('data', (d) => (err += d));
              client.once('exit', (code) => {
                clearTimeout(timer);
                reject(new Error(`${fw.id}: the idle client exited (${code}): ${err.trim().split('\n').slice(-2).join(' / ')}`));
              });
            });
            // Let the server finish its side of the last handshakes.
            await new Promise((r) => setTimeout(r, 1000));
            const after = server.rssMiB();
            rows.push([fw.label, before, after, ((after - before) * 10_000) / IDLE_CONNECTIONS]);
            ctx.log(`ws-idle ${fw.id}: ${before.toFixed(1)} → ${after.toFixed(1)} MiB`);
          } finally {
            client.kill('SIGTERM');
            await server.stop();
          }
        }
        return {
          columns: ['Framework', 'RSS before (MiB)', `RSS with ${IDLE_CONNECTIONS.toLocaleString('en-US')} connections (MiB)`, 'MiB per 10,000 connections'],
          rows,
          notes: `Each server's process tree, before and 1 s after ${IDLE_CONNECTIONS.toLocaleString('en-US')} WebSocket connections to a route that does nothing were opened (by lib/ws-load.mjs idle, on the client CPU). The servers raise their open-file limit with prlimit.`,
        };
      },
    },
  ],
};
