/**
 * What every compatibility test shares: a Velox server closed after each test (real uWS on
 * 127.0.0.1, port 0). Listening, temporary directories, polling, raw requests and Redis prefixes
 * come from @velox/test-utils.
 */
import { Server, type ServerOptions } from '@velox/core';
import { closeAfter } from '@velox/test-utils';

/** A Velox server that is closed after the test. Logging is off unless asked for. */
export function server(options: ServerOptions = {}): Server {
  return closeAfter(new Server({ logger: false, ...options }), { timeout: 1000 });
}

/** The Set-Cookie lines of a response, as `name=value` pairs (attributes dropped). */
export function cookiesOf(res: globalThis.Response): string[] {
  return res.headers.getSetCookie().map((line) => line.split(';')[0]!);
}
