import { Server, type ServerOptions } from '@velox/core';
import { closeAfter } from '@velox/test-utils';

/** A quiet server, closed after the test. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }));
}
