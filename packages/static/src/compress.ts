/**
 * Content codings: which types are worth compressing, choosing br or gzip from Accept-Encoding,
 * and compressing once (off the event loop, on libuv's thread pool).
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** The codings Velox produces or serves from `.br` / `.gz` siblings. */
export type Coding = 'br' | 'gzip';

/** The codings this Node can serve, in the order that breaks a tie of q-values. */
export const CODINGS: readonly Coding[] = Object.freeze(['br', 'gzip'] as const);

/** The name ending of a precompressed sibling, by coding: `app.js.br` beside `app.js`. */
export const SIBLING_SUFFIX: Readonly<Record<Coding, string>> = Object.freeze({ br: '.br', gzip: '.gz' });

const COMPRESSIBLE = /^text\/|[+/](?:json|xml|javascript|ecmascript|x-javascript|wasm|manifest\+json)$|^image\/(?:svg\+xml|x-icon|vnd\.microsoft\.icon|bmp)$|^font\/(?:ttf|otf)$|^application\/(?:x-font-ttf|vnd\.ms-fontobject|rtf|x-sh)$/;

/** Whether a content type (with or without parameters) is text-like enough to compress. */
export function isCompressible(contentType: string): boolean {
  const semi = contentType.indexOf(';');
  return COMPRESSIBLE.test((semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase());
}

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Compresses `body` with the best ratio (it is done once per file version and kept). */
export function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'br') {
    return brotli(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    });
  }
  return gz(body, { level: 9 });
}

const NONE: readonly Coding[] = Object.freeze([]);
const seen = new Map<string, readonly Coding[]>();

/**
 * The codings an Accept-Encoding header accepts, best first (by q-value; br before gzip on a
 * tie). Results are remembered for the few distinct headers clients send.
 */
export function acceptedCodings(header: string): readonly Coding[] {
  const known = seen.get(header);
  if (known !== undefined) return known;
  let br = -1;
  let gzipQ = -1;
  let star = -1;
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [k, v] = param.split('=');
      if (k?.trim().toLowerCase() === 'q') {
        const n = Number(v?.trim());
        q = Number.isFinite(n) && n >= 0 && n <= 1 ? n : 0;
      }
    }
    if (name === 'br') br = q;
    else if (name === 'gzip' || name === 'x-gzip') gzipQ = q;
    else if (name === '*') star = q;
  }
  if (br < 0) br = star;
  if (gzipQ < 0) gzipQ = star;
  const list: Coding[] = [];
  if (br > 0) list.push('br');
  if (gzipQ > 0) {
    if (gzipQ > br) list.unshift('gzip');
    else list.push('gzip');
  }
  const result = list.length === 0 ? NONE : Object.freeze(list);
  if (seen.size < 256) seen.set(header, result);
  return result;
}
