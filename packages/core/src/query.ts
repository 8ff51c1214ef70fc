/**
 * A query-string parser for the hot path: splits on `&` and `=`, and decodes only the parts that
 * hold `%` or `+`. Repeated keys become arrays; a malformed escape is kept as sent.
 */
import { Bag } from './bag.ts';
import type { Query } from './request.ts';

export function parseQuery(raw: string): Query {
  const out: Query = new Bag<string | string[]>();
  let start = 0;
  const length = raw.length;
  while (start <= length) {
    let end = raw.indexOf('&', start);
    if (end < 0) end = length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      let key: string;
      let value: string;
      if (eq < 0 || eq > end) {
        key = decode(raw.slice(start, end));
        value = '';
      } else {
        key = decode(raw.slice(start, eq));
        value = decode(raw.slice(eq + 1, end));
      }
      if (key !== '') {
        const prev = out[key];
        if (prev === undefined) out[key] = value;
        else if (typeof prev === 'string') out[key] = [prev, value];
        else prev.push(value);
      }
    }
    start = end + 1;
  }
  return out;
}

function decode(part: string): string {
  if (part.indexOf('%') < 0 && part.indexOf('+') < 0) return part;
  const spaced = part.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
