// Vitest global setup shared by every package (vitest.shared.ts): the tests that need Redis use
// the one at 127.0.0.1:6379, which the machine runs before CI. When it is down, it is started
// here, with the command the machine uses, rather than skipping those tests. (Vitest loads this
// file through its own module runner, so it can import the TypeScript of @velox/test-utils.)
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { pings } from '../packages/test-utils/src/redis.ts';

const PORT = 6379;

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
