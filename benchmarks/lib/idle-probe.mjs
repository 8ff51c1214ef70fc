// A probe (see README.md, "Probes") measuring memory per idle keep-alive connection: each server
// of the probe is started with the probe's name as its scenario (it answers `GET /` with `Hi`),
// lib/idle-client.mjs opens `connections` keep-alive connections on the client CPU and sends one
// GET / on each, and the server's process-tree RSS is read before and 1 s after.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const IDLE_CLIENT = path.join(BENCH_DIR, 'lib', 'idle-client.mjs');

/**
 * @param {{ name: string, servers: Record<string, string>, connections: number, notes?: string }} options
 * @returns {import('./suites.mjs').Probe}
 */
export function idleProbe({ name, servers, connections, notes = '' }) {
  const count = connections.toLocaleString('en-US');
  return {
    name,
    title: `Server RSS with ${count} idle keep-alive connections (each served one GET /)`,
    servers,
    async check({ url }) {
      const res = await fetch(`${url}/`);
      if (res.status !== 200 || (await res.text()) !== 'Hi') throw new Error(`${name}: expected 200 Hi from ${url}/`);
    },
    async run(ctx) {
      const rows = [];
      for (const fw of ctx.frameworks) {
        const server = await ctx.start(fw.id);
        await new Promise((r) => setTimeout(r, 500));
        const before = server.rssMiB();
        const client = ctx.spawnPinned(ctx.clientCpu, process.execPath, [IDLE_CLIENT, String(server.port), String(connections)], { cwd: BENCH_DIR, stdio: ['pipe', 'pipe', 'pipe'] });
        try {
          let out = '';
          const line = (prefix) =>
            new Promise((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error(`${fw.id}: no ${prefix} line from the idle client within 120 s`)), 120_000);
              const onData = (d) => {
                out += d;
                const m = new RegExp(`${prefix} (\\d+)`).exec(out);
                if (m) {
                  clearTimeout(timer);
                  client.stdout.off('data', onData);
                  out = '';
                  resolve(Number(m[1]));
                }
              };
              client.stdout.on('data', onData);
              client.once('exit', (code) => reject(new Error(`${fw.id}: the idle client exited (${code})`)));
            });
          await line('READY');
          await new Promise((r) => setTimeout(r, 1000));
          const after = server.rssMiB();
          client.stdin.write('?\n');
          const open = await line('OPEN');
          rows.push([fw.label, before, after, open, open > 0 ? ((after - before) * 1024 * 1024) / open / 1024 : Number.NaN]);
          ctx.log(`${name} ${fw.id}: ${before.toFixed(1)} → ${after.toFixed(1)} MiB, ${open} open`);
        } finally {
          client.kill('SIGTERM');
          await server.stop();
        }
      }
      return {
        columns: ['Framework', 'RSS before (MiB)', 'RSS after (MiB)', 'connections open when measured', 'KiB per connection'],
        rows,
        notes: `Each server's process tree before, and 1 s after, ${count} keep-alive connections were opened and each served one GET / (lib/idle-client.mjs, on the client CPU).${notes ? ` ${notes}` : ''}`,
      };
    },
  };
}
