/**
 * The options of `compress()`, checked once by the factory and turned into the settings the
 * transform reads: codecs built (zlib checks their options then), the allowed codings in
 * tie-break order, the type filter.
 */
import type { BrotliOptions, ZlibOptions } from 'node:zlib';
import type { Request, Response } from '@velox/core';
import { type Codec, type Coding, makeCodec, mergedOptions, SUPPORTED_CODINGS, type ZstdOptions } from './codings.ts';
import { invalidOption } from './errors.ts';
import { type CustomTypes, TypeFilter } from './types-filter.ts';

/**
 * Options of {@link compress}. Every one has a default; a bad one throws `VELOX_ERR_COMPRESS_INVALID_OPTION`.
 * @example
 * ```ts
 * import { constants } from 'node:zlib';
 * import { type CompressOptions, compress } from '@velox/compress';
 * const options: CompressOptions = {
 *   threshold: 1024,
 *   encodings: ['br', 'gzip'],
 *   brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } },
 *   customTypes: /x-protobuf$/,
 *   filter: (req) => req.get('x-no-compression') === undefined,
 * };
 * app.use(compress(options));
 * ```
 */
export interface CompressOptions {
  /**
   * Bodies smaller than this many bytes go out uncompressed (they still get `Vary:
   * Accept-Encoding`). A streamed body of unknown length is always compressed. Default: `1024`.
   */
  threshold?: number;
  /**
   * Whole bodies of up to this many bytes are compressed synchronously on the event loop and sent
   * with their exact Content-Length; larger ones and streams go through zlib's streams (libuv's
   * thread pool), chunked. `0`: every body through the streams. Default: `8192` (measured: see
   * the README's "Synchronous or on the thread pool").
   */
  syncThreshold?: number;
  /**
   * The codings allowed, in the order that breaks a tie of q-values. Names this Node cannot
   * produce (`zstd` before Node 22.15) are dropped; `'identity'` is accepted and ignored.
   * Default: `['br', 'zstd', 'gzip', 'deflate']` (zstd where Node has it).
   */
  encodings?: ReadonlyArray<Coding | 'identity'>;
  /** node:zlib options of gzip and deflate (`level`, `memLevel`, `windowBits`, `strategy`, `chunkSize`…). Default: `{}`, zlib's defaults (level 6). */
  zlibOptions?: ZlibOptions;
  /** node:zlib options of brotli; `params` merge over the default quality. Default: `{ params: { [BROTLI_PARAM_QUALITY]: 4 } }`. */
  brotliOptions?: BrotliOptions;
  /** node:zlib options of zstd; `params` merge over the default level. Default: `{ params: { [ZSTD_c_compressionLevel]: 3 } }`. */
  zstdOptions?: ZstdOptions;
  /**
   * Also compress these content types, beyond those mime-db marks compressible: a RegExp tested
   * against the Content-Type value (`/x-protobuf$/`), or a function of it. Default: none.
   */
  customTypes?: CustomTypes;
  /**
   * Called at head time, when every other check allowed compression: return false to send this
   * response uncompressed (and without `Vary: Accept-Encoding`). Default: none.
   */
  filter?: (req: Request, res: Response) => boolean;
  /** Compress Server-Sent Events (`text/event-stream`, flushed per event). Default: `false`. */
  sse?: boolean;
}

/** @internal What the transform reads, made once per `compress()`. */
export interface Settings {
  threshold: number;
  syncThreshold: number;
  /** The allowed codings this Node can produce, in tie-break order. */
  codings: readonly Coding[];
  /** Their codecs, at the same indexes. */
  codecs: readonly Codec[];
  types: TypeFilter;
  filter: ((req: Request, res: Response) => boolean) | undefined;
}

const KNOWN = new Set(['threshold', 'syncThreshold', 'encodings', 'zlibOptions', 'brotliOptions', 'zstdOptions', 'customTypes', 'filter', 'sse']);

/** What to write instead, for options of `compression` and `@fastify/compress` that are spelled otherwise here or not needed. */
const MIGRATION: Record<string, string> = {
  level: 'zlibOptions: { level }',
  memLevel: 'zlibOptions: { memLevel }',
  windowBits: 'zlibOptions: { windowBits }',
  strategy: 'zlibOptions: { strategy }',
  chunkSize: 'zlibOptions: { chunkSize }',
  brotli: 'brotliOptions',
  enforceEncoding: 'nothing (a request without Accept-Encoding gets an uncompressed body, as RFC 9110 allows)',
  global: "nothing: use app.use(compress()) for every route, app.use('/prefix', compress()) or a route middleware for some",
  globalCompression: "nothing: use app.use(compress()) for every route, app.use('/prefix', compress()) or a route middleware for some",
  removeContentLengthHeader: 'nothing: Content-Length is exact for bodies compressed at once and absent for streams',
  onUnsupportedEncoding: 'nothing: an Accept-Encoding with no coding we produce gets an uncompressed body',
  inflateIfDeflated: 'nothing: a body that already has Content-Encoding goes out untouched',
  zlib: 'nothing: node:zlib is used',
  requestEncodings: 'nothing: @velox/compress compresses responses only',
  forceRequestEncoding: 'nothing: @velox/compress compresses responses only',
  globalDecompression: 'nothing: @velox/compress compresses responses only',
};

