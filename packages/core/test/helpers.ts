import { closeAfter } from '@velox/test-utils';
import { Server, type ServerOptions } from '../src/index.ts';

/** A server that is closed after the test. Logging is off unless asked for. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

