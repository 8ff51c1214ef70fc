import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, redisPrefix, runServer } from '@velox/test-utils';

/** A server that is closed after the test. Logging goes to `logs` (errors and warnings). */
export function server(options: ServerOptions = {}): Server & { logs: string[] } {
  const logs: string[] = [];
  const record = (...args: unknown[]) => void logs.push(args.map((a) => (a instanceof Error ? `${a.message}` : String(a))).join(' '));
  const app = new Server({ logger: { error: record, warn: record, info: record }, ...options }) as Server & { logs: string[] };
  app.logs = logs;
  return closeAfter(app, { timeout: 2000 });
}

/** A prefix of Redis names no other test run uses (the Redis at 6379 is shared). */
export function uniquePrefix(): string {
  return redisPrefix('velox-ws-test');
}

/** Starts test/fixtures/node.ts (a Velox process) in a child process with these environment variables; resolves once it listens. */
export function startNode(env: Record<string, string> = {}) {
  return runServer(new URL('./fixtures/node.ts', import.meta.url), env);
}
