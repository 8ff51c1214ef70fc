// express.static on @velox/express: serve-static 1.x, with plain requests for a small file
// already read answered from memory (src/app/static.ts). Every answer is compared with
// express@4's for the same directory, first request (serve-static itself) and later ones (memory).
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { STATIC_MEMORY_FILE_LIMIT, staticMemory } from '../../src/app/static.ts';
import { type AnyExpress, both } from './harness.ts';

async function site(): Promise<string> {
  const dir = await tempDir('velox-xstatic-');
  await mkdir(join(dir, 'css'));
  await mkdir(join(dir, 'docs'));
  await writeFile(join(dir, 'css', 'site.css'), 'body { color: red }\n');
  await writeFile(join(dir, 'app.js'), 'console.log(1);\n');
  await writeFile(join(dir, 'data.unknownext'), 'raw');
  await writeFile(join(dir, 'docs', 'index.html'), '<h1>docs</h1>');
  await writeFile(join(dir, '.env'), 'SECRET=1');
  await writeFile(join(dir, 'big.txt'), 'x'.repeat(STATIC_MEMORY_FILE_LIMIT + 10));
  return dir;
}

/** Waits until the memory holds `files` more files than `before` (the read after a miss is in the background). */
async function heldMore(before: number, files: number): Promise<void> {
  for (let i = 0; i < 100 && staticMemory().files < before + files; i++) await new Promise((r) => setTimeout(r, 10));
  expect(staticMemory().files).toBeGreaterThanOrEqual(before + files);
}

const OPTION_SETS: Array<[string, Record<string, unknown> | undefined]> = [
  ['defaults', undefined],
  ['maxAge as text, immutable', { maxAge: '1d', immutable: true }],
  ['maxAge in ms', { maxAge: 5500 }],
  ['no etag, no lastModified', { etag: false, lastModified: false }],
  ['no cacheControl, no acceptRanges', { cacheControl: false, acceptRanges: false }],
  ['setHeaders', { setHeaders: (res: any, path: string, stats: any) => res.setHeader('X-File', `${basename(path)} ${stats.size}`) }],
];

