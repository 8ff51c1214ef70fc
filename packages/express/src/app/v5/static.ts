/**
 * Express 5's `express.static`: serve-static 2.x (send 1.x), on the memory road of the Express 4
 * entry (../static.ts) with send 1's rules. What send 1 does differently on that road is the
 * Content-Type: mime-types 3's type and charset for the file's extension, and
 * `application/octet-stream` when it has none (send 0.19 wrote none). Everything else the road
 * leaves to serve-static 2 as it is: its `dotfiles: 'ignore'` default (a dotfile is never a plain
 * path), directories and their redirect, `index`, `fallthrough`, the 405 of another method,
 * ranges and conditional requests.
 */
import { extname } from 'node:path';
import type { Next, Req, Res } from '../router.ts';
import { memoryStatic, type StaticRules } from '../static.ts';
import { contentType, send5, serveStatic5 } from './libs.ts';

/** send 1.x's Content-Type for a file: `mime.contentType(extname(path)) || 'application/octet-stream'`. */
function type5(path: string): string {
  return contentType(extname(path)) || 'application/octet-stream';
}

const RULES_5: StaticRules = { serveStatic: serveStatic5, send: send5, type: type5 };

/**
 * Express 5's `express.static(root, [options])`: serve-static 2.x with every option it takes
 * (`index`, `redirect`, `fallthrough`, `dotfiles` (`'ignore'` by default), `extensions`,
 * `maxAge`, `immutable`, `cacheControl`, `lastModified`, `etag`, `acceptRanges`, `setHeaders`),
 * whose plain GET and HEAD requests for a small file already read are answered from memory with
 * the bytes and headers send 1.x would send.
 * @example
 * ```ts
 * import express from '@velox/express/5';
 * const app = express();
 * app.use('/static', express.static('public', { maxAge: '1d' }));
 * ```
 */
export function staticFiles5(root: string, options?: Record<string, unknown>): (req: Req, res: Res, next: Next) => void {
  return memoryStatic(RULES_5, root, options);
}
