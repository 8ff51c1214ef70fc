import { Readable } from 'node:stream';
import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import type { Response } from '../../src/index.ts';
import { server } from '../helpers.ts';

describe('res as a writable: a replaced write or end sees every answer, events, encodings', () => {
  it('sends every chunk through a replaced write when streaming (no tryEnd shortcut)', async () => {
    const app = server();
    app.get('/', (req, res) => {
      const write = res.write;
      res.write = function (this: Response, chunk: string | Uint8Array) {
        return write.call(this, Buffer.from(String(chunk).toUpperCase()));
      } as Response['write'];
      void res.stream(Readable.from(['ab', 'cd']), { size: 4 });
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).text()).toBe('ABCD');
  });

  it('emits finish and close for send, end, write and a piped stream, with Content-Length known to res.get()', async () => {
    const app = server();
    const log: string[] = [];
    app.use((req, res, next) => {
      res.on('finish', () => log.push(`${req.path} finish ${res.get('content-length') ?? '-'} ${res.headersSent}`));
      res.on('close', () => log.push(`${req.path} close`));
      next();
    });
    app.get('/send', (req, res) => res.send('abc'));
    app.get('/write', (req, res) => {
      res.write('a');
      res.end();
    });
    app.get('/pipe', (req, res) => {
      Readable.from(['p', 'q']).pipe(res);
    });
    const { url } = await start(app);
    for (const path of ['/send', '/write', '/pipe']) await (await fetch(`${url}${path}`)).text();
    await expect.poll(() => log.length).toBe(6);
    expect(log).toEqual([
      '/send finish 3 true',
      '/send close',
      '/write finish - true',
      '/write close',
      '/pipe finish - true',
      '/pipe close',
    ]);
  });

  it('decodes write() and end() chunks in the encoding given, and calls their callbacks', async () => {
    const app = server();
    let calls = 0;
    app.get('/', (req, res) => {
      res.write('6869', 'hex', () => calls++);
      res.end('IQ==', 'base64', () => calls++);
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).text()).toBe('hi!');
    await expect.poll(() => calls).toBe(2);
  });
});
