/**
 * The content codings: what this Node can produce (zstd only since Node 22.15 / 23.8, detected),
 * the order that breaks a tie of q-values, and one compressor per coding built once per
 * `compress()` from its options: a synchronous one for small whole bodies, a stream for the rest.
 * The only file of the package that imports node:zlib.
 */
import { Buffer } from 'node:buffer';
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
  /** Whether whole bodies go through one context reset between bodies (gzip, deflate, zstd where node:zlib allows it) rather than a new one each. */
  readonly reusesContext: boolean;
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
  // brotli's reset() frees and rebuilds its whole encoder (about 2 ms at quality 4): a fresh one per body is far cheaper.
  const whole = coding === 'br' ? undefined : reusedCompressor(create(opts), finishOf(coding), decompressorOf(coding));
  return {
    coding,
    header: new PreparedHeader('Content-Encoding', coding),
    sync: whole === undefined ? (body) => sync(body, opts) : (body) => whole(body) ?? sync(body, opts),
    stream: () => create(opts),
    flushKind,
    reusesContext: whole !== undefined,
  };
}

/** The decompressor that checks, once, what a reused context produces. */
function decompressorOf(coding: Coding): (compressed: Uint8Array) => Buffer {
  if (coding === 'gzip') return zlib.gunzipSync;
  if (coding === 'deflate') return zlib.inflateSync;
  return (zlib as unknown as { zstdDecompressSync: (compressed: Uint8Array) => Buffer }).zstdDecompressSync;
}

function finishOf(coding: Coding): number {
  return coding === 'zstd' ? (zlib.constants as unknown as { ZSTD_e_end: number }).ZSTD_e_end : zlib.constants.Z_FINISH;
}

/** The part of node:zlib's native handle (`stream._handle`) a whole-body compression needs. */
interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inOffset: number, inLength: number, out: Uint8Array, outOffset: number, outLength: number): void;
  reset(): void;
}

/** Room for one whole compressed body; a body whose output does not fit goes to zlib's own `*Sync`. */
const OUT_BYTES = 64 * 1024;

/**
 * One compression context kept for every whole body of a codec, reset between bodies, instead
 * of the context `gzipSync` and `zstdCompressSync` allocate, initialise and free on every call
 * (deflate's 256 KiB window and hash table, zstd's tables): about a third of the time of a 2 KB
 * JSON answer. It drives the native handle of a node:zlib stream the way node:zlib's own
 * synchronous path does (`processChunkSync` in lib/zlib.js: `writeSync(flush, in, …, out, …)`,
 * the bytes left in `_writeState`), which node:zlib does not document: everything it uses is
 * checked here, and without it (or after any error) the codec uses `gzipSync` and its siblings.
 * Returns undefined for a body whose output does not fit in one buffer, which the caller then
 * compresses with the `*Sync` function.
 */
function reusedCompressor(
  stream: ZlibStream,
  finish: number,
  decompress: (compressed: Uint8Array) => Buffer,
): ((body: string | Uint8Array) => Buffer | undefined) | undefined {
  const inner = stream as unknown as { _handle?: Partial<NativeHandle>; _writeState?: unknown };
  const handle = inner._handle;
  const state = inner._writeState;
  if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
    stream.destroy();
    return undefined;
  }
  const native = handle as NativeHandle;
  let broken = false;
  // An error of the native side reaches the stream (which then closes the handle): never use it again.
  stream.on('error', () => {
    broken = true;
  });
  const out = Buffer.allocUnsafe(OUT_BYTES);
  const compressWhole = (body: string | Uint8Array): Buffer | undefined => {
    if (broken) return undefined;
    const input = typeof body === 'string' ? Buffer.from(body) : body;
    if (input.byteLength >= OUT_BYTES) return undefined;
    native.writeSync(finish, input, 0, input.byteLength, out, 0, OUT_BYTES);
    if (broken) return undefined;
    const outLeft = state[0]!;
    const inLeft = state[1]!;
    native.reset();
    // Output that filled the buffer may not be finished: compress it again the plain way.
    if (outLeft === 0 || inLeft !== 0) return undefined;
    return Buffer.from(out.subarray(0, OUT_BYTES - outLeft));
  };
  // Checked once: two bodies in a row (the second after a reset) each decompress to themselves.
  const probes = ['{"check":"reuse","n":1}', '{"check":"reuse","n":2,"more":"bytes"}'];
  const roundTrips = (probe: string): boolean => {
    try {
      const compressed = compressWhole(probe);
      return compressed !== undefined && decompress(compressed).toString() === probe;
    } catch {
      return false;
    }
  };
  if (!probes.every(roundTrips)) {
    broken = true;
    stream.destroy();
    return undefined;
  }
  return compressWhole;
}
