import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Server } from '@velox/core';
import { parseResponses, rawConnection, start, tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type MultipartLimits, MultipartErrorCodes as Codes } from '../src/index.ts';
import { BOUNDARY, formBody, listDir, post, postHead, type RawPart, server } from './helpers.ts';

/** A server whose /upload route writes every file to `dir` and answers what it got. */
async function uploadServer(limits?: MultipartLimits): Promise<{ app: Server; url: string; port: number; dir: string }> {
  const dir = await tempDir();
  const app = await server(limits ? { limits } : undefined);
  app.post('/upload', async (req, res) => {
    const got: Array<{ name: string; value?: string; file?: string; size?: number }> = [];
    await req.multipart(async (part) => {
      if (part.file) got.push({ name: part.name, file: part.file.name, size: (await part.write(join(dir, randomUUID()))).size });
      else got.push({ name: part.name, value: part.value });
    });
    res.json(got);
  });
  return { app, dir, ...(await start(app)) };
}

const fields = (n: number): RawPart[] => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, body: String(i) }));
const files = (n: number, size = 10): RawPart[] => Array.from({ length: n }, (_, i) => ({ name: `file${i}`, filename: `${i}.bin`, body: randomBytes(size) }));

describe('limits (413, a code naming the limit)', () => {
  it('answers 413 when a file is over fileSize, and the partial file is gone', async () => {
    const { app, url, dir } = await uploadServer({ fileSize: 100_000 });
    // uWS v20.51 often reads the rest of the 3 MB past core's pause before the 413 goes out (see
    // the README: Large uploads and fast clients). Then nothing is left to refuse and the
    // connection stays open; otherwise the answer must close it.
    let complete: boolean | undefined;
    app.addHook('onSend', (req) => {
      complete = req.bodyComplete;
    });
    const data = new FormData();
    data.append('small', new Blob([randomBytes(50_000)]), 'small.bin');
    // Large enough (yet under the bodySize these limits imply, about 13 MB) that the body is still
    // arriving when the answer goes out: with uWS v20.51's 512 KB reads, a 3 MB body was often
    // whole by then, and a request read to its end is answered without Connection: close (its
    // connection stays usable).
    data.append('big', new Blob([Buffer.alloc(12 * 1024 * 1024, 7)]), 'big.bin');
    const r = await fetch(`${url}/upload`, { method: 'POST', body: data });
    expect(r.status).toBe(413);
    expect(complete).toBeTypeOf('boolean');
    expect(r.headers.get('connection')).toBe(complete ? null : 'close');
    expect(await r.json()).toMatchObject({ code: Codes.FILE_TOO_LARGE, limit: 'fileSize', max: 100_000 });
    // Both the complete first file and the partial second one are deleted.
    expect(await listDir(dir)).toEqual([]);
  });

  it('accepts a file of exactly fileSize', async () => {
    const { url } = await uploadServer({ fileSize: 1000 });
    const r = await post(`${url}/upload`, formBody([{ name: 'f', filename: 'a.bin', body: randomBytes(1000) }]));
    expect(r.json).toEqual([{ name: 'f', file: 'a.bin', size: 1000 }]);
  });

  it('answers 413 to too many files', async () => {
    const { url, dir } = await uploadServer({ files: 2 });
    const r = await post(`${url}/upload`, formBody(files(3)));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: Codes.TOO_MANY_FILES, limit: 'files', max: 2 });
    expect(await listDir(dir)).toEqual([]);
  });

  it('answers 413 to too many fields', async () => {
    const { url } = await uploadServer({ fields: 5 });
    const r = await post(`${url}/upload`, formBody(fields(6)));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: Codes.TOO_MANY_FIELDS, limit: 'fields', max: 5 });
    expect((await post(`${url}/upload`, formBody(fields(5)))).status).toBe(200);
  });

  it('answers 413 to a field over fieldSize', async () => {
    const { url } = await uploadServer({ fieldSize: 1024 });
    const r = await post(`${url}/upload`, formBody([{ name: 'text', body: 'x'.repeat(1025) }]));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: Codes.FIELD_TOO_LARGE, limit: 'fieldSize', max: 1024 });
  });

  it('answers 413 to a field over the default fieldSize (100 KiB)', async () => {
    const { url } = await uploadServer();
    const r = await post(`${url}/upload`, formBody([{ name: 'text', body: 'x'.repeat(100 * 1024 + 1) }]));
    expect(r.json).toMatchObject({ code: Codes.FIELD_TOO_LARGE, max: 100 * 1024 });
  });

  it('answers 413 to a part name over fieldNameSize', async () => {
    const { url } = await uploadServer();
    const r = await post(`${url}/upload`, formBody([{ name: 'n'.repeat(101), body: 'x' }]));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: Codes.FIELD_NAME_TOO_LARGE, limit: 'fieldNameSize', max: 100 });
  });

  it('answers 413 to too many parts', async () => {
    const { url } = await uploadServer({ parts: 3 });
    const r = await post(`${url}/upload`, formBody([...fields(2), ...files(2)]));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: Codes.TOO_MANY_PARTS, limit: 'parts', max: 3 });
  });

  it('answers 413 to a part with more header lines than headerPairs', async () => {
    const { url } = await uploadServer();
    const headers = Array.from({ length: 16 }, (_, i) => `X-Extra-${i}: y`);
    const r = await post(`${url}/upload`, formBody([{ name: 'a', body: '1', headers }]));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: Codes.TOO_MANY_HEADERS, limit: 'headerPairs', max: 16 });
  });

  it('answers 413 to a part header over 16 KB, sent byte by byte on a raw socket', async () => {
    const { port } = await uploadServer();
    const body = formBody([{ name: 'f', filename: 'a.txt', headers: [`X-Padding: ${'p'.repeat(17 * 1024)}`], body: 'abc' }]);
    const client = await rawConnection(port);
    await client.write(postHead('/upload', body.length));
    await client.write(body);
    const text = await client.until((t) => parseResponses(t).length === 1, 'the answer');
    const [answer] = parseResponses(text);
    expect(answer?.status).toBe(413);
    expect(JSON.parse(answer!.body)).toMatchObject({ code: Codes.HEADER_TOO_LARGE, limit: 'headerSize', max: 16 * 1024 });
    client.socket.destroy();
  });

  it('accepts a part header just under 16 KB', async () => {
    const { url } = await uploadServer();
    const r = await post(`${url}/upload`, formBody([{ name: 'a', headers: [`X-Padding: ${'p'.repeat(15 * 1024)}`], body: 'ok' }]));
    expect(r.json).toEqual([{ name: 'a', value: 'ok' }]);
  });

  it('answers 413 before reading when Content-Length is over bodySize', async () => {
    const { port } = await uploadServer({ bodySize: 1000 });
    const client = await rawConnection(port);
    // Only the head goes out: the answer must not wait for the body.
    await client.write(postHead('/upload', 5000));
    const text = await client.until((t) => parseResponses(t).length === 1, 'the answer');
    const [answer] = parseResponses(text);
    expect(answer?.status).toBe(413);
    expect(answer?.headers.connection).toBe('close');
    expect(JSON.parse(answer!.body)).toMatchObject({ code: Codes.BODY_TOO_LARGE, limit: 'bodySize', max: 1000 });
    client.socket.destroy();
  });

  it('answers 413 when a chunked body grows over bodySize', async () => {
    const { port } = await uploadServer({ bodySize: 10_000 });
    const client = await rawConnection(port);
    await client.write(
      `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    // A preamble that never ends: no part ever starts, only the whole-body limit can stop it.
    const chunk = 'x'.repeat(4096);
    for (let i = 0; i < 4; i++) await client.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const text = await client.until((t) => t.includes(Codes.BODY_TOO_LARGE), 'the answer');
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    client.socket.destroy();
  });
});

describe('malformed bodies (415, 400)', () => {
  it('answers 415 to a body that is not multipart/form-data', async () => {
    const { url } = await uploadServer();
    for (const type of ['text/plain', 'application/json', 'multipart/mixed; boundary=x', 'application/x-www-form-urlencoded']) {
      const r = await post(`${url}/upload`, 'a=1', type);
      expect(r.status, type).toBe(415);
      expect(r.json.code).toBe(Codes.UNSUPPORTED_MEDIA_TYPE);
    }
    const none = await fetch(`${url}/upload`, { method: 'POST', body: new Uint8Array([1, 2, 3]) });
    expect(none.status).toBe(415);
    expect(((await none.json()) as { message: string }).message).toMatch(/no Content-Type/);
  });

  it('reads the media type case-insensitively', async () => {
    const { url } = await uploadServer();
    const r = await post(`${url}/upload`, formBody(fields(1)), `Multipart/Form-Data; Boundary="${BOUNDARY}"`);
    expect(r.json).toEqual([{ name: 'f0', value: '0' }]);
  });

  it('answers 400 to a missing, empty or unreadable boundary', async () => {
    const { url } = await uploadServer();
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary="unclosed', 'multipart/form-data; charset=utf-8']) {
      const r = await post(`${url}/upload`, formBody(fields(1)), type);
      expect(r.status, type).toBe(400);
      expect(r.json.code, type).toBe(Codes.BAD_BOUNDARY);
    }
  });

  it('answers 400 to a boundary of 71 characters and accepts one of 70', async () => {
    const { url } = await uploadServer();
    const long = 'b'.repeat(71);
    const r = await post(`${url}/upload`, formBody(fields(1), { boundary: long }), `multipart/form-data; boundary=${long}`);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: Codes.BAD_BOUNDARY, message: expect.stringMatching(/71 characters/) });
    const ok = 'b'.repeat(70);
    expect((await post(`${url}/upload`, formBody(fields(1), { boundary: ok }), `multipart/form-data; boundary=${ok}`)).status).toBe(200);
  });

  it('answers 400 to a boundary with characters RFC 2046 forbids', async () => {
    const { url } = await uploadServer();
    const r = await post(`${url}/upload`, formBody(fields(1), { boundary: 'a"b<c>' }), 'multipart/form-data; boundary="a\\"b<c>"');
    expect(r.status).toBe(400);
    expect(r.json.code).toBe(Codes.BAD_BOUNDARY);
  });

  it('answers 400 to a body cut before the closing boundary', async () => {
    const { url, dir } = await uploadServer();
    const body = formBody([{ name: 'a', body: '1' }, { name: 'f', filename: 'f.bin', body: randomBytes(20_000) }], { close: false });
    const cut = body.subarray(0, body.length - 5_000);
    const r = await post(`${url}/upload`, cut);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: Codes.UNEXPECTED_END });
    expect(await listDir(dir)).toEqual([]);
  });

  it('answers 400 to a body with no boundary in it at all, or bare LF line ends', async () => {
    const { url } = await uploadServer();
    expect((await post(`${url}/upload`, 'just some text')).json.code).toBe(Codes.UNEXPECTED_END);
    const bareLf = `--${BOUNDARY}\nContent-Disposition: form-data; name="a"\n\n1\n--${BOUNDARY}--\n`;
    expect((await post(`${url}/upload`, bareLf)).json.code).toBe(Codes.UNEXPECTED_END);
  });

  it('answers 400 to broken part headers', async () => {
    const { url } = await uploadServer();
    const broken: Record<string, string> = {
      'no colon': `--${BOUNDARY}\r\nContent-Disposition form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'empty name': `--${BOUNDARY}\r\n: form-data\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'control character': `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a\x01"\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'bare CR': `--${BOUNDARY}\r\nContent-Disposition: form-data;\r name="a"\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'text after the boundary': `--${BOUNDARY}junk\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'cut by a boundary': `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n--${BOUNDARY}--\r\n`,
      'no Content-Disposition': `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'two Content-Dispositions': `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nContent-Disposition: form-data; name="b"\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'not form-data': `--${BOUNDARY}\r\nContent-Disposition: attachment; name="a"\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'no name': `--${BOUNDARY}\r\nContent-Disposition: form-data; filename="a.txt"\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
      'unclosed quote': `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a\r\n\r\n1\r\n--${BOUNDARY}--\r\n`,
    };
    for (const [what, body] of Object.entries(broken)) {
      const r = await post(`${url}/upload`, body);
      expect(r.status, what).toBe(400);
      expect(r.json.code, what).toBe(Codes.BAD_PART_HEADER);
    }
  });

  it('accepts transport padding after a boundary and folded header lines', async () => {
    const { url } = await uploadServer();
    const body = `--${BOUNDARY}  \r\nContent-Disposition: form-data;\r\n name="a"\r\n\r\n1\r\n--${BOUNDARY}--\r\nepilogue`;
    expect((await post(`${url}/upload`, body)).json).toEqual([{ name: 'a', value: '1' }]);
  });
});

