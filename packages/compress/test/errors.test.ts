import { Buffer } from 'node:buffer';
import { Transform } from 'node:stream';
import { type BodySink, PreparedHeader, VeloxError } from '@velox/core';
import { describeErrorCodes, thrownBy, until } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { ZlibBody } from '../src/body-stream.ts';
import type { Codec, ZlibStream } from '../src/codings.ts';
import { CompressErrorCodes, compress } from '../src/index.ts';

describeErrorCodes('CompressErrorCodes', CompressErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_COMPRESS_' }, () => {
  it('throws a VeloxError with INVALID_OPTION from the factory', () => {
    const err = thrownBy(() => compress({ threshold: -5 }));
    expect(err).toBeInstanceOf(VeloxError);
    expect(err).toMatchObject({ code: CompressErrorCodes.INVALID_OPTION });
  });

  it('hands the sink a VeloxError with STREAM when zlib fails mid-body, and calls nothing else on it', async () => {
    // A compressing stream that fails on its second chunk, as zlib does on an internal error.
    let chunks = 0;
    const failing = (): ZlibStream => {
      const stream = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          if (++chunks === 2) return done(new Error('zlib broke'));
          done(null, chunk);
        },
      }) as ZlibStream;
      stream.flush = () => {};
      return stream;
    };
    const codec: Codec = { coding: 'gzip', header: new PreparedHeader('Content-Encoding', 'gzip'), sync: () => Buffer.alloc(0), stream: failing, flushKind: 2, reusesContext: false };
    const calls: string[] = [];
    let failure: unknown;
    const sink: BodySink = {
      write: () => {
        calls.push('write');
        return true;
      },
      end: () => calls.push('end'),
      drain: () => calls.push('drain'),
      fail: (err) => {
        calls.push('fail');
        failure = err;
      },
    };
    const body = new ZlibBody(codec, true);
    body.start(sink);
    body.write(Buffer.from('one'));
    body.write(Buffer.from('two'));
    await until(() => failure !== undefined, 'the failure');
    expect(failure).toBeInstanceOf(VeloxError);
    expect(failure).toMatchObject({ code: CompressErrorCodes.STREAM, status: 500 });
    expect((failure as VeloxError).cause).toMatchObject({ message: 'zlib broke' });
    body.end();
    body.write(Buffer.from('three'));
    expect(calls).toEqual(['write', 'fail']);
  });
});
