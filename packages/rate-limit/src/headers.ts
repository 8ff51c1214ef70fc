/**
 * The rate-limit headers of each mode, as express-rate-limit 8 writes them (draft-8 in the
 * canonical Structured Fields form): what does not depend on the request (the policy, the limit,
 * the fixed part of each value) is built once per limiter; per request only the numbers are
 * written in.
 */
import { PreparedHeader, type Response } from '@velox/core';

/**
 * The `headers` option: which rate-limit headers go out with every counted answer.
 * @example
 * ```ts
 * const headers: HeadersMode = process.env.LEGACY_CLIENTS ? 'legacy' : 'draft-8';
 * app.use(rateLimit({ headers }));
 * ```
 */
export type HeadersMode = 'draft-8' | 'draft-7' | 'draft-6' | 'legacy' | false;

/**
 * Writes the headers of one answer: `remaining` requests left, `resetSeconds` until the quota
 * resets (the Retry-After on a refusal), `resetEpoch` the same moment in seconds since the epoch.
 * @internal
 */
export type HeaderWriter = (res: Response, remaining: number, resetSeconds: number, resetEpoch: number) => void;

/** @internal The writer of a mode, or undefined for `false`. */
export function headerWriter(mode: HeadersMode, identifier: string, limit: number, windowMs: number): HeaderWriter | undefined {
  const windowSeconds = Math.ceil(windowMs / 1000);
  switch (mode) {
    case 'draft-8': {
      // draft-ietf-httpapi-ratelimit-headers-08: RateLimit-Policy: "default";q=5;w=2 and
      // RateLimit: "default";r=4;t=2. Lists: a second limiter on the same answer adds its own item.
      const name = `"${identifier}"`;
      const policyValue = `${name};q=${limit};w=${windowSeconds}`;
      const policy = new PreparedHeader('RateLimit-Policy', policyValue);
      const head = `${name};r=`;
      return (res, remaining, resetSeconds) => {
        const value = `${head}${remaining};t=${resetSeconds}`;
        if (res.get('ratelimit-policy') === undefined) {
          res.setPrepared(policy);
          res.set('RateLimit', value);
        } else {
          res.append('RateLimit-Policy', policyValue);
          res.append('RateLimit', value);
        }
      };
    }
    case 'draft-7': {
      // RateLimit-Policy: 5;w=2 and RateLimit: limit=5, remaining=4, reset=2.
      const policy = new PreparedHeader('RateLimit-Policy', `${limit};w=${windowSeconds}`);
      const head = `limit=${limit}, remaining=`;
      return (res, remaining, resetSeconds) => {
        res.setPrepared(policy);
        res.set('RateLimit', `${head}${remaining}, reset=${resetSeconds}`);
      };
    }
    case 'draft-6': {
      // RateLimit-Policy: 5;w=2, RateLimit-Limit: 5, RateLimit-Remaining: 4, RateLimit-Reset: 2.
      const fixed = [new PreparedHeader('RateLimit-Policy', `${limit};w=${windowSeconds}`), new PreparedHeader('RateLimit-Limit', limit)];
      return (res, remaining, resetSeconds) => {
        res.setPrepared(fixed);
        res.set('RateLimit-Remaining', remaining);
        res.set('RateLimit-Reset', resetSeconds);
      };
    }
    case 'legacy': {
      // X-RateLimit-Limit: 5, X-RateLimit-Remaining: 4, X-RateLimit-Reset: <seconds since the epoch>.
      const limitHeader = new PreparedHeader('X-RateLimit-Limit', limit);
      return (res, remaining, resetSeconds, resetEpoch) => {
        res.setPrepared(limitHeader);
        res.set('X-RateLimit-Remaining', remaining);
        res.set('X-RateLimit-Reset', resetEpoch);
      };
    }
    default:
      return undefined;
  }
}
