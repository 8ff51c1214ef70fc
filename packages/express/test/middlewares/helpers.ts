/**
 * What every compatibility test shares: a Velox server with nodeCompat registered, closed after
 * each test (real uWS on 127.0.0.1, port 0). Listening, temporary directories, polling, raw
 * requests and Redis prefixes come from @velox/test-utils.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type ServerOptions } from '@velox/core';
import { closeAfter, later } from '@velox/test-utils';
import { nodeCompat } from '../../src/index.ts';

/**
 * A Velox server with the Node.js/Express surface (nodeCompat registered: a synchronous plugin,
 * so it is in place when this returns), closed after the test. Logging is off unless asked for.
 */
export function server(options: ServerOptions = {}): Server {
  const app = new Server({ logger: false, ...options });
  void app.register(nodeCompat);
  return closeAfter(app, { timeout: 1000 });
}

/** The Set-Cookie lines of a response, as `name=value` pairs (attributes dropped). */
export function cookiesOf(res: globalThis.Response): string[] {
  return res.headers.getSetCookie().map((line) => line.split(';')[0]!);
}

/**
 * Serves an Express app (or any Node request listener) on 127.0.0.1, port 0, closed after the
 * test; resolves with its base URL. For comparing Velox's answers with Express's own.
 */
export async function listenNode(app: RequestListener): Promise<string> {
  const http = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  later(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}
