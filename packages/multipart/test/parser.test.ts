import { Buffer } from 'node:buffer';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { PartHeaders } from '../src/headers.ts';
import { createFormParser } from '../src/parser.ts';
import { BOUNDARY, formBody, type RawPart } from './helpers.ts';

interface Seen {
  parts: Array<{ headers: PartHeaders; body: string }>;
  faults: string[];
  finished: boolean;
}

/** Feeds `body` to a parser in the given pieces; resolves with what it reported once it finished or failed. */
function parse(pieces: Buffer[], limits = { headerSize: 16 * 1024, headerPairs: 16 }): Promise<Seen> {
  const seen: Seen = { parts: [], faults: [], finished: false };
  return new Promise((resolve) => {
    const bodies: Promise<void>[] = [];
    const parser = createFormParser(BOUNDARY, limits, {
      part: (headers: PartHeaders, body: Readable) => {
        const chunks: Buffer[] = [];
        const entry = { headers, body: '' };
        seen.parts.push(entry);
        bodies.push(
          new Promise((done) => {
            body.on('data', (chunk: Buffer) => chunks.push(chunk));
            body.on('end', () => {
              entry.body = Buffer.concat(chunks).toString('latin1');
              done();
            });
          }),
        );
      },
      badHeader: (fault) => {
        seen.faults.push(fault.fault);
        parser.destroy();
        resolve(seen);
      },
      unexpectedEnd: () => {
        seen.faults.push('end');
        resolve(seen);
      },
      finish: () => {
        seen.finished = true;
        void Promise.all(bodies).then(() => resolve(seen));
      },
    });
    for (const piece of pieces) parser.write(piece);
    parser.end();
  });
}

/** `body` cut in two at `at`. */
const cut = (body: Buffer, at: number) => [body.subarray(0, at), body.subarray(at)];

const PARTS: RawPart[] = [
  { name: 'title', body: 'hello' },
  { name: 'file', filename: 'a.bin', type: 'application/octet-stream', body: Buffer.from('\r\n\r\nbytes\r\n\r\n', 'latin1') },
];

describe('createFormParser: part headers', () => {
  it('reads the same headers and bodies wherever the body is cut, the header terminator included', async () => {
    const body = formBody(PARTS);
    const whole = await parse([body]);
    expect(whole.finished).toBe(true);
    expect(whole.parts.map((p) => p.body)).toEqual(['hello', '\r\n\r\nbytes\r\n\r\n']);
    expect(whole.parts[1]!.headers['content-type']).toEqual(['application/octet-stream']);
    for (let at = 1; at < body.length; at++) {
      const got = await parse(cut(body, at));
      expect(got, `cut at ${at}`).toEqual(whole);
    }
  });

  it('reads a body fed one byte at a time', async () => {
    const body = formBody(PARTS);
    const pieces = [...body].map((byte) => Buffer.from([byte]));
    expect(await parse(pieces)).toEqual(await parse([body]));
  });

  it('takes a header block of exactly headerSize bytes and refuses one byte more, however it is cut', async () => {
    const headerSize = 200;
    // The block as the limit counts it: from the CRLF that ends the boundary line (Dicer hands
    // it to the header parser) to the blank line, `n` bytes in all.
    const block = (n: number) => {
      const line = '\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ';
      return `${line}${'p'.repeat(n - line.length)}`;
    };
    const body = (n: number) => Buffer.from(`--${BOUNDARY}${block(n)}\r\n\r\nok\r\n--${BOUNDARY}--\r\n`, 'latin1');
    const start = `--${BOUNDARY}`.length;
    const limits = { headerSize, headerPairs: 16 };
    for (const at of [0, start + 10, start + headerSize - 1, start + headerSize, start + headerSize + 1, start + headerSize + 2, start + headerSize + 3]) {
      const fits = at === 0 ? [body(headerSize)] : cut(body(headerSize), at);
      const fitsSeen = await parse(fits, limits);
      expect(fitsSeen.faults, `fits, cut at ${at}`).toEqual([]);
      expect(fitsSeen.parts.map((p) => p.body)).toEqual(['ok']);
      const over = at === 0 ? [body(headerSize + 1)] : cut(body(headerSize + 1), at);
      expect((await parse(over, limits)).faults, `over, cut at ${at}`).toEqual(['size']);
    }
  });

  it('refuses a header block that never ends once it is longer than headerSize', async () => {
    const body = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${'p'.repeat(300)}`, 'latin1');
    const got = await parse([body.subarray(0, 100), body.subarray(100)], { headerSize: 200, headerPairs: 16 });
    expect(got.faults).toEqual(['size']);
    expect(got.parts).toEqual([]);
  });
});
