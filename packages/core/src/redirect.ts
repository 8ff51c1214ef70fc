/**
 * `res.redirect()`: the status (302 unless given), a Location header percent-encoded once, and
 * a short text body that names the target.
 */
import { TYPES } from './content-type.ts';
import type { Response } from './response.ts';
import { setHeader } from './response-write.ts';
import { kFinish } from './symbols.ts';

// Not an ESM import of node:http: see headers.ts.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** @internal What `res.redirect()` does. */
export function redirect(res: Response, statusOrUrl: number | string, url?: string): void {
  const status = typeof statusOrUrl === 'number' ? statusOrUrl : 302;
  const location = typeof statusOrUrl === 'string' ? statusOrUrl : url!;
  res.status(status);
  setHeader(res, 'location', encodeURI(decodeSafe(location)));
  setHeader(res, 'content-type', TYPES.text!);
  res[kFinish](`${STATUS_CODES[status] ?? 'Redirecting'}. Redirecting to ${location}`);
}

/** The URL with its percent-escapes decoded, so that encodeURI does not encode them twice; as given when malformed. */
function decodeSafe(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}
