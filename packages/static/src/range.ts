/**
 * The Range header of a file answer (RFC 9110 §14): parsed once here, for `serveStatic`,
 * `sendFile`, `res.sendFile` and `res.download`.
 */

/**
 * @internal Ranges beyond this many in one header are ignored (the whole file is sent).
 *
 * @example
 * ```ts
 * parseRange(`bytes=${'0-0,'.repeat(MAX_RANGES)}0-0`, 10); // 'ignore'
 * ```
 */
export const MAX_RANGES = 16;

/**
 * A parsed Range header: ranges (inclusive, sorted, merged), 'ignore' (send the whole file) or 'unsatisfiable'.
 *
 * @example
 * ```ts
 * const parsed: ParsedRange = parseRange('bytes=0-99', 1000); // [[0, 99]]
 * ```
 */
export type ParsedRange = Array<[number, number]> | 'ignore' | 'unsatisfiable';

/**
 * Parses a `bytes=` Range header against a size (RFC 9110 §14.1.2). A header that is malformed,
 * of another unit, or holds more than 16 ranges is ignored; overlapping and
 * adjacent ranges are merged, so the bytes sent never exceed the file's size. (Express's
 * `req.range()` keeps range-parser's own answers; this one follows the RFC, which says to ignore
 * a header with an invalid range and to send the whole file for a suffix longer than it.)
 *
 * @example
 * ```ts
 * parseRange('bytes=0-4, 2-9', 100); // [[0, 9]]
 * parseRange('bytes=5-2', 100); // 'ignore'
 * parseRange('bytes=200-', 100); // 'unsatisfiable'
 * ```
 */
export function parseRange(header: string, size: number): ParsedRange {
  const eq = header.indexOf('=');
  if (eq < 0 || header.slice(0, eq).trim().toLowerCase() !== 'bytes') return 'ignore';
  let commas = 0;
  for (let i = eq; i < header.length; i++) if (header.charCodeAt(i) === 44 && ++commas >= MAX_RANGES) return 'ignore';
  const ranges: Array<[number, number]> = [];
  for (const part of header.slice(eq + 1).split(',')) {
    const spec = part.trim();
    if (spec === '') continue;
    const dash = spec.indexOf('-');
    if (dash < 0) return 'ignore';
    const first = spec.slice(0, dash).trim();
    const last = spec.slice(dash + 1).trim();
    if ((first !== '' && !DIGITS.test(first)) || (last !== '' && !DIGITS.test(last))) return 'ignore';
    if (first === '') {
      if (last === '') return 'ignore';
      const n = Number(last);
      if (n === 0 || size === 0) continue; // unsatisfiable
      ranges.push([Math.max(0, size - n), size - 1]);
    } else {
      const start = Number(first);
      if (last !== '' && Number(last) < start) return 'ignore';
      if (start >= size) continue; // unsatisfiable
      const end = last === '' ? size - 1 : Number(last);
      ranges.push([start, Math.min(end, size - 1)]);
    }
  }
  if (ranges.length === 0) return 'unsatisfiable';
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [ranges[0]!];
  for (let i = 1; i < ranges.length; i++) {
    const top = merged[merged.length - 1]!;
    const r = ranges[i]!;
    if (r[0] <= top[1] + 1) top[1] = Math.max(top[1], r[1]);
    else merged.push(r);
  }
  return merged;
}

const DIGITS = /^\d{1,15}$/;
