import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { get, rawGet, serve, tree } from './helpers.ts';

/** fetch decodes bodies itself: read the bytes raw. */
function raw(port: number, path: string, accept: string, extra = '') {
  return rawGet(port, path, `Accept-Encoding: ${accept}\r\n${extra}`);
}

const JS = `${'export const answer = 42; // a line that compresses well\n'.repeat(200)}`;

describe('serveStatic compression', () => {
  it('serves a .br sibling to a client that accepts br, and .gz to one that accepts only gzip', async () => {
    const root = await tree({ 'app.js': JS, 'app.js.br': brotliCompressSync(JS), 'app.js.gz': gzipSync(JS) });
    const { url, port } = await serve(root, { compress: false });
    await until(async () => (await get(`${url}/assets/app.js`, { 'accept-encoding': 'br' })).headers.get('content-encoding') === 'br', 'br sibling', 10_000);
    const br = await raw(port, '/assets/app.js', 'gzip, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(brotliDecompressSync(br.body).toString()).toBe(JS);
    await until(async () => (await get(`${url}/assets/app.js`, { 'accept-encoding': 'gzip' })).headers.get('content-encoding') === 'gzip', 'gz sibling', 10_000);
    const gz = await raw(port, '/assets/app.js', 'gzip');
    expect(gunzipSync(gz.body).toString()).toBe(JS);
    const plain = await get(`${url}/assets/app.js`);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.text).toBe(JS);
    expect(plain.headers.get('vary')).toBe('Accept-Encoding');
  });

  it('chooses by q-values, and never a coding refused with q=0', async () => {
    const root = await tree({ 'app.js': JS, 'app.js.br': brotliCompressSync(JS), 'app.js.gz': gzipSync(JS) });
    const { url } = await serve(root, { compress: false });
    // Warm both siblings into memory.
    await until(async () => (await get(`${url}/assets/app.js`, { 'accept-encoding': 'br' })).headers.get('content-encoding') === 'br', 'br', 10_000);
    await until(async () => (await get(`${url}/assets/app.js`, { 'accept-encoding': 'gzip' })).headers.get('content-encoding') === 'gzip', 'gzip', 10_000);
    expect((await get(`${url}/assets/app.js`, { 'accept-encoding': 'br;q=0.5, gzip;q=0.9' })).headers.get('content-encoding')).toBe('gzip');
    expect((await get(`${url}/assets/app.js`, { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers.get('content-encoding')).toBeNull();
    expect((await get(`${url}/assets/app.js`, { 'accept-encoding': '*' })).headers.get('content-encoding')).toBe('br');
    expect((await get(`${url}/assets/app.js`, { 'accept-encoding': 'deflate' })).headers.get('content-encoding')).toBeNull();
  });

  it('compresses a compressible file once, keeps the result, and gives it its own ETag', async () => {
    const root = await tree({ 'app.js': JS });
    const { url, port, files } = await serve(root);
    const identity = await get(`${url}/assets/app.js`);
    await until(async () => (await get(`${url}/assets/app.js`, { 'accept-encoding': 'br' })).headers.get('content-encoding') === 'br', 'br result', 15_000);
    const bytesAfterFirst = files.stats().cachedBytes;
    const a = await raw(port, '/assets/app.js', 'br');
    const b = await raw(port, '/assets/app.js', 'br');
    expect(brotliDecompressSync(a.body).toString()).toBe(JS);
    expect(a.body.equals(b.body)).toBe(true);
    expect(a.body.length).toBeLessThan(JS.length / 4);
    expect(a.headers.etag).not.toBe(identity.headers.get('etag'));
    // Cached once: the memory held did not grow with more requests; identity plus one br body.
    expect(files.stats().cachedBytes).toBe(bytesAfterFirst);
    expect(files.stats().cachedBytes).toBe(JS.length + a.body.length);
    // 304 for the compressed form by its own ETag.
    expect((await get(`${url}/assets/app.js`, { 'accept-encoding': 'br', 'if-none-match': a.headers.etag! })).status).toBe(304);
  });

  it('does not compress small files, binary types, or with compress: false', async () => {
    const root = await tree({ 'small.js': 'let a = 1;', 'img.png': Buffer.alloc(5000, 0), 'app.js': JS });
    const { url } = await serve(root);
    for (let i = 0; i < 3; i++) {
      expect((await get(`${url}/assets/small.js`, { 'accept-encoding': 'br' })).headers.get('content-encoding')).toBeNull();
      expect((await get(`${url}/assets/img.png`, { 'accept-encoding': 'br' })).headers.get('content-encoding')).toBeNull();
    }
    const off = await serve(root, { compress: false, precompressed: false });
    for (let i = 0; i < 3; i++) expect((await get(`${off.url}/assets/app.js`, { 'accept-encoding': 'br' })).headers.get('content-encoding')).toBeNull();
    expect((await get(`${off.url}/assets/app.js`)).headers.get('vary')).toBeNull();
  });

  it('applies a Range to the identity bytes only', async () => {
    const root = await tree({ 'app.js': JS, 'app.js.br': brotliCompressSync(JS) });
    const { url } = await serve(root);
    const r = await get(`${url}/assets/app.js`, { 'accept-encoding': 'br', range: 'bytes=0-5' });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-encoding')).toBeNull();
    expect(r.text).toBe(JS.slice(0, 6));
  });
  it('compresses again after the compressed form was pushed out of the cache, and stays within maxSize', async () => {
    const other = 'z'.repeat(9000);
    const root = await tree({ 'app.js': JS, 'other.bin': other });
    const { port, files } = await serve(root, { cache: { maxFileSize: 12_000, maxSize: 13_000 } });
    await until(async () => (await raw(port, '/assets/app.js', 'br')).headers['content-encoding'] === 'br', 'br result', 15_000);
    // other.bin (9,000 bytes) does not fit beside app.js and its br form: they go out.
    expect((await rawGet(port, '/assets/other.bin')).body.length).toBe(9000);
    expect(files.stats().cachedBytes).toBeLessThanOrEqual(13_000);
    await until(async () => {
      const r = await raw(port, '/assets/app.js', 'br');
      if (r.headers['content-encoding'] !== 'br') return r.body.toString() === JS ? false : Promise.reject(new Error('wrong identity body'));
      expect(brotliDecompressSync(r.body).toString()).toBe(JS);
      return true;
    }, 'br again', 15_000);
    expect(files.stats().cachedBytes).toBeLessThanOrEqual(13_000);
  });
});
