import type { Readable } from 'node:stream';
import type { Plugin, Request } from '@velox/core';
import { describe, expectTypeOf, it } from 'vitest';
import { type FileInfo, type MultipartOptions, multipart, type Part, type WrittenFile } from '../src/index.ts';

describe('types', () => {
  it('types req.multipart() and req.parts()', () => {
    expectTypeOf<Request['parts']>().returns.toEqualTypeOf<AsyncIterableIterator<Part>>();
    expectTypeOf<Request['multipart']>().toBeCallableWith(async (part: Part) => part.name);
    expectTypeOf<Request['multipart']>().toBeCallableWith({ limits: { fileSize: 1 } }, (part: Part) => part.name);
    expectTypeOf<ReturnType<Request['multipart']>>().toEqualTypeOf<Promise<void>>();
  });

  it('narrows a part to a field or a file', () => {
    const part = {} as Part;
    if (part.file) {
      expectTypeOf(part.file).toEqualTypeOf<FileInfo>();
      expectTypeOf(part.file.stream).toEqualTypeOf<Readable>();
      expectTypeOf(part.value).toEqualTypeOf<undefined>();
    } else {
      expectTypeOf(part.value).toEqualTypeOf<string>();
    }
    expectTypeOf(part.write).returns.toEqualTypeOf<Promise<WrittenFile>>();
    expectTypeOf(part.truncated).toEqualTypeOf<boolean>();
  });

  it('is a plugin taking the options', () => {
    expectTypeOf(multipart).toEqualTypeOf<Plugin<MultipartOptions | undefined>>();
    expectTypeOf<MultipartOptions['limits']>().exclude<undefined>().toHaveProperty('fileSize').toEqualTypeOf<number | undefined>();
  });
});
