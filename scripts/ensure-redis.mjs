// Vitest global setup shared by every package (vitest.shared.ts): the tests that need Redis use
// the one at 127.0.0.1:6379, which the machine runs before CI. When it is down, it is started
// here, with the command the machine uses, rather than skipping those tests.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';

const PORT = 6379;

/** Resolves true when something at 127.0.0.1:port answers PING with PONG. */
export function pings(port = PORT, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** Starts the shared Redis when it does not answer; throws when it cannot be started. */
export async function ensureRedis() {
  if (await pings()) return;
  for (const dir of ['/var/lib/redis', '/var/log/redis']) mkdirSync(dir, { recursive: true });
  const args = ['--daemonize', 'yes', '--bind', '127.0.0.1', '-::1', '--port', String(PORT), '--save', '', '--appendonly', 'no', '--dir', '/var/lib/redis', '--logfile', '/var/log/redis/ci.log'];
  const started = spawnSync('redis-server', args, { stdio: 'inherit' });
  if (started.error || started.status !== 0) throw new Error(`Redis is down at 127.0.0.1:${PORT} and redis-server could not be started: ${started.error?.message ?? `exit ${started.status}`}`);
  for (let i = 0; i < 100; i++) {
    if (await pings()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`redis-server was started but does not answer at 127.0.0.1:${PORT}`);
}

export default ensureRedis;
