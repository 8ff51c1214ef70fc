import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { type BodyTransform, PreparedHead, VeloxError } from '@velox/core';
import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { compress } from '../src/index.ts';
import { app, fetchRaw, getWith, HAS_ZSTD, jsonOf, server, text } from './helpers.ts';

const BIG = text(4000);

describe('compress() on every way a response is answered', () => {
  const codings = [
    { coding: 'gzip', skip: false },
    { coding: 'br', skip: false },
    { coding: 'deflate', skip: false },
    // zstd exists from Node 22.15: skipped on Node 20, run by CI on Node 22.
    { coding: 'zstd', skip: !HAS_ZSTD },
  ];
  for (const { coding, skip } of codings) {
    it.skipIf(skip)(`compresses res.json() with ${coding}, with the exact Content-Length`, async () => {
      const value = jsonOf(3000);
      const url = await app({}, (a) => a.get('/json', (req, res) => res.json(value)));
      const r = await getWith(`${url}/json`, coding);
      expect(r.status).toBe(200);
      expect(r.coding).toBe(coding);
      expect(r.headers['content-length']).toBe(String(r.raw.length));
      expect(r.headers['transfer-encoding']).toBeUndefined();
      expect(r.raw.length).toBeLessThan(JSON.stringify(value).length / 2);
      expect(JSON.parse(r.text)).toEqual(value);
      expect(r.headers.vary).toBe('Accept-Encoding');
    });

    it.skipIf(skip)(`compresses a streamed body (write, write, end) with ${coding}, chunked`, async () => {
      const url = await app({}, (a) =>
        a.get('/w', (req, res) => {
          res.type('text');
          res.write(BIG);
          res.write(BIG);
          res.end('the end');
        }),
      );
      const r = await getWith(`${url}/w`, coding);
      expect(r.coding).toBe(coding);
      expect(r.headers['content-length']).toBeUndefined();
      expect(r.headers['transfer-encoding']).toBe('chunked');
      expect(r.text).toBe(`${BIG}${BIG}the end`);
    });
  }

  for (const { coding, skip } of codings) {
    it.skipIf(skip)(`answers 200 different whole bodies in a row with ${coding}, each decoding to itself (one context reused, reset between bodies)`, async () => {
      const url = await app({ syncThreshold: 200_000 }, (a) =>
        a.get('/n/:n', (req, res) => res.type('text').send(text(1024 + Number(req.params.n) * 97, `b${req.params.n}`))),
      );
      for (let n = 0; n < 200; n += 1) {
        const r = await getWith(`${url}/n/${n}`, coding);
        expect(r.coding).toBe(coding);
        expect(r.headers['content-length']).toBe(String(r.raw.length));
        expect(r.text).toBe(text(1024 + n * 97, `b${n}`));
      }
    });

    it.skipIf(skip)(`compresses a whole body whose output is larger than one buffer (64 KiB) with ${coding}, with its exact length`, async () => {
      // Base64 of random bytes: compressible type, about 3/4 of its size after compression, so well over 64 KiB out.
      const big = randomBytes(150_000).toString('base64');
      const url = await app({ syncThreshold: 400_000, encodings: [coding as 'gzip'] }, (a) => {
        a.get('/big', (req, res) => res.type('text').send(big));
        a.get('/small', (req, res) => res.type('text').send(BIG));
      });
      for (let i = 0; i < 2; i += 1) {
        const r = await getWith(`${url}/big`, coding);
        expect(r.coding).toBe(coding);
        expect(r.headers['content-length']).toBe(String(r.raw.length));
        expect(r.raw.length).toBeGreaterThan(64 * 1024);
        expect(r.text).toBe(big);
      }
      // The context is still good after the plain road took the big body.
      const small = await getWith(`${url}/small`, coding);
      expect(small.headers['content-length']).toBe(String(small.raw.length));
      expect(small.text).toBe(BIG);
    });
  }

  it('compresses res.send() of a string and res.html()', async () => {
    const url = await app({}, (a) => {
      a.get('/send', (req, res) => res.send(BIG));
      a.get('/html', (req, res) => res.html(`<p>${BIG}</p>`));
    });
    const sent = await getWith(`${url}/send`, 'gzip');
    expect(sent.coding).toBe('gzip');
    expect(sent.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(sent.headers['content-length']).toBe(String(sent.raw.length));
    expect(sent.text).toBe(BIG);
    const html = await getWith(`${url}/html`, 'gzip');
    expect(html.coding).toBe('gzip');
    expect(html.text).toBe(`<p>${BIG}</p>`);
  });

  it('compresses res.end(chunk) with a type set, as a whole body, correcting a Content-Length set before', async () => {
    const url = await app({}, (a) => {
      a.get('/end', (req, res) => res.type('text/css').end(Buffer.from(BIG)));
      a.get('/declared', (req, res) => res.type('text/css').set('content-length', String(BIG.length)).end(BIG));
    });
    for (const path of ['/end', '/declared']) {
      const r = await getWith(`${url}${path}`, 'gzip');
      expect(r.coding).toBe('gzip');
      expect(r.headers['content-length']).toBe(String(r.raw.length));
      expect(r.raw.length).toBeLessThan(BIG.length);
      expect(r.text).toBe(BIG);
    }
  });

  it("compresses the answer of an async handler (Accept-Encoding read after uWS's callback returned)", async () => {
    const url = await app({}, (a) =>
      a.get('/later', async (req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        res.json(jsonOf(3000));
      }),
    );
    const r = await getWith(`${url}/later`, 'deflate, br;q=0.5');
    expect(r.coding).toBe('deflate');
    expect(JSON.parse(r.text)).toEqual(jsonOf(3000));
  });

  it('compresses res.stream() without a size, chunked', async () => {
    const url = await app({}, (a) => a.get('/s', (req, res) => res.type('text').stream(Readable.from([BIG, BIG, BIG]))));
    const r = await getWith(`${url}/s`, 'gzip');
    expect(r.coding).toBe('gzip');
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.text).toBe(BIG + BIG + BIG);
  });

  it('compresses res.stream() with a size: the length goes, the body is chunked', async () => {
    const body = Buffer.from(BIG + BIG);
    const url = await app({}, (a) => a.get('/s', (req, res) => res.type('text').stream(Readable.from([body.subarray(0, 5000), body.subarray(5000)]), { size: body.length })));
    const r = await getWith(`${url}/s`, 'gzip');
    expect(r.coding).toBe('gzip');
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.text).toBe(body.toString());
  });

  it('leaves res.stream() with a size under the threshold alone, with its Content-Length', async () => {
    const url = await app({}, (a) => a.get('/s', (req, res) => res.type('text').stream(Readable.from([Buffer.from('small body')]), { size: 10 })));
    const r = await getWith(`${url}/s`, 'gzip');
    expect(r.coding).toBeUndefined();
    expect(r.headers['content-length']).toBe('10');
    expect(r.text).toBe('small body');
    expect(r.headers.vary).toBe('Accept-Encoding');
  });

  it('compresses res.sendPrepared()', async () => {
    const head = new PreparedHead(200, { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': 'max-age=60' });
    const url = await app({}, (a) => a.get('/app.js', (req, res) => res.sendPrepared(head, BIG)));
    const r = await getWith(`${url}/app.js`, 'br');
    expect(r.coding).toBe('br');
    expect(r.headers['cache-control']).toBe('max-age=60');
    expect(r.headers['content-length']).toBe(String(r.raw.length));
    expect(r.text).toBe(BIG);
  });

  it('compresses a body over syncThreshold through a zlib stream, chunked, and one under it at once with its length', async () => {
    const url = await app({ syncThreshold: 2000 }, (a) => {
      a.get('/small', (req, res) => res.send(text(1500)));
      a.get('/large', (req, res) => res.send(text(2500)));
    });
    const small = await getWith(`${url}/small`, 'gzip');
    expect(small.coding).toBe('gzip');
    expect(small.headers['content-length']).toBe(String(small.raw.length));
    expect(small.text).toBe(text(1500));
    const large = await getWith(`${url}/large`, 'gzip');
    expect(large.coding).toBe('gzip');
    expect(large.headers['content-length']).toBeUndefined();
    expect(large.headers['transfer-encoding']).toBe('chunked');
    expect(large.text).toBe(text(2500));
  });

  it('streams every compressed body with syncThreshold: 0', async () => {
    const url = await app({ syncThreshold: 0 }, (a) => a.get('/', (req, res) => res.send(text(1500))));
    const r = await getWith(url, 'gzip');
    expect(r.coding).toBe('gzip');
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.text).toBe(text(1500));
  });

  it('compresses the not-found answer when its body is over the threshold, and adds Vary to a small one', async () => {
    const url = await app({}, () => {});
    const long = `/${'a'.repeat(1200)}`;
    const big = await getWith(`${url}${long}`, 'gzip');
    expect(big.status).toBe(404);
    expect(big.coding).toBe('gzip');
    expect(JSON.parse(big.text).message).toBe(`Cannot GET ${long}`);
    const small = await getWith(`${url}/nope`, 'gzip');
    expect(small.status).toBe(404);
    expect(small.coding).toBeUndefined();
    expect(small.headers.vary).toBe('Accept-Encoding');
  });

  it('compresses an error answer over the threshold, and sends a small one as it is', async () => {
    const url = await app({}, (a) => {
      a.get('/long', () => {
        throw new VeloxError('APP_INVALID', `bad input: ${text(2000)}`, { status: 400 });
      });
      a.get('/boom', () => {
        throw new Error('boom');
      });
    });
    const long = await getWith(`${url}/long`, 'gzip');
    expect(long.status).toBe(400);
    expect(long.coding).toBe('gzip');
    expect(JSON.parse(long.text).code).toBe('APP_INVALID');
    const boom = await getWith(`${url}/boom`, 'gzip');
    expect(boom.status).toBe(500);
    expect(boom.coding).toBeUndefined();
    expect(boom.headers.vary).toBe('Accept-Encoding');
    expect(JSON.parse(boom.text).error).toBe('Internal Server Error');
  });

  it('answers 500 through the error path when the filter throws, and keeps serving', async () => {
    const url = await app({ filter: (req) => (req.path === '/throws' ? (null as any).boom : true) }, (a) => {
      a.get('/throws', (req, res) => res.send(BIG));
      a.get('/fine', (req, res) => res.send(BIG));
    });
    const r = await getWith(`${url}/throws`, 'gzip');
    expect(r.status).toBe(500);
    expect(r.coding).toBeUndefined();
    const fine = await getWith(`${url}/fine`, 'gzip');
    expect(fine.coding).toBe('gzip');
    expect(fine.text).toBe(BIG);
  });
});