function byteCount(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidOption(`compress(): ${name} must be a whole number of bytes, 0 or more, e.g. { ${name}: ${fallback} }; got ${String(value)}`);
  }
  return value;
}

function plainObject(name: string, value: unknown, example: string): void {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw invalidOption(`compress(): ${name} must be an object of node:zlib options, e.g. { ${name}: ${example} }; got ${String(value)}`);
  }
}

/** @internal Checks the options and builds the settings; throws VELOX_ERR_COMPRESS_INVALID_OPTION. */
export function settingsOf(options: CompressOptions | undefined): Settings {
  if (options === undefined || options === null) options = {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOption(`compress() takes an object of options, e.g. compress({ threshold: 1024 }); got ${String(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (KNOWN.has(key)) continue;
    const instead = MIGRATION[key];
    throw invalidOption(
      instead === undefined
        ? `compress(): unknown option "${key}"; the options are ${[...KNOWN].join(', ')}`
        : `compress(): there is no option "${key}" here; write ${instead}`,
    );
  }

  const threshold = byteCount('threshold', options.threshold, 1024);
  const syncThreshold = byteCount('syncThreshold', options.syncThreshold, 8192);

  let codings = SUPPORTED_CODINGS;
  if (options.encodings !== undefined) {
    const given = options.encodings as unknown;
    if (!Array.isArray(given) || given.length === 0) {
      throw invalidOption(`compress(): encodings must be a non-empty list of 'br', 'zstd', 'gzip', 'deflate', e.g. { encodings: ['br', 'gzip'] }; got ${String(given)}`);
    }
    const list: Coding[] = [];
    for (const name of given) {
      if (name === 'identity') continue;
      if (name !== 'br' && name !== 'zstd' && name !== 'gzip' && name !== 'deflate') {
        throw invalidOption(`compress(): encodings may hold 'br', 'zstd', 'gzip', 'deflate' (and 'identity', ignored); got ${JSON.stringify(name)}`);
      }
      if (list.includes(name)) throw invalidOption(`compress(): encodings names '${name}' twice; name each coding once, in the order that breaks ties`);
      if (SUPPORTED_CODINGS.includes(name)) list.push(name);
    }
    codings = Object.freeze(list);
  }

  plainObject('zlibOptions', options.zlibOptions, '{ level: 6 }');
  plainObject('brotliOptions', options.brotliOptions, '{ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }');
  plainObject('zstdOptions', options.zstdOptions, '{ params: { [zlib.constants.ZSTD_c_compressionLevel]: 3 } }');
  const merged = mergedOptions({ zlibOptions: options.zlibOptions, brotliOptions: options.brotliOptions, zstdOptions: options.zstdOptions });
  const codecs = codings.map((coding) => {
    try {
      return makeCodec(coding, merged);
    } catch (err) {
      const option = coding === 'br' ? 'brotliOptions' : coding === 'zstd' ? 'zstdOptions' : 'zlibOptions';
      throw invalidOption(`compress(): zlib refused ${option} for ${coding}: ${(err as Error).message}. Check the values against node:zlib's documentation (e.g. level 0 to 9, quality 0 to 11)`, err);
    }
  });

  const custom = options.customTypes;
  if (custom !== undefined && !(custom instanceof RegExp) && typeof custom !== 'function') {
    throw invalidOption(`compress(): customTypes must be a RegExp tested against the Content-Type, or a function (type) => boolean, e.g. { customTypes: /x-protobuf$/ }; got ${String(custom)}`);
  }
  const filter = options.filter;
  if (filter !== undefined && typeof filter !== 'function') {
    throw invalidOption(`compress(): filter must be a function (req, res) => boolean; got ${String(filter)}`);
  }
  const sse = options.sse ?? false;
  if (typeof sse !== 'boolean') throw invalidOption(`compress(): sse must be true or false; got ${String(sse)}`);

  return { threshold, syncThreshold, codings, codecs, types: new TypeFilter(custom, sse), filter };
}
