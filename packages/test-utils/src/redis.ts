/**
 * The shared Redis at 127.0.0.1:6379 that every package's tests use, and a PING probe. Nothing
 * here needs a test running: scripts/ensure-redis.mjs (vitest's global setup) imports it too.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

/**
 * The shared Redis (started by scripts/ensure-redis.mjs when it is down). Other helpers and CI
 * use it at the same time: give every key and channel a `redisPrefix()`, never FLUSHALL/FLUSHDB.
 * @example
 * ```ts
 * const redis = new RedisConnection({ url: REDIS_URL, logger: false });
 * ```
 */
export const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A prefix for Redis keys and channels that no other test run uses: `<name>:<12 random hex>:`.
 * @example
 * ```ts
 * const prefix = redisPrefix('velox-ws-test'); // 'velox-ws-test:3f9a0c2e71b4:'
 * ```
 */
export function redisPrefix(name: string): string {
  return `${name}:${randomBytes(6).toString('hex')}:`;
}

/**
 * Resolves true when something at 127.0.0.1:`port` answers PING with PONG, false when nothing
 * does within `timeoutMs` (a refused connection answers at once).
 * @example
 * ```ts
 * if (!(await pings(6379))) startRedis();
 * ```
 */
export function pings(port = 6379, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('close', () => done(text.startsWith('+PONG')));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (text.includes('\r\n')) done(text.startsWith('+PONG'));
    });
  });
}
