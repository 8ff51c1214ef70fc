import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { rawGet, serve, tree } from './helpers.ts';

const JS = `${'export const answer = 42; // a line that compresses well\n'.repeat(200)}`;

// zstd is in node:zlib from Node 22.15 on (the @types/node of Node 20 does not declare it).
const zstdCompressSync = (zlib as unknown as { zstdCompressSync?: (b: string) => Buffer }).zstdCompressSync;
const HAS_ZSTD = typeof zstdCompressSync === 'function';

/** app.js with its .br, .zst and .gz siblings, on disk (the .zst only a stand-in where Node has no zstd). */
async function siblings(): Promise<string> {
  const zst = HAS_ZSTD ? zstdCompressSync(JS) : Buffer.from('a .zst sibling this Node cannot label');
  return tree({ 'app.js': JS, 'app.js.br': zlib.brotliCompressSync(JS), 'app.js.zst': zst, 'app.js.gz': zlib.gzipSync(JS) });
}

describe('serveStatic precompressed siblings on the first request', () => {
  // Each case starts its own server and makes its first request with that coding: a CDN in front
  // keeps whatever that first answer was.
  for (const [accept, coding, file] of [
    ['br', 'br', 'app.js.br'],
    ['gzip', 'gzip', 'app.js.gz'],
    // Where Node has no zstd, the .zst sibling is not there as far as app.js is concerned.
    ['zstd', HAS_ZSTD ? 'zstd' : undefined, HAS_ZSTD ? 'app.js.zst' : 'app.js'],
    ['identity', undefined, 'app.js'],
  ] as const) {
    it(`answers the very first request with Accept-Encoding: ${accept} from ${file}, with the ETag later requests get`, async () => {
      const root = await siblings();
      const { port } = await serve(root, { precompressed: true });
      const first = await rawGet(port, '/assets/app.js', `Accept-Encoding: ${accept}\r\n`);
      expect(first.status).toBe(200);
      expect(first.headers['content-encoding']).toBe(coding);
      expect(first.headers.vary).toBe('Accept-Encoding');
      expect(first.body.equals(await readFile(join(root, file)))).toBe(true);
      const later = await rawGet(port, '/assets/app.js', `Accept-Encoding: ${accept}\r\n`);
      expect(later.headers['content-encoding']).toBe(coding);
      expect(later.body.equals(first.body)).toBe(true);
      expect(first.headers.etag).toBeDefined();
      expect(first.headers.etag).toBe(later.headers.etag);
    });
  }

  it('reads a sibling pushed out of the cache again before answering, instead of sending the identity bytes', async () => {
    const root = await tree({ 'app.js': JS, 'app.js.br': zlib.brotliCompressSync(JS), 'other.bin': Buffer.alloc(9000, 1) });
    const { port, files } = await serve(root, { compress: false, cache: { maxFileSize: 12_000, maxSize: 13_000 } });
    const br = await readFile(join(root, 'app.js.br'));
    const first = await rawGet(port, '/assets/app.js', 'Accept-Encoding: br\r\n');
    expect(first.body.equals(br)).toBe(true);
    // other.bin (9,000 bytes) does not fit beside app.js and its sibling: they go out.
    expect((await rawGet(port, '/assets/other.bin')).body.length).toBe(9000);
    expect(files.stats().cachedBytes).toBeLessThanOrEqual(13_000);
    const again = await rawGet(port, '/assets/app.js', 'Accept-Encoding: br\r\n');
    expect(again.headers['content-encoding']).toBe('br');
    expect(again.body.equals(br)).toBe(true);
    expect(again.headers.etag).toBe(first.headers.etag);
  });

  it('answers the first request for a file too big to keep in memory from its small sibling', async () => {
    const root = await siblings();
    const { port } = await serve(root, { cache: { maxFileSize: 4096 } });
    const first = await rawGet(port, '/assets/app.js', 'Accept-Encoding: gzip\r\n');
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.body.equals(await readFile(join(root, 'app.js.gz')))).toBe(true);
    const identity = await rawGet(port, '/assets/app.js', 'Accept-Encoding: identity\r\n');
    expect(identity.body.toString()).toBe(JS);
    expect(identity.headers.etag).toMatch(/^W\//);
  });

  it('follows siblings that appear, change and go away, and a file changed beside its sibling', async () => {
    const root = await tree({ 'app.js': JS });
    const { port } = await serve(root, { compress: false, settleTime: 50 });
    const br = async () => rawGet(port, '/assets/app.js', 'Accept-Encoding: br\r\n');
    expect((await br()).headers['content-encoding']).toBeUndefined();
    const one = zlib.brotliCompressSync(JS);
    await writeFile(join(root, 'app.js.br'), one);
    // Identity until the watcher reports the sibling; from then on the sibling, whole.
    await until(async () => {
      const r = await br();
      if (r.headers['content-encoding'] === undefined) return r.body.toString() === JS ? false : Promise.reject(new Error('wrong identity body'));
      expect(r.body.equals(one)).toBe(true);
      return true;
    }, 'the new sibling', 15_000);
    const other = zlib.brotliCompressSync(`${JS}// two\n`);
    await writeFile(join(root, 'app.js.br'), other);
    await until(async () => (await br()).body.equals(other), 'the changed sibling', 15_000);
    // The file itself changes: its new entry finds the sibling already there.
    await writeFile(join(root, 'app.js'), `${JS}// two\n`);
    await until(async () => (await rawGet(port, '/assets/app.js', 'Accept-Encoding: identity\r\n')).body.toString().endsWith('// two\n'), 'the changed file', 15_000);
    const after = await br();
    expect(after.headers['content-encoding']).toBe('br');
    expect(after.body.equals(other)).toBe(true);
    await rm(join(root, 'app.js.br'));
    await until(async () => (await br()).headers['content-encoding'] === undefined, 'the sibling gone', 15_000);
    expect((await br()).body.toString()).toBe(`${JS}// two\n`);
  });
});
