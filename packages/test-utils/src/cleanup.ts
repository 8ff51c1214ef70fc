/**
 * Cleanup after each test. Every helper of this package that opens something (a server, a
 * client, a process, a directory, a Redis) hands its closing to `later()`, which ties it to the
 * test that opened it.
 */
import { onTestFinished } from 'vitest';

/**
 * Runs `fn` when the current test has finished: after the test file's `afterEach` hooks, the
 * last registered first, each within vitest's hook timeout. Call it inside a test or a
 * `beforeEach` hook (vitest refuses it elsewhere).
 * @example
 * ```ts
 * const redis = new RedisConnection({ url: REDIS_URL });
 * later(() => redis.close());
 * ```
 */
export function later(fn: () => unknown): void {
  onTestFinished(async () => {
    await fn();
  });
}

/** Something that closes: a server, a watcher, a store. */
export interface Closable {
  close(...args: any[]): unknown;
}

/**
 * Closes `thing` (with these arguments) when the current test has finished; returns it.
 * @example
 * ```ts
 * const app = closeAfter(new Server({ logger: false }), { timeout: 1000 });
 * ```
 */
export function closeAfter<T extends Closable>(thing: T, ...args: Parameters<T['close']>): T {
  later(() => thing.close(...args));
  return thing;
}
