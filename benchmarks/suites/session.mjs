// The session suite (@velox/session): scenario `session`, a GET with an existing session cookie
// that starts the session, increments a counter in it and answers JSON; scenario
// `session-flood`, the same GET measured while cookie-less requests flood in, each of which
// stores a new session in a store already at its cap; and one probe that counts the Redis round
// trips per request of RedisStore.
// See benchmarks/README.md, "Suites", for every field.

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPinned, spawnPinned } from '../lib/processes.mjs';
import { parseWrk } from '../lib/wrk.mjs';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const FLOOD_CLIENT = path.join(BENCH_DIR, 'servers', 'session', 'flood-client.mjs');
/** Cookie-less GET /anon per second during `session-flood` (each stores a new session). */
const FLOOD_RATE = Number(process.env.BENCH_FLOOD_RATE ?? 5000);

const velox = { pkg: '@velox/session', nodeArgs: ['--conditions=built'] };

/** The cookie a server gives to a first visit (one request without a cookie). */
async function firstCookie(url) {
  const res = await fetch(`${url}/visits`);
  await res.arrayBuffer();
  const line = res.headers.getSetCookie().find((l) => l.startsWith('sid='));
  if (res.status !== 200 || !line) throw new Error(`GET /visits without a cookie answered ${res.status} without a session cookie`);
  return line.split(';')[0];
}

/** Two visits with the cookie: the counter must go up, or the session was not kept. */
async function checkCounter(url, headers) {
  const visit = async () => {
    const res = await fetch(`${url}/visits`, { headers });
    if (res.status !== 200) throw new Error(`GET /visits answered ${res.status}`);
    return (await res.json()).visits;
  };
  const a = await visit();
  const b = await visit();
  if (!(Number.isInteger(a) && b === a + 1)) throw new Error(`the session did not persist: visits ${a} then ${b}`);
}

/** The store's figures from GET /stats (`null` for the server without sessions). */
async function storeStats(url) {
  const res = await fetch(`${url}/stats`);
  if (res.status !== 200) throw new Error(`GET /stats answered ${res.status}`);
  return (await res.json()).store;
}

/**
 * Fills the server's session store to its cap with cookie-less GET /anon (a client process of
 * its own, so the runner sends no load), then takes the cookie of the session to measure: the
 * store is full before any slice, and every request of the flood evicts a session.
 */
async function floodSetup({ port, url }) {
  const stats = await storeStats(url);
  if (stats) {
    const missing = stats.maxEntries - stats.size;
    if (missing > 0) await runPinned(null, process.execPath, [FLOOD_CLIENT, 'fill', String(port), String(missing)], { timeoutMs: 120_000 });
    const full = await storeStats(url);
    if (full.size !== full.maxEntries) throw new Error(`the store holds ${full.size} sessions after filling, not its ${full.maxEntries}`);
  }
  const cookie = stats ? await firstCookie(url) : 'sid=none';
  return { headers: { cookie } };
}

/**
 * The counter of the measured session goes up; a burst of anonymous visitors gets sessions and,
 * the store being full, evicts exactly as many, never the measured session.
 */
