import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sendFile, sendFiles } from '@velox/static';
import { listen, tempDir } from '@velox/test-utils';
import compression from 'compression';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

const BIG = 'velox '.repeat(1000); // 6,000 bytes: over compression's 1 KB threshold

/** GETs (or HEADs) with Accept-Encoding: gzip and no automatic decompression (fetch would undo it). */
function get(url: string, headers: Record<string, string> = { 'accept-encoding': 'gzip' }, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    request(url, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

/** A temporary file holding BIG. */
async function bigFile(): Promise<string> {
  const file = join(await tempDir(), 'big.txt');
  await writeFile(file, BIG);
  return file;
}

describe('compression', () => {
  it('gzips every way of sending: send, json, write/end, a piped stream, res.stream, res.sendFile, res.download and static sendFile', async () => {
    const file = await bigFile();
    const app = server();
    await app.register(sendFiles); // res.sendFile and res.download
    app.use(compression());
    app.get('/send', (req, res) => res.send(BIG));
    app.get('/json', (req, res) => res.json({ text: BIG }));
    app.get('/write', (req, res) => {
      res.type('text');
      res.write(BIG.slice(0, 3000));
      res.end(BIG.slice(3000));
    });
    app.get('/pipe', (req, res) => {
      res.type('text');
      createReadStream(file).pipe(res);
    });
    app.get('/stream', (req, res) => res.type('text').stream(createReadStream(file), { size: BIG.length }));
    // Express's res.sendFile and res.download (the sendFiles plugin), and @velox/static's sendFile (the same code).
    app.get('/file', (req, res) => res.sendFile(file));
    app.get('/download', (req, res) => res.download(file, 'report.txt'));
    app.get('/static-file', (req, res) => sendFile(req, res.attachment('big.txt'), file));
    const url = await listen(app);
    for (const [path, expected] of [
      ['/send', BIG],
      ['/json', JSON.stringify({ text: BIG })],
      ['/write', BIG],
      ['/pipe', BIG],
      ['/stream', BIG],
      ['/file', BIG],
      ['/download', BIG],
      ['/static-file', BIG],
    ] as const) {
      const r = await get(`${url}${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers['content-encoding'], path).toBe('gzip');
      expect(r.headers.vary, path).toBe('Accept-Encoding');
      expect(r.headers['content-length'], path).toBeUndefined();
      expect(r.body.length, path).toBeLessThan(expected.length / 10);
      expect(gunzipSync(r.body).toString(), path).toBe(expected);
    }
    const download = await get(`${url}/download`);
    expect([download.headers['content-disposition'], download.headers['content-type']]).toEqual(['attachment; filename=report.txt', 'text/plain; charset=utf-8']);
    expect(download.headers.etag).toMatch(/^W\//);
    expect((await get(`${url}/static-file`)).headers['content-disposition']).toBe('attachment; filename=big.txt');
  });

  it('leaves res.sendFile answers alone where compressing would be wrong: a 206 range, a 304, a HEAD', async () => {
    const file = await bigFile();
    const app = server();
    await app.register(sendFiles); // res.sendFile
    app.use(compression());
    app.get('/file', (req, res) => res.sendFile(file));
    const url = await listen(app);
    const part = await get(`${url}/file`, { 'accept-encoding': 'gzip', range: 'bytes=0-4' });
    expect([part.status, part.headers['content-encoding'], part.headers['content-range'], part.body.toString()]).toEqual([
      206,
      undefined,
      `bytes 0-4/${BIG.length}`,
      'velox',
    ]);
    const etag = (await get(`${url}/file`)).headers.etag as string;
    const fresh = await get(`${url}/file`, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect([fresh.status, fresh.body.length]).toEqual([304, 0]);
    const head = await get(`${url}/file`, { 'accept-encoding': 'gzip' }, 'HEAD');
    expect([head.status, head.headers['content-length'], head.headers['content-encoding'], head.body.length]).toEqual([200, String(BIG.length), undefined, 0]);
  });

  it('passes small bodies, clients that do not accept gzip and Cache-Control: no-transform through as they are', async () => {
    const app = server();
    app.use(compression());
    app.get('/small', (req, res) => res.json({ ok: true }));
    app.get('/big', (req, res) => res.send(BIG));
    app.get('/no-transform', (req, res) => res.set('cache-control', 'no-transform').send(BIG));
    const url = await listen(app);
    const small = await get(`${url}/small`);
    expect([small.headers['content-encoding'], small.headers['content-length'], small.body.toString()]).toEqual([undefined, '11', '{"ok":true}']);
    const identity = await get(`${url}/big`, { 'accept-encoding': 'identity' });
    expect([identity.headers['content-encoding'], identity.body.toString()]).toEqual([undefined, BIG]);
    const noTransform = await get(`${url}/no-transform`);
    expect([noTransform.headers['content-encoding'], noTransform.body.length]).toEqual([undefined, BIG.length]);
  });

  it('honours threshold and filter options', async () => {
    const app = server();
    app.use(compression({ threshold: 0, filter: (req) => req.headers['x-no-compression'] === undefined }));
    app.get('/', (req, res) => res.send('tiny'));
    const url = await listen(app);
    const tiny = await get(url);
    expect([tiny.headers['content-encoding'], gunzipSync(tiny.body).toString()]).toEqual(['gzip', 'tiny']);
    const filtered = await get(url, { 'accept-encoding': 'gzip', 'x-no-compression': '1' });
    expect([filtered.headers['content-encoding'], filtered.body.toString()]).toEqual([undefined, 'tiny']);
  });

  it('answers HEAD without a body', async () => {
    const app = server();
    app.use(compression());
    app.get('/', (req, res) => res.send(BIG));
    const url = await listen(app);
    const head = await get(url, { 'accept-encoding': 'gzip' }, 'HEAD');
    expect([head.status, head.body.length]).toEqual([200, 0]);
  });
});
