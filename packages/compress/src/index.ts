/**
 * @velox/compress: response compression for Velox. zstd, brotli, gzip and deflate negotiated by
 * q-values; small bodies compressed at once with their exact length, large ones and streams
 * through zlib's streams, flushed per write; one body transform of core per response.
 */
export { compress } from './compress.ts';
export { CompressErrorCodes } from './errors.ts';

export type { CompressOptions } from './options.ts';
export type { Coding, ZstdOptions } from './codings.ts';
export type { CustomTypes } from './types-filter.ts';
export type { CompressErrorCode } from './errors.ts';
