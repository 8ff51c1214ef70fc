import { describe, expect, it } from 'vitest';
import { StaticErrorCodes, serveStatic } from '../src/index.ts';
import { get, rawGet, serve, server, tree } from './helpers.ts';

const CSS = 'body { color: red }\n';

describe('serveStatic', () => {
  it('serves a file with content type, length, strong ETag, Last-Modified, Cache-Control and Vary', async () => {
    const root = await tree({ 'css/app.css': CSS });
    const { url } = await serve(root);
    const r = await get(`${url}/assets/css/app.css`);
    expect(r.status).toBe(200);
    expect(r.text).toBe(CSS);
    expect(r.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(r.headers.get('content-length')).toBe(String(CSS.length));
    expect(r.headers.get('etag')).toMatch(/^"[\w-]{20,}"$/);
    expect(Date.parse(r.headers.get('last-modified')!)).not.toBeNaN();
    expect(r.headers.get('cache-control')).toBe('public, max-age=0');
    expect(r.headers.get('vary')).toBe('Accept-Encoding');
    expect(r.headers.get('accept-ranges')).toBe('bytes');
  });

  it('answers HEAD with the same headers and no body', async () => {
    const root = await tree({ 'a.txt': 'hello' });
    const { url } = await serve(root);
    const r = await get(`${url}/assets/a.txt`, {}, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBe('5');
    expect(r.headers.get('etag')).toBeTruthy();
    expect(r.body.length).toBe(0);
  });

  it('sets Cache-Control from maxAge (ms) and immutable, and leaves out what is turned off', async () => {
    const root = await tree({ 'a.txt': 'x' });
    const { url } = await serve(root, { maxAge: 86_400_000, immutable: true, etag: false, lastModified: false });
    const r = await get(`${url}/assets/a.txt`);
    expect(r.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
    expect(r.headers.get('etag')).toBeNull();
    expect(r.headers.get('last-modified')).toBeNull();
  });

  it('serves the index file for a directory path ending in /', async () => {
    const root = await tree({ 'index.html': 'root', 'docs/index.html': 'docs' });
    const { url } = await serve(root);
    expect((await get(`${url}/assets/`)).text).toBe('root');
    expect((await get(`${url}/assets/docs/`)).text).toBe('docs');
  });

  it('redirects a directory without its slash with a relative Location', async () => {
    const root = await tree({ 'index.html': 'root', 'docs/index.html': 'docs' });
    const { url } = await serve(root);
    const docs = await get(`${url}/assets/docs?x=1`);
    expect(docs.status).toBe(301);
    expect(docs.headers.get('location')).toBe('./docs/?x=1');
    const top = await get(`${url}/assets`);
    expect(top.status).toBe(301);
    expect(top.headers.get('location')).toBe('./assets/');
  });

  it('serves no index with index: false', async () => {
    const root = await tree({ 'index.html': 'root' });
    const { url } = await serve(root, { index: false });
    expect((await get(`${url}/assets/`)).status).toBe(404);
  });

  it('falls through to the not-found handler for a missing file', async () => {
    const root = await tree({ 'a.txt': 'x' });
    const { url } = await serve(root, {}, '/assets', (app) => app.setNotFoundHandler((req, res) => res.status(404).send(`custom ${req.path}`)));
    const r = await get(`${url}/assets/missing.txt`);
    expect(r.status).toBe(404);
    expect(r.text).toBe('custom /assets/missing.txt');
  });

  it('answers 404 VELOX_ERR_STATIC_NOT_FOUND itself with fallthrough: false', async () => {
    const root = await tree({ 'a.txt': 'x' });
    const { url } = await serve(root, { fallthrough: false }, '/assets', (app) => app.setNotFoundHandler((_req, res) => res.status(404).send('never')));
    const r = await get(`${url}/assets/missing.txt`);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text).code).toBe(StaticErrorCodes.NOT_FOUND);
  });

  it('mounted at the root, leaves the app routes, other methods and the not-found handler alone', async () => {
    const root = await tree({ 'index.html': 'home', 'app.js': 'js' });
    const { url } = await serve(root, {}, '/', (app) => {
      app.get('/api/users/:id', (req, res) => res.json({ id: req.params.id }));
      app.post('/app.js', (_req, res) => res.send('posted'));
    });
    expect((await get(`${url}/`)).text).toBe('home');
    expect((await get(`${url}/app.js`)).text).toBe('js');
    expect(await (await fetch(`${url}/api/users/7`)).json()).toEqual({ id: '7' });
    expect((await get(`${url}/app.js`, {}, 'POST')).text).toBe('posted');
    expect((await get(`${url}/nothing`)).status).toBe(404);
    expect((await get(`${url}/index.html`, {}, 'DELETE')).status).toBe(404);
  });

  it('runs server-wide middlewares on its routes, and its setHeaders per response', async () => {
    const root = await tree({ 'a.txt': 'x' });
    const { url } = await serve(
      root,
      { setHeaders: (res, path) => res.set('x-file', path.split('/').pop()!) },
      '/assets',
      (app) =>
        app.use((_req, res, next) => {
          res.set('x-mw', '1').set('cache-control', 'no-store');
          next();
        }),
    );
    const r = await get(`${url}/assets/a.txt`);
    expect(r.text).toBe('x');
    expect(r.headers.get('x-mw')).toBe('1');
    expect(r.headers.get('x-file')).toBe('a.txt');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('etag')).toBeTruthy();
  });

  it('serves a file bigger than maxFileSize from disk with a weak ETag', async () => {
    const big = Buffer.alloc(300_000, 7);
    const root = await tree({ 'big.bin': big });
    const { url, files } = await serve(root, { cache: { maxFileSize: 1000, maxSize: 10_000 } });
    const r = await get(`${url}/assets/big.bin`);
    expect(r.status).toBe(200);
    expect(r.body.equals(big)).toBe(true);
    expect(r.headers.get('etag')).toMatch(/^W\//);
    expect(r.headers.get('content-type')).toBe('application/octet-stream');
    expect(files.stats().cachedFiles).toBe(0);
  });

  it('keeps cached bytes within maxSize, least recently used out first', async () => {
    const root = await tree({ 'a.txt': 'a'.repeat(400), 'b.txt': 'b'.repeat(400), 'c.txt': 'c'.repeat(400) });
    const { url, files } = await serve(root, { cache: { maxFileSize: 500, maxSize: 1000 }, compress: false });
    for (const name of ['a', 'b', 'a', 'c']) expect((await get(`${url}/assets/${name}.txt`)).text).toBe(name.repeat(400));
    expect(files.stats()).toMatchObject({ files: 3, cachedFiles: 2, cachedBytes: 800 });
    // b was least recently used; a and c still answer, and b is read again.
    expect((await get(`${url}/assets/b.txt`)).text).toBe('b'.repeat(400));
    expect(files.stats().cachedBytes).toBeLessThanOrEqual(1000);
  });

  it('holds requests that arrive before the directory is indexed until it is', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = `file ${i}`;
    const root = await tree(files);
    const app = server();
    const statics = serveStatic(root, { settleTime: 0 });
    app.use('/s', statics);
    const { port } = await app.listen(0, '127.0.0.1');
    const r = await get(`http://127.0.0.1:${port}/s/d9/f299.txt`);
    expect(r.text).toBe('file 299');
    await statics.close();
  });

  it('refuses bad options at start-up with VELOX_ERR_STATIC_INVALID_OPTION', async () => {
    const root = await tree({});
    const cases: Array<() => unknown> = [
      () => serveStatic(`${root}/missing`),
      () => serveStatic(root, { cache: { maxFileSize: 10, maxSize: 5 } }),
      () => serveStatic(root, { dotfiles: 'sometimes' as 'allow' }),
      () => serveStatic(root, { maxAge: -1 }),
      () => serveStatic(root, { index: 'a/b.html' }),
      () => serveStatic(root, { settleTime: 1.5 }),
    ];
    for (const make of cases) expect(make).toThrowError(expect.objectContaining({ code: StaticErrorCodes.INVALID_OPTION }));
  });

  it('answers a file that vanished between lookup and read with 404, and keeps serving', async () => {
    const root = await tree({ 'gone.txt': 'soon gone', 'stay.txt': 'here' });
    const { url, port } = await serve(root, { watch: false });
    const { rm } = await import('node:fs/promises');
    await rm(`${root}/gone.txt`);
    const r = await rawGet(port, '/assets/gone.txt');
    expect(r.status).toBe(404);
    expect((await get(`${url}/assets/stay.txt`)).text).toBe('here');
  });
});
