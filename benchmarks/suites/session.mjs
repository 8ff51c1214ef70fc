// The session suite (@velox/session): one scenario, `session`, a GET with an existing session
// cookie that starts the session, increments a counter in it and answers JSON; and one probe
// that counts the Redis round trips per request of RedisStore.
// See benchmarks/README.md, "Suites", for every field.

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

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
