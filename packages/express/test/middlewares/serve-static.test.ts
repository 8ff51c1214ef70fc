import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listen, parseResponses, raw, tempDir } from '@velox/test-utils';
import express from 'express';
import express4 from 'express4';
import serveStatic from 'serve-static';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

async function site(): Promise<string> {
  const dir = await tempDir();
  await mkdir(join(dir, 'docs'));
  await writeFile(join(dir, 'app.js'), 'console.log("hi");\n');
  await writeFile(join(dir, 'index.html'), '<h1>home</h1>');
  await writeFile(join(dir, 'docs', 'index.html'), '<h1>docs</h1>');
  await writeFile(join(dir, '.secret'), 'hidden');
  await writeFile(join(dir, 'big.txt'), '0123456789'.repeat(100));
  return dir;
}

describe('serve-static and express.static', () => {
  for (const [name, make] of [
    ['serve-static', serveStatic],
    ['express.static (5)', express.static],
    ['express.static (4)', express4.static],
  ] as const) {
    it(`${name}: serves files under a prefix, with type, ETag, Last-Modified and index.html`, async () => {
      const dir = await site();
      const app = server();
      app.use('/static', make(dir));
      app.get('/static/app.js', (req, res) => res.send('route, not the file'));
      app.get('/elsewhere', (req, res) => res.send('not static'));
      const url = await listen(app);
      const js = await fetch(`${url}/static/app.js`);
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toMatch(/^(text|application)\/javascript; charset=utf-8$/i);
      expect(js.headers.get('etag')).toMatch(/^W\/"/);
      expect(js.headers.get('last-modified')).toMatch(/GMT$/);
      expect(js.headers.get('cache-control')).toBe('public, max-age=0');
      expect(await js.text()).toBe('console.log("hi");\n');
      expect(await (await fetch(`${url}/static/`)).text()).toBe('<h1>home</h1>');
      expect(await (await fetch(`${url}/elsewhere`)).text()).toBe('not static');
    });
  }

  it('answers 304 to a conditional GET, 206 to a range, and 416 to a range past the end', async () => {
    const dir = await site();
    const app = server();
    app.use('/static', serveStatic(dir));
    const url = await listen(app);
    const first = await fetch(`${url}/static/big.txt`);
    const etag = first.headers.get('etag')!;
    await first.text();
    // Raw request: fetch adds Cache-Control: no-cache to conditional requests.
    const cached = parseResponses((await raw(url, `GET /static/big.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\n\r\n`, { firstMs: 3000 })).text)[0]!;
    expect([cached.status, cached.body]).toEqual([304, '']);
    const range = await fetch(`${url}/static/big.txt`, { headers: { range: 'bytes=10-19' } });
    expect([range.status, range.headers.get('content-range'), await range.text()]).toEqual([206, 'bytes 10-19/1000', '0123456789']);
    const past = await fetch(`${url}/static/big.txt`, { headers: { range: 'bytes=5000-6000' } });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, 'bytes */1000']);
  });

  it('redirects a directory without its trailing slash, keeping the prefix, and falls through for dotfiles and misses', async () => {
    const dir = await site();
    const app = server();
    app.use('/static', serveStatic(dir));
    app.get('/static/*', (req, res) => res.status(404).send(`fell through: ${req.path}`));
    const url = await listen(app);
    const redirect = await fetch(`${url}/static/docs`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/static/docs/']);
    expect(await (await fetch(`${url}/static/docs/`)).text()).toBe('<h1>docs</h1>');
    expect(await (await fetch(`${url}/static/.secret`)).text()).toBe('fell through: /static/.secret');
    expect(await (await fetch(`${url}/static/nothing.css`)).text()).toBe('fell through: /static/nothing.css');
  });

  it('refuses to leave its root: an encoded ../ answers 403 or falls through, never the file', async () => {
    const dir = await site();
    const app = server();
    app.use('/static', serveStatic(join(dir, 'docs')));
    const url = await listen(app);
    for (const path of ['/static/..%2fapp.js', '/static/%2e%2e/app.js']) {
      const r = await fetch(`${url}${path}`);
      expect(r.status, path).not.toBe(200);
      expect(await r.text(), path).not.toContain('console.log');
    }
  });

  it('answers HEAD with the headers and no body', async () => {
    const dir = await site();
    const app = server();
    app.use('/static', serveStatic(dir));
    const url = await listen(app);
    const head = parseResponses((await raw(url, 'HEAD /static/big.txt HTTP/1.1\r\nHost: x\r\n\r\n', { firstMs: 3000 })).text)[0]!;
    expect([head.status, head.headers['content-length'], head.body]).toEqual([200, '1000', '']);
  });
});
