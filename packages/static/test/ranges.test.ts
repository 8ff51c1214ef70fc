import { describe, expect, it } from 'vitest';
import { parseRange, StaticErrorCodes } from '../src/index.ts';
import { get, rawGet, serve, tree } from './helpers.ts';

const BODY = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');

describe('parseRange', () => {
  it('parses, clamps, sorts and merges ranges', () => {
    expect(parseRange('bytes=0-4', 10)).toEqual([[0, 4]]);
    expect(parseRange('bytes=5-', 10)).toEqual([[5, 9]]);
    expect(parseRange('bytes=-3', 10)).toEqual([[7, 9]]);
    expect(parseRange('bytes=8-100', 10)).toEqual([[8, 9]]);
    expect(parseRange('bytes=6-7, 0-1, 1-2', 10)).toEqual([
      [0, 2],
      [6, 7],
    ]);
  });

  it('ignores malformed headers, other units and more than 16 ranges', () => {
    for (const header of ['bytes=abc', 'bytes=5-2', 'items=0-1', 'bytes', 'bytes=--1', 'bytes=1-2-3', 'bytes=0x1-2', `bytes=${'0-0,'.repeat(17)}0-0`]) {
      expect(parseRange(header, 10)).toBe('ignore');
    }
  });

  it('reports unsatisfiable ranges', () => {
    expect(parseRange('bytes=999999999-', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=10-20', 10)).toBe('unsatisfiable');
  });
});

describe('serveStatic ranges', () => {
  async function setup(options = {}) {
    const root = await tree({ 'f.txt': BODY, 'big.bin': Buffer.alloc(100_000, 1) });
    return serve(root, { compress: false, ...options });
  }

  it('answers one range with 206 and Content-Range', async () => {
    const { url } = await setup();
    const r = await get(`${url}/assets/f.txt`, { range: 'bytes=2-5' });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe(`bytes 2-5/${BODY.length}`);
    expect(r.text).toBe('2345');
    const suffix = await get(`${url}/assets/f.txt`, { range: 'bytes=-3' });
    expect(suffix.text).toBe('xyz');
  });

  it('answers a range of a file streamed from disk', async () => {
    const { url } = await setup({ cache: { maxFileSize: 10, maxSize: 100 } });
    const r = await get(`${url}/assets/big.bin`, { range: 'bytes=99990-' });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe('bytes 99990-99999/100000');
    expect(r.body.length).toBe(10);
  });

  it('answers several ranges as multipart/byteranges', async () => {
    const { url } = await setup();
    const r = await get(`${url}/assets/f.txt`, { range: 'bytes=0-1, 10-11' });
    expect(r.status).toBe(206);
    const type = r.headers.get('content-type')!;
    expect(type).toMatch(/^multipart\/byteranges; boundary=\w+$/);
    const boundary = type.split('boundary=')[1];
    expect(r.text).toContain(`--${boundary}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-range: bytes 0-1/${BODY.length}\r\n\r\n01\r\n`);
    expect(r.text).toContain(`content-range: bytes 10-11/${BODY.length}\r\n\r\nab\r\n--${boundary}--\r\n`);
  });

  it('answers bytes=0-0,1-1,… × 1,000 with the whole file once (200), not 1,000 parts', async () => {
    const { url } = await setup();
    const ranges = Array.from({ length: 1000 }, (_, i) => `${i}-${i}`).join(',');
    const r = await get(`${url}/assets/f.txt`, { range: `bytes=${ranges}` });
    expect(r.status).toBe(200);
    expect(r.body.equals(BODY)).toBe(true);
  });

  it('merges overlapping ranges, so no answer is bigger than the file', async () => {
    const { url } = await setup();
    const r = await get(`${url}/assets/f.txt`, { range: 'bytes=0-20,5-30,10-35' });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toBe(`bytes 0-35/${BODY.length}`);
    expect(r.body.equals(BODY)).toBe(true);
  });

  it('answers bytes=999999999- with 416 and Content-Range: bytes */size', async () => {
    const { port } = await setup();
    const r = await rawGet(port, '/assets/f.txt', 'Range: bytes=999999999-\r\n');
    expect(r.status).toBe(416);
    expect(r.headers['content-range']).toBe(`bytes */${BODY.length}`);
    expect(JSON.parse(r.body.toString()).code).toBe(StaticErrorCodes.RANGE_NOT_SATISFIABLE);
  });

  it('answers 416 for a file streamed from disk too (not the whole file)', async () => {
    const { port } = await setup({ cache: false });
    const r = await rawGet(port, '/assets/big.bin', 'Range: bytes=100000-\r\n');
    expect(r.status).toBe(416);
    expect(r.headers['content-range']).toBe('bytes */100000');
    expect(JSON.parse(r.body.toString()).code).toBe(StaticErrorCodes.RANGE_NOT_SATISFIABLE);
  });

  it('ignores a malformed Range and sends the whole file', async () => {
    const { port } = await setup();
    for (const header of ['bytes=abc', 'bytes=5-2', 'lines=1-2', 'bytes=1-2-3', `bytes=${'9'.repeat(40)}-`]) {
      const r = await rawGet(port, '/assets/f.txt', `Range: ${header}\r\n`);
      expect(r.status).toBe(200);
      expect(r.body.equals(BODY)).toBe(true);
    }
  });

  it('applies If-Range only when it matches the ETag or Last-Modified', async () => {
    const { url } = await setup();
    const first = await get(`${url}/assets/f.txt`);
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    expect((await get(`${url}/assets/f.txt`, { range: 'bytes=0-1', 'if-range': etag })).status).toBe(206);
    expect((await get(`${url}/assets/f.txt`, { range: 'bytes=0-1', 'if-range': lastModified })).status).toBe(206);
    const stale = await get(`${url}/assets/f.txt`, { range: 'bytes=0-1', 'if-range': '"old"' });
    expect(stale.status).toBe(200);
    expect(stale.body.equals(BODY)).toBe(true);
    expect((await get(`${url}/assets/f.txt`, { range: 'bytes=0-1', 'if-range': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
  });

  it('ignores Range with acceptRanges: false', async () => {
    const { url } = await setup({ acceptRanges: false });
    const r = await get(`${url}/assets/f.txt`, { range: 'bytes=0-1' });
    expect(r.status).toBe(200);
    expect(r.headers.get('accept-ranges')).toBeNull();
  });
});
