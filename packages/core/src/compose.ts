/**
 * Runs a prepared chain of middlewares and a handler. The chain is an array built once
 * per route; a request walks it by index, allocating one `next` per middleware.
 */
import { ErrorCodes, VeloxError } from './errors.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';

/** A middleware or the handler, as stored in a chain. */
export type ChainFn = (req: Request, res: Response, next: (err?: unknown) => void) => unknown;
/**
 * A route's chain, built once; whether its last function declares `next` is noted on first use.
 * `routeStart` is where the route's own functions begin (after the server's middlewares).
 */
type Chain = readonly ChainFn[] & { lastTakesNext?: boolean; routeStart?: number };
/** Called with any error thrown, rejected or passed to `next(err)`. */
export type Fail = (err: unknown, req: Request, res: Response) => void;

/** Runs `chain[i]` and what follows it; errors of every kind go to `fail`. */
export function run(chain: readonly ChainFn[], i: number, req: Request, res: Response, fail: Fail): void {
  const fn = chain[i]!;
  // Only a last function that declares `next` gets one: a next() from it means nothing
  // answered, so the request goes to the not-found handler.
  const next = i === chain.length - 1 ? lastNext(chain as Chain, fn, req, res, fail) : nextOf(chain, i, req, res, fail);
  let result: unknown;
  try {
    result = fn(req, res, next);
  } catch (err) {
    return fail(err, req, res);
  }
  // The closure for a rejection is made in watch(): a closure made here would have every call
  // of run() allocate its context, sync handlers' too (and make run() too big to inline).
  if (result !== undefined && typeof (result as Promise<unknown>).then === 'function') watch(result as Promise<unknown>, req, res, fail);
}

/** The `next` of a chain's last function: none unless it declares one. */
function lastNext(chain: Chain, fn: ChainFn, req: Request, res: Response, fail: Fail): (err?: unknown) => void {
  // Reading a function's `length` goes through an accessor call each time: ask once per chain.
  let takesNext = chain.lastTakesNext;
  if (takesNext === undefined) takesNext = chain.lastTakesNext = fn.length > 2;
  return takesNext ? fallThrough(req, res, fail) : noNext;
}

/** Sends a rejection of what a chain function returned to `fail`. */
function watch(result: Promise<unknown>, req: Request, res: Response, fail: Fail): void {
  // A no-op for the value rather than `undefined`: V8 then settles the derived promise with
  // undefined instead of the handler's result, skipping a `then` lookup on that result (often
  // the Response, whose prototype chain is long). About 800 instructions per async handler.
  result.then(noNext, (err: unknown) => fail(err, req, res));
}

// The closures below are returned, never assigned to a name: tools that keep function names
// (esbuild's keepNames, used by tsx) would otherwise wrap each one in a defineProperty call.

/** The `next` handed to `chain[i]`: runs `chain[i + 1]` once; a second call is an error. */
function nextOf(chain: readonly ChainFn[], i: number, req: Request, res: Response, fail: Fail): (err?: unknown) => void {
  let called = false;
  return (err?: unknown) => {
    if (called) {
      // A second call that carries an error reports that error (connect-timeout calls next(err)
      // when its timer fires, after it called next() to go on); a bare second call is a bug.
      if (err !== undefined && err !== null && typeof err !== 'string') return fail(err, req, res);
      return fail(new VeloxError(ErrorCodes.NEXT_TWICE, 'next() was called twice by one middleware'), req, res);
    }
    called = true;
    if (err !== undefined && err !== null) {
      if (err === 'route' || err === 'router') return skip(chain, i, req, res, fail, err);
      return fail(err, req, res);
    }
    run(chain, i + 1, req, res, fail);
  };
}

/**
 * Express's next('route') and next('router') on a flattened chain. No other route matches a
 * request that uWS routed here, so leaving the route means the not-found handler; next('route')
 * from a middleware added with use() (before the route's own functions) goes on, as in Express.
 */
function skip(chain: readonly ChainFn[], i: number, req: Request, res: Response, fail: Fail, what: string): void {
  if (what === 'route' && i < ((chain as Chain).routeStart ?? 0)) return run(chain, i + 1, req, res, fail);
  fail(FALL_THROUGH, req, res);
}

function fallThrough(req: Request, res: Response, fail: Fail): (err?: unknown) => void {
  return (err?: unknown) => fail(err === undefined || err === null || err === 'route' || err === 'router' ? FALL_THROUGH : err, req, res);
}

function noNext(): void {}

/** Passed to `fail` when the last function of a chain calls `next()`: nothing answered. */
export const FALL_THROUGH: unique symbol = Symbol('velox.fallThrough');
