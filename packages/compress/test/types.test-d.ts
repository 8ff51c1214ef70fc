import type { Middleware, Request, Response } from '@velox/core';
import { describe, expectTypeOf, it } from 'vitest';
import { type Coding, type CompressErrorCode, CompressErrorCodes, type CompressOptions, compress, type CustomTypes } from '../src/index.ts';

describe('compress() types', () => {
  it('returns a Velox middleware for app.use()', () => {
    expectTypeOf(compress()).toEqualTypeOf<Middleware>();
    expectTypeOf(compress({ threshold: 1024 })).toEqualTypeOf<Middleware>();
  });

  it('types the options', () => {
    expectTypeOf<CompressOptions['encodings']>().toEqualTypeOf<ReadonlyArray<Coding | 'identity'> | undefined>();
    expectTypeOf<Coding>().toEqualTypeOf<'br' | 'zstd' | 'gzip' | 'deflate'>();
    expectTypeOf<CompressOptions['filter']>().toEqualTypeOf<((req: Request, res: Response) => boolean) | undefined>();
    expectTypeOf<CustomTypes>().toEqualTypeOf<RegExp | ((contentType: string) => boolean)>();
    // @ts-expect-error: not a coding
    compress({ encodings: ['lzma'] });
    // @ts-expect-error: a number of bytes
    compress({ threshold: '1kb' });
    // @ts-expect-error: compression's name; here zlibOptions.level
    compress({ level: 6 });
  });

  it('types the error codes', () => {
    expectTypeOf(CompressErrorCodes.INVALID_OPTION).toEqualTypeOf<'VELOX_ERR_COMPRESS_INVALID_OPTION'>();
    expectTypeOf<CompressErrorCode>().toEqualTypeOf<'VELOX_ERR_COMPRESS_INVALID_OPTION' | 'VELOX_ERR_COMPRESS_STREAM'>();
  });
});
