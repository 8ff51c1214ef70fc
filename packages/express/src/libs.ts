/**
 * The one file of this package that imports the small libraries Express itself uses for its own
 * helpers: range-parser (`req.range`) and content-disposition (`res.attachment`). The rest of the
 * package calls them through the functions below, so replacing one touches this file only.
 * Content types come from core's one table (`contentType()`, `fileContentType()`).
 */
import { create as makeDisposition } from 'content-disposition';
import parseRangeHeader from 'range-parser';

/**
 * Parses a Range header against a size: the ranges, -1 when none can be satisfied, -2 when the
 * header is malformed. `combine` merges overlapping and adjacent ranges.
 */
export function parseRange(size: number, header: string, combine: boolean): Array<{ start: number; end: number }> | -1 | -2 {
  const result = parseRangeHeader(size, header, { combine });
  if (result === -1 || result === -2) return result;
  if (result.type !== 'bytes') return -2;
  return result.map(({ start, end }) => ({ start, end }));
}

/** A Content-Disposition value for a download, with an ASCII fallback and RFC 8187 encoding. */
export function disposition(filename: string | undefined): string {
  return makeDisposition(filename);
}
