import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import { Readable, type Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import type { Response } from '@velox/core';
import { until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { openZlibStreams, zlibStats } from '../src/body-stream.ts';
import { app, gate, getWith, HAS_ZSTD, text, within } from './helpers.ts';

/** A streaming decoder for a Content-Encoding. */
function decoder(coding: string | undefined): Transform | undefined {
  if (coding === 'gzip') return zlib.createGunzip();
  if (coding === 'deflate') return zlib.createInflate();
  if (coding === 'br') return zlib.createBrotliDecompress();
  if (coding === 'zstd') return (zlib as unknown as { createZstdDecompress(): Transform }).createZstdDecompress();
  return undefined;
}

/**
 * GET through node:http, decoding the body as it arrives; `decoded()` is the text so far. Resolves
 * once the head is in.
 */
function openStream(url: string, acceptEncoding: string): Promise<{ headers: Record<string, unknown>; decoded: () => string; done: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': acceptEncoding }, agent: false }, (res) => {
      let text = '';
      const coding = res.headers['content-encoding'];
      const inflate = decoder(coding);
      const source = inflate ? res.pipe(inflate) : res;
      source.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      const done = new Promise<string>((ok, fail) => {
        source.on('end', () => ok(text));
        source.on('error', fail);
      });
      resolve({ headers: res.headers, decoded: () => text, done });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('streamed answers', () => {
  const codings = [
    { coding: 'gzip', skip: false },
    { coding: 'deflate', skip: false },
    { coding: 'br', skip: false },
    // zstd exists from Node 22.15: skipped on Node 20, run by CI on Node 22.
    { coding: 'zstd', skip: !HAS_ZSTD },
  ];
  for (const { coding, skip } of codings) {
    it.skipIf(skip)(`flushes each write with ${coding}: the client decodes a piece before the next is written`, async () => {
      const first = `first piece ${text(3000)}`;
      const second = `second piece ${text(500)}`;
      const decodedFirst = gate();
      const url = await app({}, (a) =>
        a.get('/live', async (req, res) => {
          res.type('text');
          res.write(first);
          await decodedFirst.promise;
          res.write(second);
          res.end();
        }),
      );
      const client = await openStream(`${url}/live`, coding);
      expect(client.headers['content-encoding']).toBe(coding);
      // Without a flush, the first piece would sit in zlib until the end, which waits for this.
      await within(until(() => client.decoded() === first, 'the first piece decoded'), 5000, 'the first piece');
      decodedFirst.open();
      expect(await within(client.done, 5000, 'the whole body')).toBe(first + second);
    });
  }

  it('sends Server-Sent Events uncompressed by default, each event as it is sent', async () => {
    const next = gate();
    const url = await app({}, (a) =>
      a.get('/events', async (req, res) => {
        const events = res.sse();
        events.send({ n: 1, pad: text(2000) });
        await next.promise;
        events.send({ n: 2 });
        events.close();
      }),
    );
    const client = await openStream(`${url}/events`, 'gzip, br');
    expect(client.headers['content-encoding']).toBeUndefined();
    expect(client.headers['content-type']).toBe('text/event-stream');
    expect(client.headers.vary).toBeUndefined();
    await within(until(() => client.decoded().includes('"n":1'), 'event 1'), 5000, 'event 1');
    next.open();
    const all = await within(client.done, 5000, 'the end');
    expect(all).toContain('"n":2');
  });

  it('compresses Server-Sent Events with sse: true, each event decoded before the next is sent', async () => {
    const next = gate();
    const url = await app({ sse: true }, (a) =>
      a.get('/events', async (req, res) => {
        const events = res.sse();
        events.send({ n: 1 }, { event: 'tick', id: '1' });
        await next.promise;
        events.send({ n: 2 }, { event: 'tick', id: '2' });
        events.close();
      }),
    );
    const client = await openStream(`${url}/events`, 'gzip');
    expect(client.headers['content-encoding']).toBe('gzip');
    expect(client.headers.vary).toBe('Accept-Encoding');
    await within(until(() => client.decoded().includes('data: {"n":1}\n\n'), 'event 1'), 5000, 'event 1');
    expect(client.decoded()).not.toContain('"n":2');
    next.open();
    expect(await within(client.done, 5000, 'the end')).toBe(':\n\nevent: tick\nid: 1\ndata: {"n":1}\n\nevent: tick\nid: 2\ndata: {"n":2}\n\n');
  });

  it('leaves no zlib stream behind when the client disconnects mid-stream, and keeps serving', async () => {
    let closed: Response | undefined;
    const url = await app({}, (a) => {
      a.get('/forever', (req, res) => {
        res.type('text');
        const timer = setInterval(() => res.write(`${text(200)}\n`), 5);
        res.on('close', () => {
          clearInterval(timer);
          closed = res;
        });
      });
      a.get('/after', (req, res) => res.send(text(3000)));
    });
    expect(openZlibStreams()).toBe(0);
    await new Promise<void>((resolve, reject) => {
      const req = request(`${url}/forever`, { headers: { 'accept-encoding': 'gzip' }, agent: false }, (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        res.once('data', () => {
          expect(openZlibStreams()).toBe(1);
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => {});
      req.on('close', () => resolve());
      setTimeout(() => reject(new Error('no data')), 5000);
      req.end();
    });
    await until(() => closed !== undefined, 'the response to close');
    expect(closed!.aborted).toBe(true);
    await until(() => openZlibStreams() === 0, 'the zlib stream to close');
    const after = await getWith(`${url}/after`, 'gzip');
    expect(after.status).toBe(200);
    expect(after.text).toBe(text(3000));
    expect(openZlibStreams()).toBe(0);
  });

  it('leaves no zlib stream behind when the client leaves during a large whole body, its output paused', async () => {
    // 8 MB that stay about 6 MB gzipped: more than the socket holds, so zlib's output is paused
    // (waiting for the client) when the client leaves.
    const noise = randomBytes(6 * 1024 * 1024).toString('base64');
    const pausesBefore = zlibStats.pauses;
    let closed = false;
    const url = await app({ zlibOptions: { level: 1 } }, (a) =>
      a.get('/huge', (req, res) => {
        res.on('close', () => {
          closed = true;
        });
        res.type('text').send(noise);
      }),
    );
    await new Promise<void>((resolve, reject) => {
      const req = request(`${url}/huge`, { headers: { 'accept-encoding': 'gzip' }, agent: false }, async (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        res.pause();
        try {
          await until(() => zlibStats.pauses > pausesBefore, "zlib's output paused");
          expect(openZlibStreams()).toBe(1);
          req.destroy();
          resolve();
        } catch (err) {
          reject(err);
        }
      });
      req.on('error', () => {});
      req.end();
    });
    await until(() => closed, 'the response to close');
    await until(() => openZlibStreams() === 0, 'the zlib stream to close');
  });

  it('closes the zlib stream of every answer it finished (whole bodies over syncThreshold and streams)', async () => {
    const url = await app({}, (a) => {
      a.get('/whole', (req, res) => res.send(text(50_000)));
      a.get('/stream', (req, res) => res.type('text').stream(Readable.from([text(5000), text(5000)])));
    });
    for (let i = 0; i < 5; i++) {
      expect((await getWith(`${url}/whole`, 'br')).text).toBe(text(50_000));
      expect((await getWith(`${url}/stream`, 'gzip')).text).toBe(text(5000) + text(5000));
    }
    await until(() => openZlibStreams() === 0, 'every zlib stream closed');
  });

  it("pauses zlib's output while the socket is full, makes res.write() return false, then 'drain', and the body arrives whole", async () => {
    const pausesBefore = zlibStats.pauses;
    // Random base64 compresses poorly (and gzip's 32 KB window does not see 64 KB pieces repeat),
    // so 12 MB written give about 9 MB out: more than the socket buffers hold (about 4 MB here).
    const distinct = Array.from({ length: 4 }, () => randomBytes(48 * 1024).toString('base64'));
    const pieces = Array.from({ length: 192 }, (_, i) => distinct[i % 4]!);
    let refused = 0;
    let drains = 0;
    let written = 0;
    const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
    const url = await app({ zlibOptions: { level: 1 } }, (a) =>
      a.get('/big', async (req, res) => {
        res.type('text');
        for (const piece of pieces) {
          written += piece.length;
          if (!res.write(piece)) {
            refused++;
            await once(res, 'drain');
            drains++;
          }
        }
        res.end();
      }),
    );
    // A client that reads nothing at first: the socket fills, zlib's output waits, and so does
    // the app, until the client reads.
    let stalledAt = 0;
    const body = await new Promise<Buffer>((resolve, reject) => {
      const req = request(`${url}/big`, { headers: { 'accept-encoding': 'gzip' }, agent: false }, async (res) => {
        res.pause();
        try {
          let last = -1;
          let still = 0;
          await until(() => {
            still = written === last ? still + 1 : 0;
            last = written;
            return still >= 6;
          }, 'the app to stop writing');
        } catch (err) {
          reject(err);
          return;
        }
        stalledAt = written;
        const chunks: Buffer[] = [];
        const gunzip = res.pipe(zlib.createGunzip());
        gunzip.on('data', (c: Buffer) => chunks.push(c));
        gunzip.on('end', () => resolve(Buffer.concat(chunks)));
        gunzip.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(stalledAt).toBeGreaterThan(0);
    expect(stalledAt).toBeLessThan(total);
    expect(body.toString()).toBe(pieces.join(''));
    expect(refused).toBeGreaterThan(0);
    expect(drains).toBe(refused);
    expect(zlibStats.pauses).toBeGreaterThan(pausesBefore);
  });

  it('sends HEAD of a streamed answer without a body or Content-Encoding', async () => {
    const url = await app({}, (a) =>
      a.get('/s', (req, res) => {
        res.type('text');
        res.write(text(3000));
        res.end();
      }),
    );
    const r = await new Promise<{ headers: Record<string, unknown>; length: number }>((resolve, reject) => {
      const req = request(`${url}/s`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' }, agent: false }, (res) => {
        let length = 0;
        res.on('data', (c: Buffer) => {
          length += c.length;
        });
        res.on('end', () => resolve({ headers: res.headers, length }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(r.length).toBe(0);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.vary).toBe('Accept-Encoding');
    expect(openZlibStreams()).toBe(0);
  });
});
