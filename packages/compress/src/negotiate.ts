/**
 * Accept-Encoding: which of the allowed codings a request takes, by q-value (RFC 9110 §12.5.3),
 * a tie broken by the order of the `encodings` option. Each distinct header is parsed once and
 * remembered in a small table (real traffic sends a handful of distinct values); the work per
 * header is bounded whatever a client sends.
 */
import type { Coding } from './codings.ts';

/** The answer for a header: the index of the chosen coding in the `encodings` list, or {@link NONE}; plus {@link IDENTITY_REFUSED}. */
export type Choice = number;
/** No allowed coding is acceptable (or identity is preferred): the body goes out as it is. */
export const NONE = 0xff;
/** Flag: the header refuses an uncompressed body (`identity;q=0`, or `*;q=0` without identity). */
export const IDENTITY_REFUSED = 0x100;
/** The mask that gives the coding's index (or NONE) out of a {@link Choice}. */
export const INDEX = 0xff;

/** Characters of a header looked at: past this, the rest is ignored (a real one is under 100). */
export const MAX_HEADER_SCAN = 512;
/** Entries of a header looked at: past this, the rest is ignored (a real one has 3 to 6). */
export const MAX_ENTRIES = 32;
/** Distinct headers remembered; when full, the oldest goes (one delete, O(1)). */
export const CACHE_SIZE = 128;

/** A qvalue (RFC 9110 §12.4.2): 0 to 1, at most three decimals (more are tolerated: `0.5000`). */
const QVALUE = /^(?:0(?:\.\d*)?|1(?:\.0*)?)$/;

/** The q-value of one entry's parameters (`;q=0.5;level=1`), 1 when absent, -1 when the q is not a valid qvalue (`q=2`, `q=-1`, `q=abc`). */
function weight(params: string): number {
  let q = 1;
  let from = 0;
  while (from < params.length) {
    let to = params.indexOf(';', from);
    if (to < 0) to = params.length;
    const param = params.slice(from, to);
    const eq = param.indexOf('=');
    if (eq > 0 && param.slice(0, eq).trim().toLowerCase() === 'q') {
      const value = param.slice(eq + 1).trim();
      if (!QVALUE.test(value)) return -1;
      q = Number(value);
    }
    from = to + 1;
  }
  return q;
}

/**
 * Chooses among `codings` (allowed, in tie-break order) for one Accept-Encoding value. Rules:
 * a coding not named takes the q of `*` when present, else is not acceptable; `x-gzip` is
 * `gzip`; an entry whose q is out of range or not a number is ignored (as if absent); the first
 * entry for a name counts; the highest q wins, a tie goes to the earlier coding of `codings`;
 * identity is acceptable unless `identity;q=0` (or `*;q=0` without an `identity` entry), and it
 * wins only when named with a higher q than the best coding.
 */
export function parseAcceptEncoding(header: string, codings: readonly Coding[]): Choice {
  let text = header;
  if (text.length > MAX_HEADER_SCAN) {
    // Cut at the last comma inside the limit: a half entry could read differently from the whole.
    text = text.slice(0, MAX_HEADER_SCAN);
    const comma = text.lastIndexOf(',');
    text = comma < 0 ? '' : text.slice(0, comma);
  }
  let br = -1;
  let zstd = -1;
  let gzip = -1;
  let deflate = -1;
  let identity = -1;
  let star = -1;
  let from = 0;
  for (let entries = 0; from <= text.length && entries < MAX_ENTRIES; entries++) {
    let to = text.indexOf(',', from);
    if (to < 0) to = text.length;
    const entry = text.slice(from, to);
    from = to + 1;
    const semi = entry.indexOf(';');
    const name = (semi < 0 ? entry : entry.slice(0, semi)).trim().toLowerCase();
    if (name === '') continue;
    const q = semi < 0 ? 1 : weight(entry.slice(semi + 1));
    if (q < 0) continue;
    switch (name) {
      case 'br':
        if (br < 0) br = q;
        break;
      case 'zstd':
        if (zstd < 0) zstd = q;
        break;
      case 'gzip':
      case 'x-gzip':
        if (gzip < 0) gzip = q;
        break;
      case 'deflate':
        if (deflate < 0) deflate = q;
        break;
      case 'identity':
        if (identity < 0) identity = q;
        break;
      case '*':
        if (star < 0) star = q;
        break;
    }
  }
  let best = NONE;
  let bestQ = 0;
  for (let i = 0; i < codings.length; i++) {
    const coding = codings[i];
    let q = coding === 'br' ? br : coding === 'zstd' ? zstd : coding === 'gzip' ? gzip : deflate;
    if (q < 0) q = Math.max(star, 0);
    if (q > bestQ) {
      best = i;
      bestQ = q;
    }
  }
  if (identity > bestQ) best = NONE;
  const identityRefused = identity === 0 || (identity < 0 && star === 0);
  return identityRefused ? best | IDENTITY_REFUSED : best;
}

/**
 * The negotiation of one `compress()`: its allowed codings and its table of headers seen.
 * @internal
 */
export class Negotiator {
  readonly #codings: readonly Coding[];
  readonly #seen = new Map<string, Choice>();

  constructor(codings: readonly Coding[]) {
    this.#codings = codings;
  }

  /** The choice for a request's Accept-Encoding (`''` when absent). */
  choose(header: string): Choice {
    if (header === '') return NONE;
    if (header.length > MAX_HEADER_SCAN) return parseAcceptEncoding(header, this.#codings);
    const seen = this.#seen;
    const known = seen.get(header);
    if (known !== undefined) return known;
    const choice = parseAcceptEncoding(header, this.#codings);
    if (seen.size >= CACHE_SIZE) seen.delete(seen.keys().next().value!);
    seen.set(header, choice);
    return choice;
  }

  /** How many headers the table holds (for tests: it stays bounded). */
  get size(): number {
    return this.#seen.size;
  }
}
