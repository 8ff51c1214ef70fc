/**
 * The one file that loads pino, for `new Server({ logger: true })`. pino is an optional peer
 * dependency: a server that logs to `console`, to nowhere, or to a logger it was given never
 * loads it, so core's install stays as light as it was. It is loaded with `require` because the
 * `Server` constructor is synchronous (pino is a CommonJS package).
 */
import { createRequire } from 'node:module';
import { invalidOption } from './errors.ts';
import type { RequestLogger } from './request-log.ts';

/** The default pino logger: JSON lines on stdout at level `info`, request headers in `redact` censored. */
export function defaultLogger(redact: readonly string[]): RequestLogger {
  let pino: (options: object) => RequestLogger;
  try {
    pino = createRequire(import.meta.url)('pino');
  } catch (cause) {
    throw Object.assign(invalidOption('logger: true needs the pino package: pnpm add pino (or pass a logger of your own)'), { cause });
  }
  // Censors what a user logs through req.log too, not only the request line core writes.
  return pino({ redact: { paths: redact.map((name) => `req.headers[${JSON.stringify(name)}]`), censor: '[Redacted]' } });
}
