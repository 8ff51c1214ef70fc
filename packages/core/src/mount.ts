/**
 * Mount points, as Express has them: while a middleware added with `use('/prefix', mw)` runs,
 * `req.url` and `req.path` are relative to the prefix and `req.baseUrl` holds the matched part;
 * both are put back when it calls `next()` (or throws, or rejects). `req.originalUrl` keeps the
 * URL as received. Only prefixed middlewares are wrapped: `use(mw)` runs as it is.
 */
import type { ChainFn } from './compose.ts';
import type { Request } from './request.ts';

/** Wraps a middleware mounted at `prefix` (normalized, not empty) so that it sees paths relative to it. */
export function mountAt(prefix: string, fn: ChainFn): ChainFn {
  const depth = prefix.split('/').length - 1;
  return (req, res, next) => {
    const saved = enter(req, depth);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      restore(req, saved);
    };
    let result: unknown;
    try {
      result = fn(req, res, (err?: unknown) => {
        leave();
        next(err);
      });
    } catch (err) {
      leave();
      throw err;
    }
    if (result !== undefined && typeof (result as Promise<unknown>).then === 'function') {
      // Registered before the chain's own rejection handler, so the error handler sees the full URL.
      (result as Promise<unknown>).then(undefined, leave);
    }
    return result;
  };
}

interface Saved {
  baseUrl: string;
  removed: string;
  slashAdded: boolean;
}

/** Moves the first `depth` segments of the path from `req.url` to `req.baseUrl`. */
function enter(req: Request, depth: number): Saved {
  const path = req.path;
  let end = 0;
  for (let i = 0; i < depth; i++) {
    const slash = path.indexOf('/', end + 1);
    if (slash < 0) {
      end = path.length;
      break;
    }
    end = slash;
  }
  const removed = path.slice(0, end);
  const baseUrl = req.baseUrl;
  const url = req.url;
  let rest = url.slice(removed.length);
  const slashAdded = rest[0] !== '/';
  if (slashAdded) rest = `/${rest}`;
  req.baseUrl = baseUrl + removed;
  req.url = rest;
  return { baseUrl, removed, slashAdded };
}

/** Puts the prefix back in front of `req.url` (keeping what the middleware changed after it). */
function restore(req: Request, saved: Saved): void {
  let url = req.url;
  if (saved.slashAdded && url[0] === '/') url = url.slice(1);
  req.url = saved.removed + url;
  req.baseUrl = saved.baseUrl;
}
