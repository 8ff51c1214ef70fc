/**
 * Shutting down on signals, and the policy for uncaught exceptions and unhandled rejections
 * (`closeOnSignals()`).
 */
import { constants as osConstants } from 'node:os';
import { invalidOption } from './errors.ts';
import type { CloseOptions } from './listen.ts';
import type { Logger } from './types.ts';

/**
 * Where an uncaught error came from: a throw nothing caught, or a rejected promise nothing handled.
 */
export type UncaughtOrigin = 'uncaughtException' | 'unhandledRejection';

/**
 * What {@link Server.closeOnSignals} does with an uncaught exception or unhandled rejection, after
 * logging it: `'shutdown'` closes gracefully (in-flight requests finish) and exits 1, `'exit'`
 * exits 1 at once, `'log'` keeps running. A function is called first (to report the error) and
 * returns (or resolves to) one of those; nothing returned means `'shutdown'`. `false` installs
 * nothing (Node's own behaviour: print and exit 1 at once).
 * @example
 * ```ts
 * app.closeOnSignals({ uncaught: async (err) => { await tracker.report(err); return 'shutdown'; } });
 * ```
 */
export type UncaughtPolicy =
  | 'shutdown'
  | 'exit'
  | 'log'
  | false
  | ((error: unknown, origin: UncaughtOrigin) => UncaughtAction | undefined | void | Promise<UncaughtAction | undefined> | Promise<void>);

/**
 * One of the fixed crash policies of {@link UncaughtPolicy}, which a policy function returns.
 * @example
 * ```ts
 * const pick = (err: unknown): UncaughtAction => (err instanceof TypeError ? 'shutdown' : 'log');
 * ```
 */
export type UncaughtAction = 'shutdown' | 'exit' | 'log';

/**
 * Options of {@link Server.closeOnSignals}.
 * @example
 * ```ts
 * app.closeOnSignals({ signals: ['SIGTERM'], timeout: 5000, uncaught: 'exit' });
 * ```
 */
export interface CloseOnSignalsOptions {
  /** The signals that start a graceful shutdown. Default: `['SIGINT', 'SIGTERM']`. */
  signals?: NodeJS.Signals[];
  /** Milliseconds in-flight requests get to finish before their connections are cut. Default: 10000. */
  timeout?: number;
  /** The crash policy for uncaught exceptions and unhandled rejections. Default: `'shutdown'`. */
  uncaught?: UncaughtPolicy;
}

/**
 * Installs the handlers of `closeOnSignals()` for a server: `close` is how it closes. Returns the
 * function that removes them.
 */
export function installSignals(server: { close(options: CloseOptions): Promise<void> }, logger: Logger | undefined, options: CloseOnSignalsOptions): () => void {
  const { signals, timeout, uncaught } = parseSignalOptions(options);
  let shutting = false;
  let exitCode = 0;
  const shutdown = (code: number): void => {
    exitCode = Math.max(exitCode, code);
    if (shutting) return;
    shutting = true;
    // The drain is bounded by close() itself; this bounds the onClose hooks that follow it.
    const limit = timeout + ON_CLOSE_GRACE;
    const force = setTimeout(() => {
      logger?.error(`Shutdown did not finish within ${limit} ms (an onClose hook still runs); exiting now`);
      process.exit(exitCode || 1);
    }, limit);
    server.close({ timeout }).then(
      () => {
        clearTimeout(force);
        process.exit(exitCode);
      },
      (err: unknown) => {
        clearTimeout(force);
        logger?.error(err);
        process.exit(exitCode || 1);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (shutting) {
      logger?.warn(`${signal} received again: exiting now`);
      process.exit(128 + (osConstants.signals[signal] ?? 0));
    }
    logger?.info?.(`${signal} received: closing (in-flight requests get up to ${timeout} ms)`);
    shutdown(0);
  };
  const apply = (policy: UncaughtAction): void => {
    if (policy === 'log') return;
    if (policy === 'exit') process.exit(1);
    shutdown(1);
  };
  const onCrash = (error: unknown, origin: UncaughtOrigin): void => {
    logger?.error(origin === 'unhandledRejection' ? 'Unhandled promise rejection:' : 'Uncaught exception:', error);
    if (typeof uncaught !== 'function') return apply(uncaught as UncaughtAction);
    let decided: unknown;
    try {
      decided = uncaught(error, origin);
    } catch (err) {
      logger?.error('The uncaught handler of closeOnSignals() threw:', err);
      return apply('shutdown');
    }
    Promise.resolve(decided).then(
      (policy) => {
        if (policy === undefined) return apply('shutdown');
        if (policy === 'shutdown' || policy === 'exit' || policy === 'log') return apply(policy);
        logger?.error(`The uncaught handler of closeOnSignals() returned ${String(policy)}; expected 'shutdown', 'exit' or 'log'. Shutting down.`);
        apply('shutdown');
      },
      (err: unknown) => {
        logger?.error('The uncaught handler of closeOnSignals() failed:', err);
        apply('shutdown');
      },
    );
  };
  const listeners: Array<[string, (...args: any[]) => void]> = signals.map((signal) => [signal, onSignal]);
  if (uncaught !== false) {
    listeners.push(['uncaughtException', (error: unknown) => onCrash(error, 'uncaughtException')]);
    listeners.push(['unhandledRejection', (reason: unknown) => onCrash(reason, 'unhandledRejection')]);
  }
  for (const [event, listener] of listeners) process.on(event, listener);
  const uninstall = (): void => {
    for (const [event, listener] of listeners) process.removeListener(event, listener);
  };
  return uninstall;
}

/** Time the onClose hooks get after the drain, before a shutdown from closeOnSignals() gives up and exits 1. */
const ON_CLOSE_GRACE = 5_000;

function parseSignalOptions(options: CloseOnSignalsOptions): Required<CloseOnSignalsOptions> {
  if (options === null || typeof options !== 'object') throw invalidOption('closeOnSignals() takes an options object: { signals, timeout, uncaught }');
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  if (!Array.isArray(signals) || signals.length === 0) throw invalidOption("closeOnSignals(): signals is a non-empty list such as ['SIGINT', 'SIGTERM']");
  for (const signal of signals) {
    if (typeof signal !== 'string' || !(signal in osConstants.signals)) throw invalidOption(`closeOnSignals(): unknown signal ${String(signal)}; use names such as 'SIGTERM'`);
    if (signal === 'SIGKILL' || signal === 'SIGSTOP') throw invalidOption(`closeOnSignals(): ${signal} cannot be caught; use SIGTERM or SIGINT`);
  }
  const timeout = options.timeout ?? 10_000;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0) {
    throw invalidOption(`closeOnSignals(): timeout is the milliseconds in-flight requests get, e.g. 10000; got ${String(options.timeout)}`);
  }
  const uncaught = options.uncaught ?? 'shutdown';
  if (!(uncaught === false || uncaught === 'shutdown' || uncaught === 'exit' || uncaught === 'log' || typeof uncaught === 'function')) {
    throw invalidOption(`closeOnSignals(): uncaught is 'shutdown', 'exit', 'log', false or a function (error, origin) => policy; got ${String(uncaught)}`);
  }
  return { signals, timeout, uncaught };
}
