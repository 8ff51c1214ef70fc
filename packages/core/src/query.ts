/**
 * A query-string parser for the hot path: one pass over the character codes finds `&`, `=` and
 * whether a part needs decoding (`%` or `+`); only such parts are decoded. Repeated keys become
 * arrays; a malformed escape is kept as sent.
 */
import { Bag } from './bag.ts';
import type { Query } from './request.ts';

const AMP = 38;
const EQ = 61;
const PERCENT = 37;
const PLUS = 43;

export function parseQuery(raw: string): Query {
  const out: Query = new Bag<string | string[]>();
  const length = raw.length;
  let start = 0;
  let eq = -1;
  let escaped = false;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? raw.charCodeAt(i) : AMP;
    if (c === AMP) {
      if (i > start) add(out, raw, start, eq, i, escaped);
      start = i + 1;
      eq = -1;
      escaped = false;
    } else if (c === EQ) {
      if (eq < 0) eq = i;
    } else if (c === PERCENT || c === PLUS) {
      escaped = true;
    }
  }
  return out;
}

/** Adds the pair `raw[start, end)`, split at `eq` (-1: no value). */
function add(out: Query, raw: string, start: number, eq: number, end: number, escaped: boolean): void {
  let key = raw.slice(start, eq < 0 ? end : eq);
  let value = eq < 0 ? '' : raw.slice(eq + 1, end);
  if (escaped) {
    key = decode(key);
    value = decode(value);
  }
  if (key === '') return;
  const prev = out[key];
  if (prev === undefined) out[key] = value;
  else if (typeof prev === 'string') out[key] = [prev, value];
  else prev.push(value);
}

function decode(part: string): string {
  const spaced = part.indexOf('+') < 0 ? part : part.replace(/\+/g, ' ');
  if (spaced.indexOf('%') < 0) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
