// express.static on @velox/express/5: serve-static 2.x, with plain requests for a small file
// already read answered from memory by the Express 4 entry's road under send 1.x's rules
// (src/app/v5/static.ts). Every answer is compared with express@5's for the same directory:
// first request (serve-static 2 itself) and later ones (memory), and every request the road
// leaves to serve-static 2 (dotfiles, directories, index, ranges, conditions, odd paths).
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { STATIC_MEMORY_FILE_LIMIT, staticMemory } from '../../src/app/static.ts';
import { type AnyExpress, both, type Pair } from '../app/harness.ts';

const five = { major: 5 } as const;

/** Files whose Content-Type send 1.x takes from mime-types 3 (text types with a charset, none for an unknown extension or none at all). */
const PLAIN_FILES = ['/css/site.css', '/app.js', '/mod.mjs', '/data.json', '/page.html', '/logo.svg', '/notes.txt', '/data.unknownext', '/LICENSE', '/font.woff2'];

async function site(): Promise<string> {
  const dir = await tempDir('velox-x5static-');
  await mkdir(join(dir, 'css'));
  await mkdir(join(dir, 'docs'));
  await mkdir(join(dir, '.hidden'));
  await writeFile(join(dir, 'css', 'site.css'), 'body { color: red }\n');
  await writeFile(join(dir, 'app.js'), 'console.log(1);\n');
  await writeFile(join(dir, 'mod.mjs'), 'export default 1;\n');
  await writeFile(join(dir, 'data.json'), '{"a":1}');
  await writeFile(join(dir, 'page.html'), '<p>page</p>');
  await writeFile(join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(dir, 'notes.txt'), 'héllo wörld\n');
  await writeFile(join(dir, 'data.unknownext'), 'raw');
  await writeFile(join(dir, 'LICENSE'), 'MIT');
  await writeFile(join(dir, 'font.woff2'), Buffer.from([0x77, 0x4f, 0x46, 0x32]));
  await writeFile(join(dir, 'docs', 'index.html'), '<h1>docs</h1>');
  await writeFile(join(dir, 'docs', 'main.html'), '<h1>main</h1>');
  await writeFile(join(dir, '.env'), 'SECRET=1');
  await writeFile(join(dir, '.hidden', 'a.txt'), 'hidden a');
  await writeFile(join(dir, 'big.txt'), 'x'.repeat(STATIC_MEMORY_FILE_LIMIT + 10));
  return dir;
}

/** Waits until the memory holds `files` more files than `before` (the read after a miss is in the background). */
async function heldMore(before: number, files: number): Promise<void> {
  for (let i = 0; i < 100 && staticMemory().files < before + files; i++) await new Promise((r) => setTimeout(r, 10));
  expect(staticMemory().files).toBeGreaterThanOrEqual(before + files);
}

/** Answers the requests the static middleware passes on (fallthrough), saying so. */
function afterStatic(app: any): void {
  app.use((req: any, res: any) => res.status(404).send(`next() ran for ${req.url}`));
  app.use((err: any, _req: any, res: any, _next: any) => res.status(err.status ?? 500).send(`error ${err.status}: ${err.message}`));
}

/** Raw bytes to both; the two answers' lines (lower-case, sorted: header order and case differ between the servers) must match. */
async function sameRaw(pair: Pair, request: string): Promise<string> {
  const [theirs, ours] = await pair.raw(request);
  const lines = (text: string) => text.split('\r\n').map((l) => l.toLowerCase()).sort();
  expect(lines(ours), request).toEqual(lines(theirs));
  return theirs;
}

const OPTION_SETS: Array<[string, Record<string, unknown> | undefined]> = [
  ['defaults', undefined],
  ['maxAge as text, immutable', { maxAge: '1d', immutable: true }],
  ['maxAge in ms, over a year', { maxAge: 5500 }],
  ['maxage (lower case) beyond a year', { maxage: 1e12 }],
  ['a maxAge that is not a duration', { maxAge: 'soon' }],
  ['no etag, no lastModified', { etag: false, lastModified: false }],
  ['no cacheControl, no acceptRanges', { cacheControl: false, acceptRanges: false }],
  ['fallthrough off, redirect off, index off, extensions', { fallthrough: false, redirect: false, index: false, extensions: ['html'] }],
  ['setHeaders', { setHeaders: (res: any, path: string, stats: any) => res.setHeader('X-File', `${basename(path)} ${stats.size}`) }],
  [
    'setHeaders that sets the type and caching itself',
    {
      setHeaders: (res: any) => {
        res.setHeader('Content-Type', 'text/x-own');
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('ETag', '"own"');
      },
    },
  ],
];

