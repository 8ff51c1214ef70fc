import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { rawGet, serve, tree } from './helpers.ts';

// zstd is in node:zlib from Node 22.15 on; the @types/node of Node 20 does not declare it. Each
// test asserts what this Node must answer: zstd where it exists, br/gzip/identity where it does not.
const z = zlib as unknown as { zstdCompressSync?: (b: string | Buffer) => Buffer; zstdDecompressSync?: (b: Buffer) => Buffer };
const HAS_ZSTD = typeof z.zstdCompressSync === 'function';

const JS = `${'export const answer = 42; // a line that compresses well\n'.repeat(200)}`;
/** A `.zst` sibling: real zstd bytes where Node makes them; elsewhere bytes that must never be sent. */
const ZST = HAS_ZSTD ? z.zstdCompressSync!(JS) : Buffer.from('a .zst sibling this Node cannot label');

function raw(port: number, accept: string, path = '/assets/app.js') {
  return rawGet(port, path, `Accept-Encoding: ${accept}\r\n`);
}

describe(`serveStatic zstd (this Node ${HAS_ZSTD ? 'has' : 'has no'} zstd)`, () => {
  it('compresses with zstd once for Accept-Encoding: zstd, where Node has zstd; identity bytes otherwise, and no error', async () => {
    const root = await tree({ 'app.js': JS });
    const errors: Error[] = [];
    const { port, files } = await serve(root);
    files.on('error', (err) => errors.push(err));
    const identity = await raw(port, 'identity');
    if (HAS_ZSTD) {
      await until(async () => (await raw(port, 'zstd')).headers['content-encoding'] === 'zstd', 'zstd result', 15_000);
      const a = await raw(port, 'zstd');
      expect(a.headers.vary).toBe('Accept-Encoding');
      expect(a.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(z.zstdDecompressSync!(a.body).toString()).toBe(JS);
      expect(a.body.length).toBeLessThan(JS.length / 4);
      expect(a.headers.etag).toBe(`${identity.headers.etag!.slice(0, -1)}-zstd"`);
      // Made once and kept within the cache: the identity bytes plus one zstd body.
      expect((await raw(port, 'zstd')).body.equals(a.body)).toBe(true);
      expect(files.stats().cachedBytes).toBe(JS.length + a.body.length);
    } else {
      // The compressor works (br gets made), yet zstd is never offered: identity, then as before.
      await until(async () => (await raw(port, 'br')).headers['content-encoding'] === 'br', 'br result', 15_000);
      const a = await raw(port, 'zstd');
      expect(a.status).toBe(200);
      expect(a.headers['content-encoding']).toBeUndefined();
      expect(a.headers.vary).toBe('Accept-Encoding');
      expect(a.body.toString()).toBe(JS);
      expect(a.headers.etag).toBe(identity.headers.etag);
      await until(async () => (await raw(port, 'zstd, gzip')).headers['content-encoding'] === 'gzip', 'gzip result', 15_000);
    }
    expect(errors).toEqual([]);
  });

  it('serves a .zst sibling to a client that accepts zstd, where Node has zstd; the identity bytes otherwise', async () => {
    const root = await tree({ 'app.js': JS, 'app.js.zst': ZST });
    const { port } = await serve(root, { compress: false });
    const r = await raw(port, 'zstd');
    expect(r.status).toBe(200);
    expect(r.headers.vary).toBe('Accept-Encoding');
    if (HAS_ZSTD) {
      expect(r.headers['content-encoding']).toBe('zstd');
      expect(r.body.equals(ZST)).toBe(true);
      expect(z.zstdDecompressSync!(r.body).toString()).toBe(JS);
    } else {
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.body.toString()).toBe(JS);
    }
    // The sibling is still a file of its own, by its own name.
    expect((await raw(port, 'identity', '/assets/app.js.zst')).body.equals(ZST)).toBe(true);
  });

  it('chooses between br, zstd and gzip by q-values, br > zstd > gzip on a tie, and never a coding refused with q=0', async () => {
    const root = await tree({ 'app.js': JS, 'app.js.br': zlib.brotliCompressSync(JS), 'app.js.zst': ZST, 'app.js.gz': zlib.gzipSync(JS) });
    const { port } = await serve(root, { compress: false });
    const bytes: Record<string, Buffer> = {
      br: await readFile(join(root, 'app.js.br')),
      zstd: ZST,
      gzip: await readFile(join(root, 'app.js.gz')),
    };
    // Accept-Encoding → [with zstd, without zstd]; undefined is the identity bytes.
    const cases: Array<[string, string | undefined, string | undefined]> = [
      ['gzip, deflate, br, zstd', 'br', 'br'], // what Chrome sends
      ['zstd, gzip', 'zstd', 'gzip'],
      ['gzip, zstd', 'zstd', 'gzip'],
      ['zstd', 'zstd', undefined],
      ['zstd;q=1, br;q=0.9', 'zstd', 'br'],
      ['br;q=0.5, zstd;q=0.9, gzip;q=0.8', 'zstd', 'gzip'],
      ['br;q=0.9, zstd;q=0.9, gzip;q=1', 'gzip', 'gzip'],
      ['br;q=0.2, zstd;q=0.1', 'br', 'br'],
      ['zstd;q=0, *', 'br', 'br'],
      ['br;q=0, *;q=0.5', 'zstd', 'gzip'],
      ['br;q=0, zstd;q=0, gzip;q=0', undefined, undefined],
      ['ZSTD;Q=0.7, gzip;q=0.6', 'zstd', 'gzip'],
      ['deflate', undefined, undefined],
    ];
    for (const [accept, withZstd, withoutZstd] of cases) {
      const expected = HAS_ZSTD ? withZstd : withoutZstd;
      const r = await raw(port, accept);
      expect(r.headers['content-encoding'], accept).toBe(expected);
      expect(r.body.equals(expected === undefined ? Buffer.from(JS) : bytes[expected]!), accept).toBe(true);
    }
  });
});
