/**
 * Content codings: which types are worth compressing, choosing br, zstd or gzip from
 * Accept-Encoding, and compressing once (off the event loop, on libuv's thread pool). The only
 * file that imports node:zlib, and so the one place that knows whether this Node has zstd.
 */
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';

/** The codings Velox produces or serves from `.br` / `.zst` / `.gz` siblings. */
export type Coding = 'br' | 'zstd' | 'gzip';

type Callback = (err: Error | null, out: Buffer) => void;

/** What node:zlib has for zstd since Node 22.15 / 23.8 (the @types/node of Node 20 declares none of it). */
interface ZstdApi {
  zstdCompress(body: Buffer, options: { params: Record<number, number>; pledgedSrcSize?: number }, callback: Callback): void;
  constants: { ZSTD_c_compressionLevel: number };
}

const zstdApi = zlib as unknown as Partial<ZstdApi>;

/** Whether this Node compresses with zstd (Node >= 22.15): without it, zstd is never offered. */
export const HAS_ZSTD = typeof zstdApi.zstdCompress === 'function' && typeof zstdApi.constants?.ZSTD_c_compressionLevel === 'number';

/**
 * The codings this Node can serve, in the order that breaks a tie of q-values: br first (for
 * bytes compressed once at the highest setting it is usually the smallest on text, and every
 * browser that sends zstd sends br too), then zstd (smaller than gzip and faster to decode),
 * then gzip.
 */
export const CODINGS: readonly Coding[] = Object.freeze<Coding[]>(HAS_ZSTD ? ['br', 'zstd', 'gzip'] : ['br', 'gzip']);

/** The name ending of a precompressed sibling, by coding: `app.js.br` beside `app.js`. */
export const SIBLING_SUFFIX: Readonly<Record<Coding, string>> = Object.freeze({ br: '.br', zstd: '.zst', gzip: '.gz' });

const COMPRESSIBLE = /^text\/|[+/](?:json|xml|javascript|ecmascript|x-javascript|wasm|manifest\+json)$|^image\/(?:svg\+xml|x-icon|vnd\.microsoft\.icon|bmp)$|^font\/(?:ttf|otf)$|^application\/(?:x-font-ttf|vnd\.ms-fontobject|rtf|x-sh)$/;

/** Whether a content type (with or without parameters) is text-like enough to compress. */
export function isCompressible(contentType: string): boolean {
  const semi = contentType.indexOf(';');
  return COMPRESSIBLE.test((semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase());
}

const brotli = promisify(zlib.brotliCompress);
const gz = promisify(zlib.gzip);
const zstd = HAS_ZSTD ? promisify(zstdApi.zstdCompress!) : undefined;

/**
 * Compresses `body` with the best ratio (it is done once per file version and kept). zstd uses
 * level 19, the highest whose window stays within the 8 MiB that RFC 9659 asks of HTTP decoders;
 * the size given up front makes the frame record it and shrinks the window to the body.
 */
export function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'br') {
    return brotli(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      },
    });
  }
  if (coding === 'zstd') {
    if (zstd === undefined) return Promise.reject(new Error('This Node has no zstd'));
    return zstd(body, { params: { [zstdApi.constants!.ZSTD_c_compressionLevel]: 19 }, pledgedSrcSize: body.length });
  }
  return gz(body, { level: 9 });
}

const NONE: readonly Coding[] = Object.freeze([]);
const seen = new Map<string, readonly Coding[]>();

/**
 * The codings an Accept-Encoding header accepts that this Node can serve, best first: by
 * q-value, a tie broken by the order of {@link CODINGS}. `*` stands for those not named;
 * `q=0` refuses. Results are remembered for the few distinct headers clients send.
 */
export function acceptedCodings(header: string): readonly Coding[] {
  const known = seen.get(header);
  if (known !== undefined) return known;
  const q: Record<Coding, number> = { br: -1, zstd: -1, gzip: -1 };
  let star = -1;
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    let value = 1;
    for (const param of params) {
      const [k, v] = param.split('=');
      if (k?.trim().toLowerCase() === 'q') {
        const n = Number(v?.trim());
        value = Number.isFinite(n) && n >= 0 && n <= 1 ? n : 0;
      }
    }
    if (name === 'br' || name === 'zstd' || name === 'gzip') q[name] = value;
    else if (name === 'x-gzip') q.gzip = value;
    else if (name === '*') star = value;
  }
  // CODINGS is in tie-break order and sort() is stable: equal q-values keep that order.
  const list = CODINGS.map((coding) => ({ coding, q: q[coding] < 0 ? star : q[coding] }))
    .filter((c) => c.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((c) => c.coding);
  const result = list.length === 0 ? NONE : Object.freeze(list);
  if (seen.size < 256) seen.set(header, result);
  return result;
}
