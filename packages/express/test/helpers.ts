import { Server, type ServerOptions } from '@velox/core';
import { closeAfter } from '@velox/test-utils';
import { nodeCompat } from '../src/index.ts';

/**
 * A server with the Node.js/Express surface (nodeCompat registered: a synchronous plugin, so it
 * is in place when this returns), closed after the test. Logging is off unless asked for.
 */
export function server(options: ServerOptions = {}): Server {
  const app = new Server({ logger: false, ...options });
  void app.register(nodeCompat);
  return closeAfter(app, { timeout: 1000 });
}

/** A server without nodeCompat, closed after the test. */
export function bareServer(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}