describe('compress() leaves these bodies as they are', () => {
  it('sends HEAD without a body, with Vary and without Content-Encoding', async () => {
    const url = await app({}, (a) => a.get('/json', (req, res) => res.json(jsonOf(3000))));
    const get = await getWith(`${url}/json`, 'identity');
    const r = await fetchRaw(`${url}/json`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.raw.length).toBe(0);
    expect(r.coding).toBeUndefined();
    expect(r.headers.vary).toBe('Accept-Encoding');
    // What core sends for HEAD: the length of the body a GET gets uncompressed.
    expect(r.headers['content-length']).toBe(get.headers['content-length']);
  });

  it('sends a 304 without a body or Content-Encoding, with Vary', async () => {
    const url = await app({}, (a) =>
      a.get('/page', (req, res) => {
        res.set('etag', '"v1"').type('html');
        if (req.fresh) return res.sendStatus(304);
        res.send(BIG);
      }),
    );
    const r = await getWith(`${url}/page`, 'gzip', { 'if-none-match': '"v1"' });
    expect(r.status).toBe(304);
    expect(r.raw.length).toBe(0);
    expect(r.coding).toBeUndefined();
    expect(r.headers.vary).toBe('Accept-Encoding');
  });

  it('sends a 204 without Content-Encoding or Vary', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.type('json').sendStatus(204)));
    const r = await getWith(url, 'gzip');
    expect(r.status).toBe(204);
    expect(r.coding).toBeUndefined();
    expect(r.headers.vary).toBeUndefined();
  });

  it('leaves a 206 and an answer with Content-Range alone', async () => {
    const url = await app({}, (a) => {
      a.get('/partial', (req, res) => res.status(206).set('content-range', `bytes 0-3999/9000`).type('text').send(BIG));
      a.get('/range', (req, res) => res.set('content-range', 'bytes */9000').type('text').send(BIG));
    });
    for (const path of ['/partial', '/range']) {
      const r = await getWith(`${url}${path}`, 'gzip');
      expect(r.coding).toBeUndefined();
      expect(r.headers['content-length']).toBe('4000');
      expect(r.text).toBe(BIG);
    }
  });

  it('leaves a body that already has a Content-Encoding alone (a precompressed file), without adding Vary', async () => {
    const gz = zlib.gzipSync(BIG);
    const url = await app({}, (a) => a.get('/app.js.gz', (req, res) => res.set('content-encoding', 'gzip').type('js').send(gz)));
    const r = await getWith(`${url}/app.js.gz`, 'br, gzip');
    expect(r.coding).toBe('gzip');
    expect(r.raw.equals(gz)).toBe(true);
    expect(r.text).toBe(BIG);
    expect(r.headers.vary).toBeUndefined();
  });

  it('leaves a body with Content-Encoding: identity alone (the app opted out for this response)', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.set('content-encoding', 'identity').send(BIG)));
    const r = await getWith(url, 'gzip');
    expect(r.headers['content-encoding']).toBe('identity');
    expect(r.raw.toString()).toBe(BIG);
  });

  it('leaves Cache-Control: no-transform alone', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.set('cache-control', 'public, no-transform').send(BIG)));
    const r = await getWith(url, 'gzip');
    expect(r.coding).toBeUndefined();
    expect(r.raw.toString()).toBe(BIG);
    expect(r.headers.vary).toBeUndefined();
  });

  it('leaves image/png, video and zip alone, without Vary', async () => {
    const bytes = Buffer.alloc(5000, 7);
    const url = await app({}, (a) => {
      a.get('/png', (req, res) => res.type('image/png').send(bytes));
      a.get('/mp4', (req, res) => res.type('video/mp4').send(bytes));
      a.get('/zip', (req, res) => res.type('application/zip').send(bytes));
    });
    for (const path of ['/png', '/mp4', '/zip']) {
      const r = await getWith(`${url}${path}`, 'gzip, br');
      expect(r.coding).toBeUndefined();
      expect(r.raw.equals(bytes)).toBe(true);
      expect(r.headers.vary).toBeUndefined();
    }
  });

  it('compresses image/svg+xml and application/javascript, types mime-db marks compressible', async () => {
    const url = await app({}, (a) => {
      a.get('/svg', (req, res) => res.type('image/svg+xml').send(`<svg>${BIG}</svg>`));
      a.get('/js', (req, res) => res.type('application/javascript').send(BIG));
    });
    expect((await getWith(`${url}/svg`, 'gzip')).coding).toBe('gzip');
    expect((await getWith(`${url}/js`, 'gzip')).coding).toBe('gzip');
  });

  it('leaves a body without Content-Type alone', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.end(Buffer.from(BIG))));
    const r = await getWith(url, 'gzip');
    expect(r.headers['content-type']).toBeUndefined();
    expect(r.coding).toBeUndefined();
    expect(r.raw.toString()).toBe(BIG);
  });

  it('sends a request without Accept-Encoding, or with identity only, uncompressed but with Vary', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(BIG)));
    for (const accept of [undefined, 'identity']) {
      const r = await getWith(url, accept);
      expect(r.coding).toBeUndefined();
      expect(r.raw.toString()).toBe(BIG);
      expect(r.headers.vary).toBe('Accept-Encoding');
    }
  });

  it('sends incompressible bytes of a compressible type as they are when compression would not shrink them', async () => {
    const noise = randomBytes(3000);
    const url = await app({}, (a) => a.get('/', (req, res) => res.send(noise)));
    const r = await getWith(url, 'gzip');
    expect(r.headers['content-type']).toBe('application/octet-stream');
    expect(r.coding).toBeUndefined();
    expect(r.raw.equals(noise)).toBe(true);
    expect(r.headers.vary).toBe('Accept-Encoding');
  });
});