describe('express.static (memory for plain requests)', () => {
  for (const [label, options] of OPTION_SETS) {
    it(`answers as express@4 does, from disk and then from memory: ${label}`, async () => {
      const dir = await site();
      const pair = await both((ex: AnyExpress) => {
        const app = ex();
        app.use('/s', ex.static(dir, options));
        return app;
      });
      const before = staticMemory();
      for (const path of ['/s/css/site.css', '/s/app.js', '/s/data.unknownext']) await pair.same(path);
      await heldMore(before.files, 3);
      for (const path of ['/s/css/site.css', '/s/app.js', '/s/data.unknownext', '/s/css/site.css?v=2']) {
        await pair.same(path);
        await pair.same({ method: 'HEAD', path });
      }
      // Eight answers above came from memory.
      expect(staticMemory().hits - before.hits).toBe(8);
    });
  }

  it('serves a file changed or removed since it was read as express@4 does (never the old bytes)', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(ex.static(dir));
      return app;
    });
    const file = join(dir, 'css', 'site.css');
    const before = staticMemory();
    await pair.same('/css/site.css');
    await heldMore(before.files, 1);
    // Same size, new bytes and mtime.
    await writeFile(file, 'body { color: blu }\n');
    const now = new Date(Date.now() + 5000);
    await utimes(file, now, now);
    const changed = await pair.same('/css/site.css');
    expect(changed.body).toBe('body { color: blu }\n');
    // Another size.
    await writeFile(file, 'p { margin: 0 }');
    expect((await pair.same('/css/site.css')).body).toBe('p { margin: 0 }');
    // Removed: serve-static falls through, the final handler answers 404.
    await rm(file);
    expect((await pair.same('/css/site.css')).status).toBe(404);
    await writeFile(file, 'back');
    expect((await pair.same('/css/site.css')).body).toBe('back');
  });

  it('leaves conditional, ranged, odd and other-method requests to serve-static, as express@4 answers them', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(ex.static(dir));
      app.post('/app.js', (_req: any, res: any) => res.send('posted'));
      return app;
    });
    const before = staticMemory();
    const first = await pair.same('/app.js');
    await heldMore(before.files, 1);
    const hits = staticMemory().hits;
    // fetch adds Cache-Control: no-cache to a conditional request (so send answers 200): raw bytes for the 304.
    await pair.same({ path: '/app.js', headers: { 'if-none-match': first.headers.etag! } });
    const [theirs, ours] = await pair.raw(`GET /app.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${first.headers.etag}\r\n\r\n`);
    expect(theirs.startsWith('HTTP/1.1 304 Not Modified\r\n')).toBe(true);
    const lines = (text: string) => text.split('\r\n').map((l) => l.toLowerCase()).sort();
    expect(lines(ours)).toEqual(lines(theirs));
    await pair.same({ path: '/app.js', headers: { 'if-modified-since': first.headers['last-modified']! } });
    await pair.same({ path: '/app.js', headers: { 'if-match': '"nope"' } });
    expect((await pair.same({ path: '/app.js', headers: { range: 'bytes=0-3' } })).status).toBe(206);
    await pair.same({ path: '/app.js', headers: { range: 'bytes=900-' } });
    await pair.same({ method: 'POST', path: '/app.js' });
    await pair.same({ method: 'DELETE', path: '/app.js' });
    // fetch would resolve the dot segment itself: raw bytes.
    const [theirsDots, oursDots] = await pair.raw('GET /css/../app.js HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(lines(oursDots)).toEqual(lines(theirsDots));
    for (const path of ['/docs', '/docs/', '/.env', '/%61pp.js', '/app.js/', '//app.js', '/nothing.css', '/css/site.css%00']) {
      await pair.same(path);
    }
    expect(staticMemory().hits).toBe(hits);
  });

  it('hands options send refuses to serve-static on every request, even for a file in memory: its error reaches the error handlers, as on express@4', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use('/good', ex.static(dir));
      app.use('/dot', ex.static(dir, { dotfiles: 'sometimes' }));
      app.use('/index', ex.static(dir, { index: [1] }));
      app.use((err: any, _req: any, res: any, _next: any) => res.status(500).send(`${err.name}: ${err.message}`));
      return app;
    });
    const before = staticMemory();
    await pair.same('/good/app.js');
    await heldMore(before.files, 1);
    for (let i = 0; i < 2; i++) {
      for (const path of ['/dot/app.js', '/index/app.js']) expect((await pair.same(path)).status, path).toBe(500);
    }
    expect(staticMemory().hits).toBe(before.hits);
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
    });
    const before = staticMemory();
    await pair.same('/app.js');
    await heldMore(before.files, 1);
    throwNow = true;
    // Only Velox's answer: on Express the throw is an uncaught exception in send's stat callback.
    const res = await fetch(`${pair.velox}/app.js`);
    expect([res.status, await res.text()]).toEqual([500, 'caught: setHeaders failed']);
    expect(staticMemory().hits).toBe(before.hits + 1);
    throwNow = false;
    expect((await fetch(`${pair.velox}/app.js`)).status).toBe(200);
  });

  it('streams a file larger than the memory limit each time, as express@4 answers it', async () => {
    const dir = await site();
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.use(ex.static(dir));
      return app;
    });
    const before = staticMemory();
    for (let i = 0; i < 3; i++) expect((await pair.same('/big.txt')).body.length).toBe(STATIC_MEMORY_FILE_LIMIT + 10);
    await new Promise((r) => setTimeout(r, 50));
    expect(staticMemory().hits).toBe(before.hits);
    expect(staticMemory().bytes - before.bytes).toBeLessThan(STATIC_MEMORY_FILE_LIMIT);
    expect((await stat(join(dir, 'big.txt'))).size).toBe(STATIC_MEMORY_FILE_LIMIT + 10);
  });
});
