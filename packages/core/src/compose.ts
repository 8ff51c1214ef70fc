/**
 * Runs a prepared chain of middlewares and a handler. The chain is an array built once
 * per route; a request walks it by index, allocating one `next` per middleware.
 */
import { ErrorCodes, VeloxError } from './errors.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';

/** A middleware or the handler, as stored in a chain. */
export type ChainFn = (req: Request, res: Response, next: (err?: unknown) => void) => unknown;
/** Called with any error thrown, rejected or passed to `next(err)`. */
export type Fail = (err: unknown, req: Request, res: Response) => void;

/** Runs `chain[i]` and what follows it; errors of every kind go to `fail`. */
export function run(chain: readonly ChainFn[], i: number, req: Request, res: Response, fail: Fail): void {
  const fn = chain[i]!;
  let result: unknown;
  if (i === chain.length - 1) {
    // Only a handler that declares `next` gets one: a next() from the last function means
    // nothing answered, so the request goes to the not-found handler.
    const next = fn.length > 2 ? (err?: unknown) => fail(err ?? FALL_THROUGH, req, res) : noNext;
    try {
      result = fn(req, res, next);
    } catch (err) {
      return fail(err, req, res);
    }
  } else {
    let called = false;
    const next = (err?: unknown): void => {
      if (called) return fail(new VeloxError(ErrorCodes.NEXT_TWICE, 'next() was called twice by one middleware'), req, res);
      called = true;
      if (err !== undefined && err !== null) return fail(err, req, res);
      run(chain, i + 1, req, res, fail);
    };
    try {
      result = fn(req, res, next);
    } catch (err) {
      return fail(err, req, res);
    }
  }
  if (result !== undefined && typeof (result as Promise<unknown>).then === 'function') {
    (result as Promise<unknown>).then(undefined, (err: unknown) => fail(err, req, res));
  }
}

function noNext(): void {}

/** Passed to `fail` when the last function of a chain calls `next()`: nothing answered. */
export const FALL_THROUGH: unique symbol = Symbol('velox.fallThrough');