describe('express.static of the Express 5 entry (memory for plain requests)', () => {
  for (const [label, options] of OPTION_SETS) {
    it(`answers as express@5 does, from disk and then from memory: ${label}`, async () => {
      const dir = await site();
      const pair = await both((ex: AnyExpress) => {
        const app = ex();
        app.use('/s', ex.static(dir, options));
        afterStatic(app);
        return app;
      }, five);
      const before = staticMemory();
      for (const path of PLAIN_FILES) await pair.same(`/s${path}`);
      await heldMore(before.files, PLAIN_FILES.length);
      for (const path of PLAIN_FILES) {
        await pair.same(`/s${path}`);
        await pair.same({ method: 'HEAD', path: `/s${path}?v=2` });
      }
      // Every answer of the second round came from memory.
      expect(staticMemory().hits - before.hits).toBe(2 * PLAIN_FILES.length);
    });
  }

  it('sends send 1.x’s Content-Type: mime-types 3 with a charset for text, application/octet-stream for an unknown or missing extension', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(ex.static(dir));
      return app;
    }, five);
    const before = staticMemory();
    for (const path of PLAIN_FILES) await pair.same(path);
    await heldMore(before.files, PLAIN_FILES.length);
    const types: Record<string, string | undefined> = {};
    for (const path of PLAIN_FILES) types[path] = (await pair.same(path)).headers['content-type'];
    expect(types).toMatchObject({
      '/css/site.css': 'text/css; charset=utf-8',
      '/app.js': 'text/javascript; charset=utf-8',
      '/data.unknownext': 'application/octet-stream',
      '/LICENSE': 'application/octet-stream',
    });
  });

  it('serves a file changed or removed since it was read as express@5 does (never the old bytes), and falls through to next() for a missing one', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(ex.static(dir));
      afterStatic(app);
      return app;
    }, five);
    const file = join(dir, 'css', 'site.css');
    const before = staticMemory();
    await pair.same('/css/site.css');
    await heldMore(before.files, 1);
    expect((await pair.same('/css/site.css')).body).toBe('body { color: red }\n');
    // Same size, new bytes and mtime.
    await writeFile(file, 'body { color: blu }\n');
    const when = new Date(Date.now() + 5000);
    await utimes(file, when, when);
    expect((await pair.same('/css/site.css')).body).toBe('body { color: blu }\n');
    // Another size.
    await writeFile(file, 'p { margin: 0 }');
    expect((await pair.same('/css/site.css')).body).toBe('p { margin: 0 }');
    await pair.same({ method: 'HEAD', path: '/css/site.css' });
    // Removed: serve-static 2 falls through to the next middleware.
    await rm(file);
    expect((await pair.same('/css/site.css')).body).toBe('next() ran for /css/site.css');
    expect((await pair.same('/nothing.css')).body).toBe('next() ran for /nothing.css');
    await writeFile(file, 'back');
    expect((await pair.same('/css/site.css')).body).toBe('back');
  });

  it('leaves dotfiles, directories, index files and other methods to serve-static 2, as express@5 answers them', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use('/s', ex.static(dir));
      app.use('/allow', ex.static(dir, { dotfiles: 'allow' }));
      app.use('/deny', ex.static(dir, { dotfiles: 'deny' }));
      app.use('/strict', ex.static(dir, { fallthrough: false, dotfiles: 'deny' }));
      app.use('/noredirect', ex.static(dir, { redirect: false }));
      app.use('/main', ex.static(dir, { index: 'main.html' }));
      app.use('/noindex', ex.static(dir, { index: false }));
      app.use('/ext', ex.static(dir, { extensions: ['html', 'css'] }));
      app.post('/s/app.js', (_req: any, res: any) => res.send('posted'));
      afterStatic(app);
      return app;
    }, five);
    const before = staticMemory();
    await pair.same('/s/app.js');
    await heldMore(before.files, 1);
    const hits = staticMemory().hits;
    for (const path of [
      '/s/.env',
      '/s/.hidden/a.txt',
      '/allow/.env',
      '/allow/.env',
      '/allow/.hidden/a.txt',
      '/deny/.env',
      '/strict/.env',
      '/strict/missing.txt',
      '/s/docs',
      '/s/docs?x=1',
      '/s/docs/',
      '/noredirect/docs',
      '/main/docs/',
      '/noindex/docs/',
      '/ext/page',
      '/ext/css/site',
      '/s/app.js/',
    ]) {
      await pair.same(path);
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      await pair.same({ method, path: '/s/app.js' });
      await pair.same({ method, path: '/strict/app.js' });
    }
    expect(staticMemory().hits).toBe(hits);
  });

  it('leaves ranged and conditional requests to serve-static 2, as express@5 answers them', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(ex.static(dir));
      return app;
    }, five);
    const before = staticMemory();
    const first = await pair.same('/app.js');
    await heldMore(before.files, 1);
    const hits = staticMemory().hits;
    const { etag, 'last-modified': modified } = first.headers;
    expect((await pair.same({ path: '/app.js', headers: { range: 'bytes=0-3' } })).status).toBe(206);
    expect((await pair.same({ path: '/app.js', headers: { range: 'bytes=900-' } })).status).toBe(416);
    await pair.same({ path: '/app.js', headers: { range: 'bytes=0-1,4-5' } });
    await pair.same({ path: '/app.js', headers: { range: 'bytes=-4' } });
    await pair.same({ path: '/app.js', headers: { range: 'bytes=0-3', 'if-range': etag! } });
    await pair.same({ path: '/app.js', headers: { range: 'bytes=0-3', 'if-range': '"stale"' } });
    await pair.same({ method: 'HEAD', path: '/app.js', headers: { range: 'bytes=0-3' } });
    expect((await pair.same({ path: '/app.js', headers: { 'if-match': '"nope"' } })).status).toBe(412);
    await pair.same({ path: '/app.js', headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
    // fetch adds Cache-Control: no-cache to a conditional request (send then answers 200): raw bytes for the 304s.
    expect(await sameRaw(pair, `GET /app.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 304 Not Modified\r\n/);
    expect(await sameRaw(pair, `GET /app.js HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: ${modified}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 304 Not Modified\r\n/);
    expect(await sameRaw(pair, `HEAD /app.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 304 Not Modified\r\n/);
    await sameRaw(pair, 'GET /app.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: "other"\r\n\r\n');
    expect(staticMemory().hits).toBe(hits);
  });

  it('answers path traversal and odd paths (dot segments, encoded slashes, null bytes) as serve-static 2 does, never from memory', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use('/css', ex.static(join(dir, 'css')));
      app.use(ex.static(dir));
      afterStatic(app);
      return app;
    }, five);
    const before = staticMemory();
    await pair.same('/app.js');
    await heldMore(before.files, 1);
    const hits = staticMemory().hits;
    // Raw bytes: fetch would resolve dot segments (%2e%2e included) itself.
    for (const path of [
      '/css/../app.js',
      '/css/%2e%2e/app.js',
      '/css/%2E%2E/.env',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/css/..%2fapp.js',
      '/css/%2e%2e%2fapp.js',
      '/css%2fsite.css',
      '/css/..%5capp.js',
      '/app.js%00',
      '/app.js%00.txt',
      '/%00',
      '/%61pp.js',
      '/app%2ejs',
      '//app.js',
      '/app.js/',
      '/.%2fapp.js',
      '/%E0%A4%A',
    ]) {
      await sameRaw(pair, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    }
    expect(staticMemory().hits).toBe(hits);
  });

  it('answers from memory under the root / as send does (setHeaders sees the same path)', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use('/root', ex.static('/', { setHeaders: (res: any, path: string) => res.setHeader('X-Path', path) }));
      return app;
    }, five);
    const path = `/root${join(dir, 'app.js')}`;
    const before = staticMemory();
    const first = await pair.same(path);
    expect(first.headers['x-path']).toBe(join(dir, 'app.js'));
    await heldMore(before.files, 1);
    expect((await pair.same(path)).headers['x-path']).toBe(join(dir, 'app.js'));
    expect(staticMemory().hits - before.hits).toBe(1);
  });

  it('hands options send refuses to serve-static 2 on every request: its error reaches the error handlers, as on express@5', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use('/good', ex.static(dir));
      app.use('/dot', ex.static(dir, { dotfiles: 'sometimes' }));
      app.use('/index', ex.static(dir, { index: [1] }));
      app.use('/ext', ex.static(dir, { extensions: [true] }));
      afterStatic(app);
      return app;
    }, five);
    // The file is in memory (another express.static read it): the refused options still go to serve-static.
    const before = staticMemory();
    await pair.same('/good/app.js');
    await heldMore(before.files, 1);
    await pair.same('/good/app.js');
    expect(staticMemory().hits).toBe(before.hits + 1);
    for (let i = 0; i < 2; i++) {
      for (const path of ['/dot/app.js', '/index/app.js', '/ext/app.js']) {
        const answer = await pair.same(path);
        expect(answer.status, path).toBe(500);
      }
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(staticMemory().hits).toBe(before.hits + 1);
  });

  it('sends a throwing setHeaders to the error handlers instead of crashing', async () => {
    const dir = await site();
    let throwNow = false;
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(
        ex.static(dir, {
          setHeaders: () => {
            if (throwNow) throw new Error('setHeaders failed');
          },
        }),
      );
      app.use((err: any, _req: any, res: any, _next: any) => res.status(500).send(`caught: ${err.message}`));
      return app;
    }, five);
    const before = staticMemory();
    await pair.same('/app.js');
    await heldMore(before.files, 1);
    throwNow = true;
    // Only Velox's answer: on Express 5 the throw is an uncaught exception in send's stat callback.
    const res = await fetch(`${pair.velox}/app.js`);
    expect([res.status, await res.text()]).toEqual([500, 'caught: setHeaders failed']);
    expect(staticMemory().hits).toBe(before.hits + 1);
    throwNow = false;
    expect((await fetch(`${pair.velox}/app.js`)).status).toBe(200);
  });

  it('streams a file larger than the memory limit each time, as express@5 answers it', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(ex.static(dir));
      return app;
    }, five);
    const before = staticMemory();
    for (let i = 0; i < 3; i++) expect((await pair.same('/big.txt')).body.length).toBe(STATIC_MEMORY_FILE_LIMIT + 10);
    await pair.same({ method: 'HEAD', path: '/big.txt' });
    await new Promise((r) => setTimeout(r, 50));
    expect(staticMemory().hits).toBe(before.hits);
  });
});
