import * as zlib from 'node:zlib';
import { VeloxError } from '@velox/core';
import { thrownBy } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { CompressErrorCodes, type CompressOptions, compress } from '../src/index.ts';
import { app, getWith, HAS_ZSTD, text } from './helpers.ts';

/** What compress(options) throws: a VeloxError with the option code, whose message matches `says`. */
function refuses(options: unknown, says: RegExp): void {
  const err = thrownBy(() => compress(options as CompressOptions));
  expect(err).toBeInstanceOf(VeloxError);
  expect((err as VeloxError).code).toBe(CompressErrorCodes.INVALID_OPTION);
  expect((err as VeloxError).message).toMatch(says);
}

describe('compress() options', () => {
  it('works with no options, and with every option at its documented default', () => {
    expect(typeof compress()).toBe('function');
    expect(
      typeof compress({
        threshold: 1024,
        syncThreshold: 8192,
        encodings: ['br', 'zstd', 'gzip', 'deflate'],
        zlibOptions: {},
        brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
        zstdOptions: {},
        sse: false,
      }),
    ).toBe('function');
  });

  it('refuses a threshold that is not a whole number of bytes, 0 or more', () => {
    for (const threshold of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1024', null]) refuses({ threshold }, /threshold must be a whole number of bytes, 0 or more, e\.g\. \{ threshold: 1024 \}/);
  });

  it('refuses a syncThreshold that is not a whole number of bytes, 0 or more', () => {
    for (const syncThreshold of [-1, 0.5, '8k']) refuses({ syncThreshold }, /syncThreshold must be a whole number of bytes/);
  });

  it('refuses encodings that are not a non-empty list of known codings, or that name one twice', () => {
    refuses({ encodings: 'gzip' }, /encodings must be a non-empty list/);
    refuses({ encodings: [] }, /encodings must be a non-empty list/);
    refuses({ encodings: ['gzip', 'lzma'] }, /encodings may hold 'br', 'zstd', 'gzip', 'deflate'.*"lzma"/);
    refuses({ encodings: ['gzip', 'gzip'] }, /names 'gzip' twice/);
  });

  it("accepts 'identity' in encodings and ignores it, and drops zstd where Node lacks it", async () => {
    const url = await app({ encodings: ['zstd', 'identity', 'gzip'] }, (a) => a.get('/', (req, res) => res.send(text(3000))));
    const r = await getWith(url, 'zstd, gzip');
    expect(r.coding).toBe(HAS_ZSTD ? 'zstd' : 'gzip');
    expect(r.text).toBe(text(3000));
  });

  it('refuses zlibOptions that are not an object, or that zlib refuses (a level of 12)', () => {
    refuses({ zlibOptions: 'fast' }, /zlibOptions must be an object of node:zlib options, e\.g\. \{ zlibOptions: \{ level: 6 \} \}/);
    refuses({ zlibOptions: { level: 12 } }, /zlib refused zlibOptions for gzip: .*level.*-1 and <= 9/);
    refuses({ zlibOptions: { windowBits: 3 } }, /zlib refused zlibOptions/);
  });

  it('refuses brotliOptions that are not an object, or that zlib refuses (an unknown parameter)', () => {
    refuses({ brotliOptions: [] }, /brotliOptions must be an object/);
    refuses({ brotliOptions: { params: { 9999: 1 } } }, /zlib refused brotliOptions for br: 9999 is not a valid Brotli parameter/);
  });

  it('refuses zstdOptions that are not an object', () => {
    refuses({ zstdOptions: 3 }, /zstdOptions must be an object/);
  });

  it('applies zlibOptions and brotliOptions: level 1 compresses less than level 9', async () => {
    const body = text(60_000, 'a mix of words to compress with several levels');
    const fast = await app({ zlibOptions: { level: 1 } }, (a) => a.get('/', (req, res) => res.send(body)));
    const best = await app({ zlibOptions: { level: 9 } }, (a) => a.get('/', (req, res) => res.send(body)));
    const one = await getWith(fast, 'gzip');
    const nine = await getWith(best, 'gzip');
    expect(one.text).toBe(body);
    expect(nine.text).toBe(body);
    expect(one.raw.length).toBeGreaterThan(nine.raw.length);
    const br = await app({ brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 0 } } }, (a) => a.get('/', (req, res) => res.send(body)));
    const brDefault = await app({}, (a) => a.get('/', (req, res) => res.send(body)));
    expect((await getWith(br, 'br')).raw.length).toBeGreaterThan((await getWith(brDefault, 'br')).raw.length);
  });

  it('refuses customTypes that is neither a RegExp nor a function', () => {
    refuses({ customTypes: 'application/x-protobuf' }, /customTypes must be a RegExp .* or a function/);
  });

  it('refuses a filter that is not a function', () => {
    refuses({ filter: true }, /filter must be a function \(req, res\) => boolean/);
  });

  it('refuses sse that is not a boolean', () => {
    refuses({ sse: 'yes' }, /sse must be true or false/);
  });

  it('refuses options that are not an object', () => {
    refuses(5, /compress\(\) takes an object of options/);
    refuses([], /compress\(\) takes an object of options/);
  });

  it('refuses an unknown option, naming the options', () => {
    refuses({ treshold: 10 }, /unknown option "treshold"; the options are threshold, syncThreshold, encodings/);
  });

  it("says where the options of compression and @fastify/compress went (level, brotli, global…)", () => {
    refuses({ level: 9 }, /there is no option "level" here; write zlibOptions: \{ level \}/);
    refuses({ brotli: {} }, /write brotliOptions/);
    refuses({ global: false }, /app\.use\('\/prefix', compress\(\)\)/);
    refuses({ removeContentLengthHeader: false }, /Content-Length is exact/);
  });
});