describe('file names', () => {
  it('decodes UTF-8 names, prefers filename* and keeps only a safe base name', async () => {
    const { url } = await uploadServer({ files: 20 });
    const parts: RawPart[] = [
      { disposition: 'form-data; name="a"; filename="résumé €.pdf"', body: '1' },
      { disposition: `form-data; name="b"; filename="fallback.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt`, body: '1' },
      { disposition: `form-data; name="c"; filename*=utf-8''%E6%97%A5%E6%9C%AC.txt`, body: '1' },
      { disposition: 'form-data; name="d"; filename="../../etc/passwd"', body: '1' },
      { disposition: 'form-data; name="e"; filename="C:\\Users\\me\\cv.doc"', body: '1' },
      { disposition: `form-data; name="f"; filename*=UTF-8''..%2F..%2Fetc%2Fshadow`, body: '1' },
      { disposition: 'form-data; name="g"; filename="evil\u202Etxt.exe"', body: '1' },
      { disposition: 'form-data; name="h"; filename=".."', body: '1' },
      { disposition: `form-data; name="i"; filename*=UTF-8''a%7Fb%00%0D%0A.txt`, body: '1' },
      { disposition: 'form-data; name="j"; filename="x\uFF0Fy.txt"', body: '1' },
      { disposition: `form-data; name="k"; filename="ok.txt"; filename*=UTF-8''%FF%FE`, body: '1' },
    ];
    const r = await post(`${url}/upload`, formBody(parts));
    expect(r.status).toBe(200);
    expect((r.json as Array<{ name: string; file: string }>).map((p) => [p.name, p.file])).toEqual([
      ['a', 'résumé €.pdf'],
      ['b', '€ rates.txt'],
      ['c', '日本.txt'],
      ['d', 'passwd'],
      ['e', 'cv.doc'],
      ['f', 'shadow'],
      ['g', 'eviltxt.exe'],
      ['h', ''],
      ['i', 'ab.txt'],
      ['j', 'y.txt'],
      ['k', 'ok.txt'],
    ]);
  });

  it('decodes a UTF-8 field name', async () => {
    const { url } = await uploadServer();
    const r = await post(`${url}/upload`, formBody([{ name: 'prénom', body: 'Zoë' }]));
    expect(r.json).toEqual([{ name: 'prénom', value: 'Zoë' }]);
  });
});