async function floodCheck({ url, headers }) {
  await checkCounter(url, headers);
  const before = await storeStats(url);
  const burst = 200;
  for (let i = 0; i < burst; i++) {
    const res = await fetch(`${url}/anon`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /anon answered ${res.status}`);
    if (before && !res.headers.getSetCookie().some((l) => l.startsWith('sid='))) throw new Error('GET /anon stored no session (no cookie)');
  }
  if (before) {
    const after = await storeStats(url);
    if (after.size !== after.maxEntries || after.evictions - before.evictions !== burst) {
      throw new Error(`${burst} new sessions in a full store: size ${after.size} of ${after.maxEntries}, ${after.evictions - before.evictions} evictions`);
    }
  }
  await checkCounter(url, headers);
}

/**
 * One slice of `session-flood`: the flood client sends cookie-less GET /anon at FLOOD_RATE while
 * wrk measures GET /visits with the session cookie, both on the client CPU. Afterwards the
 * measured session must still be there.
 */
async function floodMeasure({ port, url, seconds, cpu, headers }) {
  const before = await storeStats(url);
  const flood = spawnPinned(cpu, process.execPath, [FLOOD_CLIENT, 'rate', String(port), String(FLOOD_RATE)], { cwd: BENCH_DIR, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  flood.stdout.on('data', (d) => (out += d));
  flood.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const exited = new Promise((resolve) => flood.once('exit', resolve));
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the flood client did not start within 30 s')), 30_000);
      flood.stdout.on('data', () => {
        if (out.includes('READY')) {
          clearTimeout(timer);
          resolve();
        }
      });
      flood.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the flood client exited (${code}): ${err.trim().split('\n').slice(-2).join(' / ')}`));
      });
    });
    const env = { ...process.env, BENCH_METHOD: 'GET', BENCH_BODY: '', BENCH_BODY_FILE: '', BENCH_CONTENT_TYPE: '' };
    env.BENCH_HEADERS = Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n');
    const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', path.join(BENCH_DIR, 'wrk', 'request.lua'), `${url}/visits`];
    const wrk = parseWrk((await runPinned(cpu, 'wrk', args, { env, timeoutMs: (seconds + 30) * 1000 })).stdout);
    flood.stdin.end('stop\n');
    const code = await exited;
    const figures = JSON.parse(out.trim().split('\n').pop());
    if (code !== 0 || !Number.isFinite(figures.rps)) throw new Error(`the flood client exited with ${code}: ${err.trim()}`);
    const errors = wrk.socketErrors.connect + wrk.socketErrors.read + wrk.socketErrors.write + wrk.socketErrors.timeout;
    if (errors > 0) throw new Error(`wrk saw ${errors} socket errors`);
    // Still the same session: its counter goes on (a new session would start again at 1).
    const res = await fetch(`${url}/visits`, { headers });
    const { visits } = await res.json();
    if (before && !(visits > wrk.requests)) throw new Error(`the measured session was lost during the flood (visits ${visits} after ${wrk.requests} requests)`);
    const after = await storeStats(url);
    return {
      rps: wrk.rps,
      // The server's CPU time covers both clients' requests.
      requests: wrk.requests + figures.answered,
      p50Ms: wrk.p50Ms,
      p99Ms: wrk.p99Ms,
      non2xx: wrk.non2xx + figures.non2xx,
      'flood req/s': figures.rps,
      'evictions/s': before ? (after.evictions - before.evictions) / figures.seconds : Number.NaN,
      'flood client CPU %': figures['client CPU %'],
    };
  } finally {
    if (flood.exitCode === null) flood.kill('SIGKILL');
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function redisCli(port, ...args) {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', ['-p', String(port), ...args], (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

/**
 * Watches Redis with MONITOR while `during()` runs, and counts the commands by name: those a
 * client sent (each one a round trip) and those run inside Lua scripts (no round trip).
 */
async function monitorCommands(spawn, port, during) {
  const monitor = spawn(null, 'redis-cli', ['-p', String(port), 'MONITOR']);
  const counts = new Map();
  const marker = `velox-probe-${process.pid}-${Date.now()}`;
  let text = '';
  let started;
  let ended;
  const startedP = new Promise((r) => (started = r));
  const endedP = new Promise((r) => (ended = r));
  monitor.stdout.on('data', (chunk) => {
    text += chunk;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      const line = text.slice(0, nl).trim();
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
      if (line === 'OK') started();
      else if (line.includes(marker)) ended();
      else {
        // 1700000000.123456 [0 127.0.0.1:50000] "hgetall" "sess:…"   or   [0 lua] "exists" …
        const m = /^\S+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
        if (!m) continue;
        const command = m[2].toUpperCase();
        const from = m[1] === 'lua' ? 'script' : 'client';
        const entry = counts.get(command) ?? { client: 0, script: 0 };
        entry[from]++;
        counts.set(command, entry);
      }
    }
  });
  try {
    await startedP;
    await during();
    await redisCli(port, 'ECHO', marker);
    await endedP;
  } finally {
    monitor.kill('SIGKILL');
  }
  counts.delete('ECHO');
  return counts;
}

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'session',
  title: '@velox/session',
  frameworks: [
    { id: 'velox-nosession', label: 'Velox, no session (counter in a variable)', pkg: '@velox/core', nodeArgs: ['--conditions=built'] },
    { id: 'velox-session', label: 'Velox + MemoryStore', ...velox },
    { id: 'velox-session-redis', label: 'Velox + RedisStore', ...velox },
    { id: 'hyper-express-session', label: 'hyper-express + hyper-express-session (Map)', pkg: 'hyper-express-session' },
    { id: 'fastify-session', label: 'Fastify + @fastify/session (memory)', pkg: '@fastify/session' },
  ],
  scenarios: [
    {
      name: 'session',
      summary:
        'GET /visits with an existing session cookie: the server loads the session, increments a counter in it, writes it back and answers `{"visits":n}` as JSON. The baseline has the same route with the counter in a module variable. RedisStore talks to the Redis at REDIS_URL (default 127.0.0.1:6379).',
      servers: {
        'velox-nosession': 'session/velox-nosession.mjs',
        'velox-session': 'session/velox.mjs',
        'velox-session-redis': 'session/velox-redis.mjs',
        'hyper-express-session': 'session/hyper-express.mjs',
        'fastify-session': 'session/fastify.mjs',
      },
      baseline: 'velox-nosession',
      request: { method: 'GET', path: '/visits' },
      // The counter changes with every request: the check looks at the shape, and `check` at the counter.
      expect: { status: 200, contentType: 'application/json' },
      setup: async ({ url }) => {
        // The baseline has no session: any cookie will do, so that every server gets the same request.
        const cookie = await firstCookie(url).catch(() => 'sid=none');
        return { headers: { cookie } };
      },
      check: async ({ url, headers }) => {
        const res = await fetch(`${url}/visits`, { headers });
        const body = await res.json();
        if (!Number.isInteger(body.visits)) throw new Error(`GET /visits answered ${JSON.stringify(body)}`);
        await checkCounter(url, headers);
      },
    },
    {
      name: 'session-flood',
      summary: `GET /visits with one well-signed session cookie, as in \`session\`, measured by wrk while a second client sends ${FLOOD_RATE.toLocaleString('en-US')} cookie-less GET /anon a second to the same server, each of which stores a new session (a visit counter for an anonymous visitor). The store is filled to its cap (MemoryStore's default, 100,000 sessions) before load, so every anonymous request evicts a session; the measured one must survive every slice. The baseline has the same two routes with their counters in module variables. Server CPU per request counts both clients' requests.`,
      servers: {
        'velox-nosession': 'session/velox-nosession.mjs',
        'velox-session': 'session/velox.mjs',
      },
      baseline: 'velox-nosession',
      request: { method: 'GET', path: '/visits' },
      expect: { status: 200, contentType: 'application/json' },
      setup: floodSetup,
      check: floodCheck,
      load: { measure: floodMeasure },
      extraFigures: ['flood req/s', 'evictions/s', 'flood client CPU %'],
    },
  ],
  targets: [
    {
      label: 'Velox + MemoryStore ≥ 0.70 × the same route without sessions',
      a: ['session', 'velox-session'],
      b: ['session', 'velox-nosession'],
      min: 0.7,
    },
    {
      label: 'Velox + MemoryStore ahead of hyper-express + hyper-express-session',
      a: ['session', 'velox-session'],
      b: ['session', 'hyper-express-session'],
      min: 1,
      strict: true,
    },
    {
      label: 'Velox + MemoryStore ahead of Fastify + @fastify/session',
      a: ['session', 'velox-session'],
      b: ['session', 'fastify-session'],
      min: 1,
      strict: true,
    },
  ],
  references: [
    { label: 'Velox + RedisStore / without sessions', a: ['session', 'velox-session-redis'], b: ['session', 'velox-nosession'] },
    {
      label: 'Velox + MemoryStore / without sessions, both under a flood of cookie-less requests (session-flood)',
      a: ['session-flood', 'velox-session'],
      b: ['session-flood', 'velox-nosession'],
    },
    {
      label: 'Velox + MemoryStore under a flood, full store (session-flood) / without a flood (session)',
      a: ['session-flood', 'velox-session'],
      b: ['session', 'velox-session'],
    },
  ],
  probes: [
    {
      name: 'session-redis-round-trips',
      title: 'Redis round trips per request, Velox + RedisStore (scenario `session`)',
      servers: { 'velox-session-redis': 'session/velox-redis.mjs' },
      check: async ({ url }) => {
        const cookie = await firstCookie(url);
        await checkCounter(url, { cookie });
      },
      async run(ctx) {
        // A Redis of the probe's own, so that INFO commandstats counts this server's commands only.
        const port = await freePort();
        const dir = await mkdtemp(path.join(tmpdir(), 'velox-bench-redis-'));
        const redis = ctx.spawnPinned(null, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]);
        try {
          for (let i = 0; ; i++) {
            try {
              if ((await redisCli(port, 'PING')).trim() === 'PONG') break;
            } catch {}
            if (i > 200) throw new Error('redis-server did not start');
            await new Promise((r) => setTimeout(r, 50));
          }
          const server = await ctx.start('velox-session-redis', { env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${port}` } });
          const cookie = await firstCookie(server.url);
          await checkCounter(server.url, { cookie }); // also loads the scripts (EVAL once)
          const requests = Number(process.env.BENCH_SESSION_PROBE_REQUESTS ?? 2000);
          const counts = await monitorCommands(ctx.spawnPinned, port, async () => {
            for (let i = 0; i < requests; i++) {
              const res = await fetch(`${server.url}/visits`, { headers: { cookie } });
              if (res.status !== 200) throw new Error(`GET /visits answered ${res.status}`);
              await res.arrayBuffer();
            }
          });
          await server.stop();
          const per = (n) => Number((n / requests).toFixed(2));
          const rows = [];
          let trips = 0;
          for (const [command, { client, script }] of [...counts].sort()) {
            trips += client;
            rows.push([command, per(client), per(script)]);
          }
          rows.push(['round trips (commands sent)', per(trips), '']);
          return {
            columns: ['Command', 'Sent per request (round trips)', 'Run inside a script per request'],
            rows,
            notes:
              `${requests} sequential GET /visits with one session cookie against a redis-server of the probe's own, watched with MONITOR. Each command sent is one round trip (none waits in a pipeline for another): HGETALL loads the session on start(), one EVALSHA writes the changed key, the seen time and the expiry; the commands of the script run inside Redis.`,
          };
        } finally {
          redis.kill('SIGKILL');
          await new Promise((r) => (redis.exitCode !== null ? r() : redis.once('exit', r)));
          await rm(dir, { recursive: true, force: true });
        }
      },
    },
  ],
};
