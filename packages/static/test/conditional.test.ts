import { describe, expect, it } from 'vitest';
import { StaticErrorCodes } from '../src/index.ts';
import { get, rawGet, serve, tree } from './helpers.ts';

describe('serveStatic conditional requests', () => {
  async function setup(options = {}) {
    const root = await tree({ 'a.txt': 'hello', 'big.bin': Buffer.alloc(5000, 2) });
    const s = await serve(root, options);
    const first = await get(`${s.url}/assets/a.txt`);
    return { ...s, etag: first.headers.get('etag')!, lastModified: first.headers.get('last-modified')! };
  }

  it('answers 304 to a matching If-None-Match, with ETag and Cache-Control and no body', async () => {
    const { port, etag } = await setup();
    const r = await rawGet(port, '/assets/a.txt', `If-None-Match: ${etag}\r\n`);
    expect(r.status).toBe(304);
    expect(r.headers.etag).toBe(etag);
    expect(r.headers['cache-control']).toBe('public, max-age=0');
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(r.body.length).toBe(0);
  });

  it('matches If-None-Match lists, weak tags and *', async () => {
    const { url, etag } = await setup();
    expect((await get(`${url}/assets/a.txt`, { 'if-none-match': `"x", W/${etag}` })).status).toBe(304);
    expect((await get(`${url}/assets/a.txt`, { 'if-none-match': '*' })).status).toBe(304);
    expect((await get(`${url}/assets/a.txt`, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('answers 304 to If-Modified-Since at or after Last-Modified, 200 before it', async () => {
    const { url, lastModified } = await setup();
    expect((await get(`${url}/assets/a.txt`, { 'if-modified-since': lastModified })).status).toBe(304);
    expect((await get(`${url}/assets/a.txt`, { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
    expect((await get(`${url}/assets/a.txt`, { 'if-modified-since': 'garbage' })).status).toBe(200);
  });

  it('lets If-None-Match win over If-Modified-Since', async () => {
    const { url, lastModified } = await setup();
    expect((await get(`${url}/assets/a.txt`, { 'if-none-match': '"other"', 'if-modified-since': lastModified })).status).toBe(200);
  });

  it('answers 412 VELOX_ERR_STATIC_PRECONDITION_FAILED when If-Match does not match', async () => {
    const { url, etag } = await setup();
    const r = await get(`${url}/assets/a.txt`, { 'if-match': '"other"' });
    expect(r.status).toBe(412);
    expect(JSON.parse(r.text).code).toBe(StaticErrorCodes.PRECONDITION_FAILED);
    expect((await get(`${url}/assets/a.txt`, { 'if-match': etag })).status).toBe(200);
    expect((await get(`${url}/assets/a.txt`, { 'if-match': '*' })).status).toBe(200);
  });

  it('answers 412 when If-Unmodified-Since is before Last-Modified', async () => {
    const { url, lastModified } = await setup();
    expect((await get(`${url}/assets/a.txt`, { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(412);
    expect((await get(`${url}/assets/a.txt`, { 'if-unmodified-since': lastModified })).status).toBe(200);
  });

  it('revalidates a file streamed from disk by its weak ETag', async () => {
    const { url } = await setup({ cache: { maxFileSize: 100, maxSize: 1000 } });
    const first = await get(`${url}/assets/big.bin`);
    const etag = first.headers.get('etag')!;
    expect(etag.startsWith('W/')).toBe(true);
    expect((await get(`${url}/assets/big.bin`, { 'if-none-match': etag })).status).toBe(304);
    expect((await get(`${url}/assets/big.bin`, { 'if-match': etag })).status).toBe(412);
  });
});