describe('threshold', () => {
  it('compresses from the threshold up: 1023 bytes go as they are, 1024 compressed (default 1024)', async () => {
    const url = await app({}, (a) => {
      a.get('/1023', (req, res) => res.send(text(1023)));
      a.get('/1024', (req, res) => res.send(text(1024)));
    });
    const under = await getWith(`${url}/1023`, 'gzip');
    expect(under.coding).toBeUndefined();
    expect(under.headers['content-length']).toBe('1023');
    expect(under.headers.vary).toBe('Accept-Encoding');
    const at = await getWith(`${url}/1024`, 'gzip');
    expect(at.coding).toBe('gzip');
    expect(at.text).toBe(text(1024));
  });

  it('counts a string in UTF-8 bytes: 400 characters of 3 bytes each pass a threshold of 1024', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.send('€'.repeat(400))));
    const r = await getWith(url, 'gzip');
    expect(r.coding).toBe('gzip');
    expect(r.text).toBe('€'.repeat(400));
  });

  it('takes another threshold: 0 compresses any body that shrinks, 5000 leaves 4000 bytes alone', async () => {
    const url = await app({ threshold: 0 }, (a) => {
      a.get('/', (req, res) => res.send(text(100)));
      a.get('/tiny', (req, res) => res.json({ ok: true }));
    });
    const r = await getWith(url, 'gzip');
    expect(r.coding).toBe('gzip');
    expect(r.text).toBe(text(100));
    // 11 bytes of JSON would come out longer gzipped: they go as they are.
    const tiny = await getWith(`${url}/tiny`, 'gzip');
    expect(tiny.coding).toBeUndefined();
    expect(JSON.parse(tiny.text)).toEqual({ ok: true });
    const url2 = await app({ threshold: 5000 }, (a) => a.get('/', (req, res) => res.send(BIG)));
    expect((await getWith(url2, 'gzip')).coding).toBeUndefined();
  });
});

