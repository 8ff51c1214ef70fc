/**
 * The content codings: what this Node can produce (zstd only since Node 22.15 / 23.8, detected),
 * the order that breaks a tie of q-values, and one compressor per coding built once per
 * `compress()` from its options: a synchronous one for small whole bodies, a stream for the rest.
 * The only file of the package that imports node:zlib.
 */
import type { Buffer } from 'node:buffer';
import type { Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { PreparedHeader } from '@velox/core';

/**
 * A content coding `compress()` can produce. `zstd` only on Node ≥ 22.15 / 23.8.
 * @example
 * ```ts
 * const preferred: Coding[] = ['zstd', 'br', 'gzip'];
 * app.use(compress({ encodings: preferred }));
 * ```
 */
export type Coding = 'br' | 'zstd' | 'gzip' | 'deflate';

/**
 * zstd's options (node:zlib's `ZstdOptions`, which the Node 20 typings lack): `params` keyed by
 * `zlib.constants.ZSTD_c_*`, as brotli's are keyed by `BROTLI_PARAM_*`.
 * @example
 * ```ts
 * import { constants } from 'node:zlib';
 * app.use(compress({ zstdOptions: { params: { [constants.ZSTD_c_compressionLevel]: 6 } } }));
 * ```
 */
export interface ZstdOptions {
  /** zstd parameters by `zlib.constants.ZSTD_c_*` number, e.g. `{ [zlib.constants.ZSTD_c_compressionLevel]: 3 }`. */
  params?: Record<number, number | boolean>;
  /** Output chunk size in bytes (zlib's default: 16 KiB). */
  chunkSize?: number;
  /** Largest output of one synchronous call in bytes. */
  maxOutputLength?: number;
  /** Flush mode of every write, `zlib.constants.ZSTD_e_*` (default `ZSTD_e_continue`). */
  flush?: number;
  /** Flush mode of the end (default `ZSTD_e_end`). */
  finishFlush?: number;
}

type Sync = (body: string | Uint8Array, options: object) => Buffer;
/** A compressing stream of node:zlib: a Transform with `flush(kind)`. */
export type ZlibStream = Transform & { flush(kind?: number, callback?: () => void): void };

type Create = (options: object) => ZlibStream;

/** What node:zlib has for zstd since Node 22.15 / 23.8 (the typings of Node 20 declare none of it). */
interface ZstdApi {
  zstdCompressSync: Sync;
  createZstdCompress: Create;
  constants: { ZSTD_c_compressionLevel: number; ZSTD_e_flush: number };
}
const zstdApi = zlib as unknown as Partial<ZstdApi>;

/** Whether this Node compresses with zstd: without it, zstd is never offered. */
export const HAS_ZSTD =
  typeof zstdApi.zstdCompressSync === 'function' &&
  typeof zstdApi.createZstdCompress === 'function' &&
  typeof zstdApi.constants?.ZSTD_c_compressionLevel === 'number' &&
  typeof zstdApi.constants?.ZSTD_e_flush === 'number';

/**
 * Every coding this package knows, in the order that breaks a tie of q-values (the order of
 * `@velox/static`, deflate last): br, then zstd, then gzip, then deflate.
 */
export const ALL_CODINGS: readonly Coding[] = Object.freeze<Coding[]>(['br', 'zstd', 'gzip', 'deflate']);

/** The codings this Node can produce, in tie-break order: the default of the `encodings` option. */
export const SUPPORTED_CODINGS: readonly Coding[] = Object.freeze(ALL_CODINGS.filter((c) => c !== 'zstd' || HAS_ZSTD));

/** brotli quality 4 unless told otherwise (see the README: 11, zlib's default, is ~50x slower for ~12 % less). */
export const DEFAULT_BROTLI_QUALITY = 4;
/** zstd level 3 (zstd's own default) unless told otherwise. */
export const DEFAULT_ZSTD_LEVEL = 3;

/** One coding as a `compress()` uses it: options merged and checked, the header ready. */
export interface Codec {
  readonly coding: Coding;
  /** `Content-Encoding: <coding>`, checked once. */
  readonly header: PreparedHeader;
  /** Compresses a whole body at once, on the event loop. */
  sync(body: string | Uint8Array): Buffer;
  /** A compressing stream (its work runs on libuv's thread pool). */
  stream(): ZlibStream;
  /** The flush mode that pushes out everything written so far without ending: Z_SYNC_FLUSH, BROTLI_OPERATION_FLUSH, ZSTD_e_flush. */
  readonly flushKind: number;
}

/** The options of each family, as the factory got them (already checked to be objects or undefined). */
export interface CodecOptions {
  zlibOptions: zlib.ZlibOptions | undefined;
  brotliOptions: zlib.BrotliOptions | undefined;
  zstdOptions: ZstdOptions | undefined;
}

/** @internal The final options of each family: user values over the defaults (brotli quality 4, zstd level 3). */
export function mergedOptions(given: CodecOptions): Record<'zlib' | 'brotli' | 'zstd', object> {
  const brotli = given.brotliOptions ?? {};
  const zstd = given.zstdOptions ?? {};
  return {
    zlib: { ...given.zlibOptions },
    brotli: { ...brotli, params: { [zlib.constants.BROTLI_PARAM_QUALITY]: DEFAULT_BROTLI_QUALITY, ...brotli.params } },
    zstd: HAS_ZSTD ? { ...zstd, params: { [zstdApi.constants!.ZSTD_c_compressionLevel]: DEFAULT_ZSTD_LEVEL, ...zstd.params } } : { ...zstd },
  };
}

/**
 * The codec of `coding` with these options. Compresses a few bytes once, so that options zlib
 * refuses (a level of 12, a window of 3) throw here, at `compress()`, rather than at the first
 * request; the caller turns that into VELOX_ERR_COMPRESS_INVALID_OPTION.
 */
export function makeCodec(coding: Coding, options: Record<'zlib' | 'brotli' | 'zstd', object>): Codec {
  let sync: Sync;
  let create: Create;
  let opts: object;
  let flushKind: number;
  if (coding === 'gzip' || coding === 'deflate') {
    opts = options.zlib;
    sync = coding === 'gzip' ? zlib.gzipSync : zlib.deflateSync;
    create = (coding === 'gzip' ? zlib.createGzip : zlib.createDeflate) as Create;
    flushKind = zlib.constants.Z_SYNC_FLUSH;
  } else if (coding === 'br') {
    opts = options.brotli;
    sync = zlib.brotliCompressSync;
    create = zlib.createBrotliCompress as Create;
    flushKind = zlib.constants.BROTLI_OPERATION_FLUSH;
  } else {
    if (!HAS_ZSTD) throw new Error(`zstd needs Node 22.15 or later (this is ${process.version})`);
    opts = options.zstd;
    sync = zstdApi.zstdCompressSync!;
    create = zstdApi.createZstdCompress!;
    flushKind = zstdApi.constants!.ZSTD_e_flush;
  }
  sync('{"check":"options"}', opts);
  create(opts).destroy();
  return {
    coding,
    header: new PreparedHeader('Content-Encoding', coding),
    sync: (body) => sync(body, opts),
    stream: () => create(opts),
    flushKind,
  };
}
