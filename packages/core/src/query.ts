/**
 * A query-string parser for the hot path: one pass over the character codes finds `&`, `=` and
 * whether a key or a value needs decoding (`%` or `+`); only such parts are decoded. Repeated keys become
 * arrays; a malformed escape is kept as sent.
 */
import { Bag, internalized } from './bag.ts';
import type { Query } from './types.ts';

const AMP = 38;
const EQ = 61;
const PERCENT = 37;
const PLUS = 43;

export function parseQuery(raw: string): Query {
  const out: Query = new Bag<string | string[]>();
  const length = raw.length;
  let start = 0;
  let eq = -1;
  // Whether the key, or the value, holds `%` or `+` and must be decoded.
  let keyEscaped = false;
  let valueEscaped = false;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? raw.charCodeAt(i) : AMP;
    if (c === AMP) {
      if (i > start) add(out, raw, start, eq, i, keyEscaped, valueEscaped);
      start = i + 1;
      eq = -1;
      keyEscaped = valueEscaped = false;
    } else if (c === EQ) {
      if (eq < 0) eq = i;
    } else if (c === PERCENT || c === PLUS) {
      if (eq < 0) keyEscaped = true;
      else valueEscaped = true;
    }
  }
  return out;
}

/**
 * Keys seen before, as property-key strings. A key cut from the query string is a new string that
 * V8 must look up in its string table before it can name a property (about 400 instructions);
 * query keys repeat from request to request (`page`, `limit`, `q`), so a key already known is
 * found by comparing characters instead.
 */
const knownKeys: string[] = [];
const MAX_KNOWN_KEYS = 64;

function knownKey(raw: string, start: number, end: number): string | undefined {
  const length = end - start;
  search: for (let k = 0; k < knownKeys.length; k++) {
    const key = knownKeys[k]!;
    if (key.length !== length) continue;
    for (let i = 0; i < length; i++) if (key.charCodeAt(i) !== raw.charCodeAt(start + i)) continue search;
    return key;
  }
  return undefined;
}

function remember(key: string): string {
  if (key === '' || knownKeys.length >= MAX_KNOWN_KEYS || key.length > 32) return key;
  const interned = internalized(key);
  knownKeys.push(interned);
  return interned;
}

/** Adds the pair `raw[start, end)`, split at `eq` (-1: no value). */
function add(out: Query, raw: string, start: number, eq: number, end: number, keyEscaped: boolean, valueEscaped: boolean): void {
  const keyEnd = eq < 0 ? end : eq;
  const key = keyEscaped ? decode(raw.slice(start, keyEnd)) : (knownKey(raw, start, keyEnd) ?? remember(raw.slice(start, keyEnd)));
  if (key === '') return;
  let value = eq < 0 ? '' : raw.slice(eq + 1, end);
  if (valueEscaped) value = decode(value);
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