describe('headers of a compressed answer', () => {
  it('makes a strong ETag weak, and leaves a weak one and an uncompressed answer alone', async () => {
    const url = await app({}, (a) => {
      a.get('/strong', (req, res) => res.set('etag', '"abc"').send(BIG));
      a.get('/weak', (req, res) => res.set('etag', 'W/"abc"').send(BIG));
      a.get('/plain', (req, res) => res.set('etag', '"abc"').send(BIG));
    });
    expect((await getWith(`${url}/strong`, 'gzip')).headers.etag).toBe('W/"abc"');
    expect((await getWith(`${url}/weak`, 'gzip')).headers.etag).toBe('W/"abc"');
    expect((await getWith(`${url}/plain`, undefined)).headers.etag).toBe('"abc"');
  });

  it('adds Accept-Encoding to a Vary another middleware set, once', async () => {
    const a = server();
    a.use((req, res, next) => {
      if (req.path === '/origin') res.vary('Origin');
      if (req.path === '/already') res.set('vary', 'accept-encoding');
      if (req.path === '/star') res.set('vary', '*');
      next();
    });
    a.use(compress());
    for (const path of ['/origin', '/already', '/star']) a.get(path, (req, res) => res.send(BIG));
    const url = await listen(a);
    expect((await getWith(`${url}/origin`, 'gzip')).headers.vary).toBe('Origin, Accept-Encoding');
    expect((await getWith(`${url}/already`, 'gzip')).headers.vary).toBe('accept-encoding');
    expect((await getWith(`${url}/star`, 'gzip')).headers.vary).toBe('*');
  });

  it('adds Vary set after compress() ran (by the handler) only once too', async () => {
    const url = await app({}, (a) => a.get('/', (req, res) => res.vary('Accept-Encoding').vary('Origin').send(BIG)));
    const r = await getWith(url, 'gzip');
    expect(r.headers.vary).toBe('Accept-Encoding, Origin');
    expect(r.coding).toBe('gzip');
  });
});

