import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { listen } from '@velox/test-utils';
import { validate } from '@velox/validate';
import bodyParser from 'body-parser';
import express from 'express';
import express4 from 'express4';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { server } from './helpers.ts';

const post = (url: string, type: string | undefined, body: RequestInit['body'], headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: type ? { 'content-type': type, ...headers } : headers, body });

describe('body-parser 2 (json, urlencoded, text, raw)', () => {
  it('json: parses application/json into req.body, and leaves other types alone', async () => {
    const app = server();
    app.use(bodyParser.json());
    app.post('/', (req, res) => res.json({ body: req.body ?? 'undefined' }));
    const url = await listen(app);
    expect(await (await post(url, 'application/json', '{"a":[1,"b"]}')).json()).toEqual({ body: { a: [1, 'b'] } });
    expect(await (await post(url, 'text/plain', '{"a":1}')).json()).toEqual({ body: 'undefined' });
  });

  it('json: answers 400 for malformed JSON and, with strict (default), for a bare primitive', async () => {
    const app = server();
    app.use(bodyParser.json());
    app.post('/', (req, res) => res.json(req.body));
    const url = await listen(app);
    const bad = await post(url, 'application/json', '{"a":');
    expect(bad.status).toBe(400);
    const primitive = await post(url, 'application/json', '"just a string"');
    expect(primitive.status).toBe(400);
  });

  it('json: answers 413 over the limit, and 415 for an unsupported charset', async () => {
    const app = server();
    app.use(bodyParser.json({ limit: 20 }));
    app.post('/', (req, res) => res.json(req.body));
    const url = await listen(app);
    const big = await post(url, 'application/json', JSON.stringify({ text: 'x'.repeat(100) }));
    expect(big.status).toBe(413);
    const charset = await post(url, 'application/json; charset=koi8-r', '{}');
    expect(charset.status).toBe(415);
  });

  it('json: inflates a gzip body (Content-Encoding) and reads a chunked one', async () => {
    const app = server();
    app.use(bodyParser.json());
    app.post('/', (req, res) => res.json(req.body));
    const url = await listen(app);
    const gzipped = await post(url, 'application/json', gzipSync('{"zipped":true}'), { 'content-encoding': 'gzip' });
    expect(await gzipped.json()).toEqual({ zipped: true });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"chunked"'));
        controller.enqueue(new TextEncoder().encode(':true}'));
        controller.close();
      },
    });
    const chunked = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
    expect(await chunked.json()).toEqual({ chunked: true });
  });

  it('urlencoded: parses flat forms by default, nested ones with extended, and refuses too many parameters', async () => {
    const app = server();
    app.use('/flat', bodyParser.urlencoded());
    app.use('/nested', bodyParser.urlencoded({ extended: true }));
    app.use('/few', bodyParser.urlencoded({ parameterLimit: 2 }));
    for (const path of ['/flat', '/nested', '/few']) app.post(path, (req, res) => res.json(req.body));
    const url = await listen(app);
    const form = 'user[name]=ada&tags=a&tags=b&sp=a+b';
    const type = 'application/x-www-form-urlencoded';
    expect(await (await post(`${url}/flat`, type, form)).json()).toEqual({ 'user[name]': 'ada', tags: ['a', 'b'], sp: 'a b' });
    expect(await (await post(`${url}/nested`, type, form)).json()).toEqual({ user: { name: 'ada' }, tags: ['a', 'b'], sp: 'a b' });
    expect((await post(`${url}/few`, type, form)).status).toBe(413);
  });

  it('text and raw: give a string and a Buffer', async () => {
    const app = server();
    app.use(bodyParser.text());
    app.use(bodyParser.raw({ type: 'application/octet-stream' }));
    app.post('/', (req, res) =>
      res.json({ kind: Buffer.isBuffer(req.body) ? 'buffer' : typeof req.body, value: Buffer.isBuffer(req.body) ? [...req.body] : req.body }),
    );
    const url = await listen(app);
    expect(await (await post(url, 'text/plain', 'héllo')).json()).toEqual({ kind: 'string', value: 'héllo' });
    expect(await (await post(url, 'application/octet-stream', new Uint8Array([0, 255, 7]))).json()).toEqual({ kind: 'buffer', value: [0, 255, 7] });
  });

  it('copes with a client that leaves mid-body: the request closes, nothing crashes, the next one is served', async () => {
    const app = server();
    const seen: string[] = [];
    app.use((req, res, next) => {
      res.on('close', () => seen.push(`close aborted=${res.aborted}`));
      next();
    });
    app.use(bodyParser.json());
    app.post('/', (req, res) => res.json(req.body));
    const url = await listen(app);
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.on('connect', resolve));
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"partial":');
    socket.destroy();
    await expect.poll(() => seen).toEqual(['close aborted=true']);
    expect(await (await post(url, 'application/json', '{"next":1}')).json()).toEqual({ next: 1 });
  });

  it('hands req.body to @velox/validate, which checks it instead of reading the body again', async () => {
    const app = server();
    app.use(bodyParser.json());
    app.post('/', validate({ body: z.object({ qty: z.number().int().positive() }) }), (req, res) => res.json({ qty: req.body.qty }));
    const url = await listen(app);
    expect(await (await post(url, 'application/json', '{"qty":3}')).json()).toEqual({ qty: 3 });
    expect((await post(url, 'application/json', '{"qty":-1}')).status).toBe(400);
  });
});

describe('express.json() and express.urlencoded()', () => {
  for (const [name, lib] of [
    ['express 5', express],
    ['express 4', express4],
  ] as const) {
    it(`${name}: parse JSON and forms, and answer 400 and 413 for bad bodies`, async () => {
      const app = server();
      app.use(lib.json({ limit: '1kb' }));
      app.use(lib.urlencoded({ extended: false }));
      app.post('/', (req, res) => res.json(req.body));
      const url = await listen(app);
      expect(await (await post(url, 'application/json', '{"v":1}')).json()).toEqual({ v: 1 });
      expect(await (await post(url, 'application/x-www-form-urlencoded', 'a=1&b=2')).json()).toEqual({ a: '1', b: '2' });
      expect((await post(url, 'application/json', '{"v":')).status).toBe(400);
      expect((await post(url, 'application/json', JSON.stringify({ v: 'x'.repeat(2000) }))).status).toBe(413);
    });
  }
});
