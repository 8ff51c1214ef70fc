import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeCodec, mergedOptions, SUPPORTED_CODINGS } from '../src/codings.ts';

describe('codecs (internal)', () => {
  const options = mergedOptions({ zlibOptions: undefined, brotliOptions: undefined, zstdOptions: undefined });

  it('reuses one context for whole bodies with gzip, deflate and zstd on this Node, and not with br', () => {
    for (const coding of SUPPORTED_CODINGS) expect([coding, makeCodec(coding, options).reusesContext]).toEqual([coding, coding !== 'br']);
  });

  it('gives, with the reused context, the bytes zlib gives a fresh one, body after body', () => {
    const gzip = makeCodec('gzip', options);
    const deflate = makeCodec('deflate', options);
    for (let n = 0; n < 50; n += 1) {
      const body = `{"n":${n},"pad":"${'x'.repeat(n * 31)}"}`;
      expect(gzip.sync(body).equals(zlib.gzipSync(body))).toBe(true);
      expect(deflate.sync(body).equals(zlib.deflateSync(body))).toBe(true);
    }
  });

  it('keeps the user\'s zlib options on the reused context (level 1 and level 9 differ)', () => {
    const body = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ i, name: `name ${i % 17}`, tag: i % 3 ? 'a' : 'b' })));
    for (const level of [1, 9]) {
      const codec = makeCodec('gzip', mergedOptions({ zlibOptions: { level }, brotliOptions: undefined, zstdOptions: undefined }));
      expect(codec.sync(body).equals(zlib.gzipSync(body, { level }))).toBe(true);
    }
  });
});
