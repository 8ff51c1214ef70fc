import { Server, type ServerOptions } from '@velox/core';
import { closeAfter } from '@velox/test-utils';
import { type FetchFunction, type FetchServer, type ServeOptions, serve } from '../src/index.ts';

/** What a test's logger caught. */
export interface Logged {
  errors: unknown[];
  logger: { error: (...args: unknown[]) => void; warn: (...args: unknown[]) => void; info: () => void };
}

/** A logger that keeps what it is given (errors the server logs). */
export function logged(): Logged {
  const errors: unknown[] = [];
  return { errors, logger: { error: (...args) => errors.push(args[0]), warn: () => {}, info: () => {} } };
}

/** `serve()` on 127.0.0.1, port 0, closed after the test; resolves with the server and its base URL. */
export async function served(
  fetch: FetchFunction,
  options: Omit<ServeOptions, 'fetch'> = {},
): Promise<{ url: string; port: number; server: FetchServer }> {
  const server = await serve({ logger: false, ...options, fetch, port: 0, hostname: '127.0.0.1' });
  closeAfter(server, { timeout: 1000 });
  return { url: `http://127.0.0.1:${server.port}`, port: server.port, server };
}

/** A quiet Velox server, closed after the test. */
export function veloxServer(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

/** Open file descriptors of this process. */
export async function openFds(): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir('/proc/self/fd')).length;
}
