/**
 * `sendFile` for routes of your own: core's file sending (the same code `res.sendFile` runs),
 * with this package's error codes, so answers keep `VELOX_ERR_STATIC_…`.
 */
import type { Request, Response, SendFileOptions } from '@velox/core';
import { sendFile as sendWith } from '@velox/core/internal';
import { fileErrors } from './errors.ts';

/**
 * Sends one file from disk, for routes of your own: the same headers, conditional requests and
 * ranges as `serveStatic`, without a cache. Relative paths need `root`, and never leave it.
 * Rejects with a VeloxError (404, 403, 412, 416, 503) that the error handler turns into the
 * answer. Core's `res.sendFile(path, options)` and `res.download(path, filename)` run the same
 * code (with core's error codes and Express's callback form).
 *
 * @example
 * ```ts
 * import { sendFile } from '@velox/static';
 * app.get('/report', (req, res) => sendFile(req, res, 'report.pdf', { root: './private', maxAge: 60_000 }));
 * app.get('/download', (req, res) => sendFile(req, res.attachment('data.csv'), '/srv/exports/data.csv'));
 * ```
 */
export function sendFile(req: Request<unknown, unknown>, res: Response, path: string, options: SendFileOptions = {}): Promise<void> {
  // Any route's request: sendFile reads neither params nor query, so their types don't matter.
  return sendWith(req as Request, res, path, options, fileErrors);
}