describe('customTypes, filter and ownership', () => {
  it('compresses a type mime-db does not know when customTypes matches it (RegExp or function)', async () => {
    const url = await app({ customTypes: /x-protobuf$/g }, (a) => a.get('/', (req, res) => res.type('application/x-protobuf').send(Buffer.from(BIG))));
    for (let i = 0; i < 3; i++) expect((await getWith(url, 'gzip')).coding).toBe('gzip'); // a /g RegExp keeps no position between requests
    const url2 = await app({ customTypes: (type) => type.startsWith('application/x-custom') }, (a) => a.get('/', (req, res) => res.type('application/x-custom').send(Buffer.from(BIG))));
    expect((await getWith(url2, 'gzip')).coding).toBe('gzip');
    const url3 = await app({}, (a) => a.get('/', (req, res) => res.type('application/x-protobuf').send(Buffer.from(BIG))));
    expect((await getWith(url3, 'gzip')).coding).toBeUndefined();
  });

  it('leaves a response alone, without Vary, when filter returns false; filter sees the final headers', async () => {
    const seen: string[] = [];
    const url = await app(
      {
        filter: (req, res) => {
          seen.push(String(res.get('x-kind')));
          return req.get('x-no-compression') === undefined;
        },
      },
      (a) => a.get('/', (req, res) => res.set('x-kind', 'page').send(BIG)),
    );
    const off = await getWith(url, 'gzip', { 'x-no-compression': '1' });
    expect(off.coding).toBeUndefined();
    expect(off.headers.vary).toBeUndefined();
    const on = await getWith(url, 'gzip');
    expect(on.coding).toBe('gzip');
    expect(seen).toEqual(['page', 'page']);
  });

  it('lets the first compress() of a request own its body: a second one on the route steps aside', async () => {
    const a = server();
    a.use(compress({ encodings: ['deflate'] }));
    a.get('/', compress({ encodings: ['gzip'] }), (req, res) => res.send(BIG));
    const url = await listen(a);
    const r = await getWith(url, 'gzip, deflate');
    expect(r.coding).toBe('deflate');
    expect(r.text).toBe(BIG);
  });

  it('steps aside on a response whose body another plugin transforms already', async () => {
    const mark: BodyTransform = (res) => {
      res.set('x-other', 'yes');
      return undefined;
    };
    const a = server();
    a.use((req, res, next) => {
      res.transformBody(mark);
      next();
    });
    a.use(compress());
    a.get('/', (req, res) => res.send(BIG));
    const url = await listen(a);
    const r = await getWith(url, 'gzip');
    expect(r.status).toBe(200);
    expect(r.headers['x-other']).toBe('yes');
    expect(r.coding).toBeUndefined();
  });

  it('runs under a prefix only for the routes there', async () => {
    const a = server();
    a.use('/api', compress());
    a.get('/api/list', (req, res) => res.send(BIG));
    a.get('/page', (req, res) => res.send(BIG));
    const url = await listen(a);
    expect((await getWith(`${url}/api/list`, 'gzip')).coding).toBe('gzip');
    const page = await getWith(`${url}/page`, 'gzip');
    expect(page.coding).toBeUndefined();
    expect(page.headers.vary).toBeUndefined();
  });
});

