// #region code
import { type Plugin, VeloxError } from '@velox/core';

export interface TimerOptions {
  /** Response header that carries the duration. Default: `server-timing`. */
  header?: string;
  /** Requests slower than this many milliseconds are logged. Default: no logging. */
  slowMs?: number;
}

// The properties the plugin adds, visible to every handler of an app that installs it.
declare module '@velox/core' {
  interface Request {
    /** When the request reached the first middleware (performance.now()). */
    startedAt: number;
  }
}

/**
 * Adds a Server-Timing header to every response and logs slow requests.
 * @example
 * await app.register(requestTimer, { slowMs: 200 });
 */
export const requestTimer: Plugin<TimerOptions> = (server, options) => {
  const header = options.header ?? 'server-timing';
  if (!/^[a-z0-9-]+$/i.test(header)) {
    // A programmer's mistake: throw at start-up, saying what to write instead.
    throw new VeloxError('TIMER_ERR_INVALID_OPTION', `header must be a header name like "server-timing", got ${header}`);
  }
  server.addHook('onRequest', (req) => {
    req.startedAt = performance.now();
  });
  server.addHook('onSend', (req, res) => {
    res.set(header, `total;dur=${(performance.now() - req.startedAt).toFixed(1)}`);
  });
  if (options.slowMs !== undefined) {
    const slowMs = options.slowMs;
    server.addHook('onResponse', (req, res) => {
      const ms = performance.now() - req.startedAt;
      if (ms > slowMs) console.warn(`${req.method} ${req.path} ${res.statusCode} took ${ms.toFixed(0)} ms`);
    });
  }
};
// #endregion
