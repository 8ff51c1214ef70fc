import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, redisPrefix } from '@velox/test-utils';

/** Keys and channels in the shared Redis get a random prefix per run. */
export const prefix = redisPrefix('velox-redis-test');

/** A quiet server, closed after the test. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

/** A logger that keeps its lines. */
export function memoryLogger(): { lines: string[]; error(...a: unknown[]): void; warn(...a: unknown[]): void; info(...a: unknown[]): void } {
  const lines: string[] = [];
  const push = (...a: unknown[]) => lines.push(a.map(String).join(' '));
  return { lines, error: push, warn: push, info: push };
}