describe("compress() and core's lifecycle", () => {
  it('decides after onSend hooks: a hook that sets no-transform keeps the body uncompressed', async () => {
    const a = server();
    a.addHook('onSend', (req, res) => {
      if (req.path === '/hooked') res.set('cache-control', 'no-transform');
    });
    a.use(compress());
    a.get('/hooked', (req, res) => res.send(BIG));
    a.get('/plain', (req, res) => res.send(BIG));
    const url = await listen(a);
    expect((await getWith(`${url}/hooked`, 'gzip')).coding).toBeUndefined();
    expect((await getWith(`${url}/plain`, 'gzip')).coding).toBe('gzip');
  });

  it('compresses an answer held by an async beforeHead task, whole or streamed', async () => {
    const url = await app({}, (a) => {
      a.get('/whole', (req, res) => {
        res.beforeHead(async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          res.set('x-held', 'yes');
        });
        res.json(jsonOf(3000));
      });
      a.get('/streamed', (req, res) => {
        res.beforeHead(() => new Promise((resolve) => setTimeout(resolve, 5)));
        res.type('text');
        res.write(BIG);
        res.end(BIG);
      });
    });
    const whole = await getWith(`${url}/whole`, 'gzip');
    expect(whole.coding).toBe('gzip');
    expect(whole.headers['x-held']).toBe('yes');
    expect(whole.headers['content-length']).toBe(String(whole.raw.length));
    expect(JSON.parse(whole.text)).toEqual(jsonOf(3000));
    const streamed = await getWith(`${url}/streamed`, 'gzip');
    expect(streamed.coding).toBe('gzip');
    expect(streamed.text).toBe(BIG + BIG);
  });

  it('keeps the Content-Length of res.stream() with a size when it steps aside (no Accept-Encoding)', async () => {
    const body = Buffer.from(BIG + BIG);
    const url = await app({}, (a) => a.get('/s', (req, res) => res.type('text').stream(Readable.from([body.subarray(0, 3000), body.subarray(3000)]), { size: body.length })));
    const r = await getWith(`${url}/s`, undefined);
    expect(r.coding).toBeUndefined();
    expect(r.headers['content-length']).toBe(String(body.length));
    expect(r.headers['transfer-encoding']).toBeUndefined();
    expect(r.raw.equals(body)).toBe(true);
  });
});
