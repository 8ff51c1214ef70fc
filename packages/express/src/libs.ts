/**
 * The one file of this package that imports the small libraries Express itself uses for its own
 * helpers: range-parser (`req.range`), content-disposition (`res.attachment`) and mime-types
 * (`res.attachment`, `res.format`). The rest of the package calls them through the functions
 * below, so replacing one touches this file only.
 *
 * TODO(lead, once files-move is merged): core then has one content-type table, public as
 * `contentType()` and `fileContentType()`: `res.attachment` takes `fileContentType(filename)` and
 * `res.format` `contentType(chosen) ?? chosen`, and mime-types leaves this file and package.json.
 */
import { create as makeDisposition } from 'content-disposition';
import mime from 'mime-types';
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

/** The Content-Type for a file name, extension or short type (`html`, `.png`, `a/b.json`), or false. */
export function contentTypeFor(nameOrType: string): string | false {
  if (nameOrType.includes('/') && !nameOrType.includes('.')) return mime.contentType(nameOrType);
  return mime.contentType(nameOrType.includes('.') ? nameOrType.slice(nameOrType.lastIndexOf('.')) : nameOrType);
}
