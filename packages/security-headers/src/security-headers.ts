/**
 * The middleware factory: checks the options, builds the header block once, and returns the
 * smallest middleware that does the rest per request (the block set in one call, X-Powered-By
 * removed; with a nonce, the nonce made and the policy's text joined around it).
 */
import type { Middleware, Request, Response } from '@velox/core';
import { dynamicPolicy } from './csp.ts';
import { nextNonce } from './nonce.ts';
import { planOf, type SecurityHeadersOptions } from './options.ts';

/**
 * A middleware that sets helmet 8's security headers (by default exactly helmet's set, names and
 * values) and removes X-Powered-By. The headers are checked and prepared once, here; a request
 * only gets them set. A bad option throws `VELOX_ERR_SECURITY_HEADERS_INVALID_OPTION` now.
 *
 * Several instances may run on one request (a global one and one under a prefix): the later one's
 * values replace the earlier's, and a header it turns off with `false` is removed (so
 * `contentSecurityPolicy: false` under `/embed` takes away the global policy there).
 *
 * @example
 * ```ts
 * import { securityHeaders } from '@velox/security-headers';
 * app.use(securityHeaders());                                       // helmet 8's default set
 * app.use('/app', securityHeaders({ cspNonce: true }));            // res.locals.cspNonce, in script-src and style-src
 * app.use('/embed', securityHeaders({ contentSecurityPolicy: false, frameguard: { action: 'deny' } }));
 * app.get('/app/', (req, res) => res.html(`<script nonce="${res.locals.cspNonce}">go()</script>`));
 * ```
 */
export function securityHeaders(options?: SecurityHeadersOptions): Middleware {
  const { block, remove, csp, nonce } = planOf(options);
  const count = remove.length;
  const first = remove[0] ?? '';
  const hasBlock = block.length > 0;

  // Per request: what the removals and the block cost, nothing more (the branches below are
  // decided here, once).
  const fixed = (res: Response): void => {
    if (count === 1) res.remove(first);
    else for (let i = 0; i < count; i++) res.remove(remove[i]!);
    if (hasBlock) res.setPrepared(block);
  };

  if (csp === undefined) {
    if (!nonce) {
      return function securityHeadersMiddleware(req: Request, res: Response, next: (err?: unknown) => void): void {
        fixed(res);
        next();
      };
    }
    // A nonce with nowhere to go in the policy (no script-src, style-src or default-src): still made.
    return function securityHeadersMiddleware(req: Request, res: Response, next: (err?: unknown) => void): void {
      res.locals.cspNonce = nextNonce();
      fixed(res);
      next();
    };
  }

  const name = csp.name;
  const around = csp.around;
  if (around !== undefined) {
    const [a, b, c] = around as [string, string, string | undefined];
    if (c !== undefined) {
      return function securityHeadersMiddleware(req: Request, res: Response, next: (err?: unknown) => void): void {
        const value = nextNonce();
        res.locals.cspNonce = value;
        fixed(res);
        res.set(name, a + value + b + value + c);
        next();
      };
    }
    return function securityHeadersMiddleware(req: Request, res: Response, next: (err?: unknown) => void): void {
      const value = nextNonce();
      res.locals.cspNonce = value;
      fixed(res);
      res.set(name, a + value + b);
      next();
    };
  }

  const dynamic = csp.dynamic!;
  return function securityHeadersMiddleware(req: Request, res: Response, next: (err?: unknown) => void): void {
    let value = '';
    if (nonce) res.locals.cspNonce = value = nextNonce();
    // The other headers first: when a directive function throws, the error answer still has them.
    fixed(res);
    res.set(name, dynamicPolicy(dynamic, value, req as Request<unknown, unknown>, res));
    next();
  };
}

/**
 * The nonce `securityHeaders({ cspNonce: true })` made for this response (`res.locals.cspNonce`,
 * typed), or `undefined` when no instance with `cspNonce` ran.
 *
 * @example
 * ```ts
 * import { cspNonceOf } from '@velox/security-headers';
 * app.get('/app/', (req, res) => res.html(`<script nonce="${cspNonceOf(res)}" src="/app.js"></script>`));
 * ```
 */
export function cspNonceOf(res: Response): string | undefined {
  const value = res.locals.cspNonce;
  return typeof value === 'string' ? value : undefined;
}
