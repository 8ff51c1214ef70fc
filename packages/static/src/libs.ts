/**
 * The one file of @velox/static that imports the small libraries Express's file answers use:
 * `content-disposition` (the header `res.download` sends) and `ms` (durations such as `'1d'` for
 * `maxAge`). The rest of the package calls them through the functions below, so replacing one
 * touches this file only. (The watcher's library, chokidar, is behind watcher.ts; content types
 * come from core's `fileContentType`.)
 */
import { create as makeDisposition } from 'content-disposition';
import ms from 'ms';

/**
 * A Content-Disposition value for a download: `attachment` with the file name, an ASCII fallback
 * and RFC 8187 `filename*` for a name that is not ASCII.
 *
 * @example
 * ```ts
 * attachment('report.pdf'); // 'attachment; filename="report.pdf"'
 * ```
 */
export function attachment(filename: string): string {
  return makeDisposition(filename);
}

/**
 * Milliseconds for a duration in Express's `ms` format (`'1d'`, `'2 hours'`, `'500'`), or
 * undefined when it is not one.
 *
 * @example
 * ```ts
 * parseDuration('1h'); // 3_600_000
 * parseDuration('soon'); // undefined
 * ```
 */
export function parseDuration(text: string): number | undefined {
  if (text === '') return undefined; // ms() throws on an empty string
  const value = ms(text as ms.StringValue);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
