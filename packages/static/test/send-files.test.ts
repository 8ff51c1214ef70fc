import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodes, type Server, VeloxError } from '@velox/core';
import { parseResponses, raw, start } from '@velox/test-utils';
import { StaticErrorCodes, sendFiles } from '../src/index.ts';
import { server as quietServer } from './helpers.ts';

/** A quiet server with the sendFiles plugin (res.sendFile and res.download), closed after the test. */
function server(): Server {
  const app = quietServer();
  void app.register(sendFiles); // a plugin that is not async applies at once
  return app;
}

const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A real temporary directory holding these files (path → content), removed after the test. */
async function tree(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'velox-sendfile-'));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** Fetches without decompressing or following redirects: status, headers and body bytes. */
async function get(url: string, headers: Record<string, string> = {}, method = 'GET') {
  const r = await fetch(url, { redirect: 'manual', headers: { 'accept-encoding': 'identity', ...headers }, method });
  const body = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, body, text: body.toString() };
}

/** Polls until `check` holds (no fixed sleeps: the machine may be loaded). */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const REPORT = 'quarterly report body';

describe('res.sendFile', () => {
  async function setup(configure: (app: Server, dir: string) => void) {
    const dir = await tree({ 'report.txt': REPORT, 'page.html': '<p>hi</p>', 'data.bin': Buffer.from('0123456789') });
    const app = server();
    configure(app, dir);
    return { dir, ...(await start(app)) };
  }

  it('answers 200 with Content-Type, Content-Length, ETag, Last-Modified, Cache-Control and Accept-Ranges', async () => {
    const { url, dir } = await setup((app, dir) => {
      app.get('/report', (req, res) => res.sendFile(join(dir, 'report.txt')));
      app.get('/page', (req, res) => res.sendFile(join(dir, 'page.html')));
      app.get('/bin', (req, res) => res.sendFile(join(dir, 'data.bin')));
    });
    const r = await get(`${url}/report`);
    expect(r.status).toBe(200);
    expect(r.text).toBe(REPORT);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('content-length')).toBe(String(REPORT.length));
    expect(r.headers.get('etag')).toMatch(/^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    expect(r.headers.get('last-modified')).toBe(new Date((await stat(join(dir, 'report.txt'))).mtimeMs).toUTCString());
    expect(r.headers.get('cache-control')).toBe('public, max-age=0');
    expect(r.headers.get('accept-ranges')).toBe('bytes');
    expect((await get(`${url}/page`)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect((await get(`${url}/bin`)).headers.get('content-type')).toBe('application/octet-stream');
  });

  it('answers 304 to a matching If-None-Match or a later If-Modified-Since, with no body', async () => {
    const { url } = await setup((app, dir) => app.get('/report', (req, res) => res.sendFile(join(dir, 'report.txt'))));
    const first = await get(`${url}/report`);
    const etag = first.headers.get('etag')!;
    const byTag = await get(`${url}/report`, { 'if-none-match': etag });
    expect([byTag.status, byTag.text, byTag.headers.get('etag')]).toEqual([304, '', etag]);
    expect((await get(`${url}/report`, { 'if-none-match': `"other", ${etag}` })).status).toBe(304);
    const byDate = await get(`${url}/report`, { 'if-modified-since': first.headers.get('last-modified')! });
    expect(byDate.status).toBe(304);
    expect((await get(`${url}/report`, { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await get(`${url}/report`, { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
  });

  it('answers 412 VELOX_ERR_STATIC_PRECONDITION_FAILED when If-Match or If-Unmodified-Since does not hold', async () => {
    const { url } = await setup((app, dir) => app.get('/report', (req, res) => res.sendFile(join(dir, 'report.txt'))));
    const ifMatch = await get(`${url}/report`, { 'if-match': '"something-else"' });
    expect(ifMatch.status).toBe(412);
    expect(JSON.parse(ifMatch.text).code).toBe(StaticErrorCodes.PRECONDITION_FAILED);
    const unmodified = await get(`${url}/report`, { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' });
    expect(unmodified.status).toBe(412);
  });

  it('answers 206 with Content-Range for one range, and the whole file for several ranges of a file on disk', async () => {
    const { url } = await setup((app, dir) => app.get('/report', (req, res) => res.sendFile(join(dir, 'report.txt'))));
    const part = await get(`${url}/report`, { range: 'bytes=0-8' });
    expect(part.status).toBe(206);
    expect(part.text).toBe('quarterly');
    expect(part.headers.get('content-range')).toBe(`bytes 0-8/${REPORT.length}`);
    expect(part.headers.get('content-length')).toBe('9');
    const suffix = await get(`${url}/report`, { range: 'bytes=-4' });
    expect([suffix.status, suffix.text]).toEqual([206, 'body']);
    const several = await get(`${url}/report`, { range: 'bytes=0-1, 5-6' });
    expect([several.status, several.text]).toEqual([200, REPORT]);
    const malformed = await get(`${url}/report`, { range: 'bytes=5-2' });
    expect([malformed.status, malformed.text]).toEqual([200, REPORT]);
  });

  it('answers 416 VELOX_ERR_STATIC_RANGE_NOT_SATISFIABLE with Content-Range: bytes */size when no range fits', async () => {
    const { url } = await setup((app, dir) => app.get('/report', (req, res) => res.sendFile(join(dir, 'report.txt'))));
    const r = await get(`${url}/report`, { range: 'bytes=999999-' });
    expect(r.status).toBe(416);
    expect(r.headers.get('content-range')).toBe(`bytes */${REPORT.length}`);
    expect(JSON.parse(r.text).code).toBe(StaticErrorCodes.RANGE_NOT_SATISFIABLE);
  });

  it('applies If-Range only when it is exactly the Last-Modified date (the ETag of a file on disk is weak)', async () => {
    const { url } = await setup((app, dir) => app.get('/report', (req, res) => res.sendFile(join(dir, 'report.txt'))));
    const first = await get(`${url}/report`);
    const byDate = await get(`${url}/report`, { range: 'bytes=0-8', 'if-range': first.headers.get('last-modified')! });
    expect([byDate.status, byDate.text]).toEqual([206, 'quarterly']);
    const byWeakTag = await get(`${url}/report`, { range: 'bytes=0-8', 'if-range': first.headers.get('etag')! });
    expect([byWeakTag.status, byWeakTag.text]).toEqual([200, REPORT]);
    const old = await get(`${url}/report`, { range: 'bytes=0-8', 'if-range': 'Mon, 01 Jan 2001 00:00:00 GMT' });
    expect([old.status, old.text]).toEqual([200, REPORT]);
  });

  it('answers HEAD with the headers and Content-Length and no body', async () => {
    const { port, url } = await setup((app, dir) => app.get('/report', (req, res) => res.sendFile(join(dir, 'report.txt'))));
    // (One request per connection: uWS (v20.30 and v20.51) aborts a request that is pipelined behind an unfinished one.)
    const { text } = await raw(port, 'HEAD /report HTTP/1.1\r\nHost: x\r\n\r\n');
    const blank = text.indexOf('\r\n\r\n');
    expect(text.startsWith('HTTP/1.1 200 ')).toBe(true);
    expect(text.slice(blank + 4)).toBe(''); // no body after the head
    const head = text.slice(0, blank).toLowerCase();
    expect(head).toContain(`content-length: ${REPORT.length}\r\n`);
    expect(head).toContain('content-type: text/plain; charset=utf-8');
    expect(head).toMatch(/etag: w\/"/);
    const viaFetch = await get(`${url}/report`, {}, 'HEAD');
    expect([viaFetch.status, viaFetch.body.length, viaFetch.headers.get('content-length')]).toEqual([200, 0, String(REPORT.length)]);
  });

  it('answers 404 VELOX_ERR_STATIC_NOT_FOUND through the error handler for a missing file or a directory', async () => {
    const seen: string[] = [];
    const { url } = await setup((app, dir) => {
      app.get('/missing', (req, res) => res.sendFile(join(dir, 'nope.txt')));
      app.get('/dir', (req, res) => res.sendFile(dir));
      app.get('/under-file', (req, res) => res.sendFile(join(dir, 'report.txt', 'x')));
      app.setErrorHandler((err, req, res) => {
        seen.push((err as VeloxError).code);
        res.status((err as VeloxError).status).send(`handled ${(err as VeloxError).code}`);
      });
    });
    for (const path of ['/missing', '/dir', '/under-file']) {
      const r = await get(`${url}${path}`);
      expect([r.status, r.text], path).toEqual([404, `handled ${StaticErrorCodes.NOT_FOUND}`]);
    }
    expect(seen).toEqual([StaticErrorCodes.NOT_FOUND, StaticErrorCodes.NOT_FOUND, StaticErrorCodes.NOT_FOUND]);
  });

  it('refuses paths that leave root (.., encoded .., symlinks out of it) and .. in an absolute path, never sending the secret', async () => {
    const parent = await tree({ 'secret.txt': 'TOP SECRET', 'public/ok.txt': 'fine', 'public/sub/deep.txt': 'deep' });
    const root = join(parent, 'public');
    await symlink(join(parent, 'secret.txt'), join(root, 'link.txt'));
    const app = server();
    app.get('/files/*', (req, res) => res.sendFile(req.params['*'], { root }));
    app.get('/absolute', (req, res) => res.sendFile(`${root}/../secret.txt`));
    app.get('/param/:name', (req, res) => res.sendFile(req.params.name, { root }));
    const { url, port } = await start(app);
    expect((await get(`${url}/files/ok.txt`)).text).toBe('fine');
    expect((await get(`${url}/param/sub%2F..%2Fok.txt`)).text).toBe('fine'); // .. that stays inside the root is fine
    for (const [target, statuses] of [
      ['/files/../secret.txt', [403, 404]],
      ['/files/%2e%2e/secret.txt', [403]],
      ['/param/..%2Fsecret.txt', [403]],
      ['/param/..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd', [403]],
      ['/files/link.txt', [403]],
      ['/absolute', [403]],
    ] as const) {
      const { text } = await raw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const [r] = parseResponses(text);
      expect(statuses, target).toContain(r!.status);
      expect(text, target).not.toContain('TOP SECRET');
    }
    const forbidden = await get(`${url}/files/link.txt`);
    expect(JSON.parse(forbidden.text).code).toBe(StaticErrorCodes.FORBIDDEN);
  });

  it('answers 404, not 500, to a name longer than the file system allows and to a NUL byte in the path', async () => {
    const { url } = await setup((app, dir) => {
      app.get('/p/:name', (req, res) => res.sendFile(req.params.name, { root: dir }));
    });
    const long = await get(`${url}/p/${'a'.repeat(5000)}.txt`);
    expect([long.status, JSON.parse(long.text).code]).toEqual([404, StaticErrorCodes.NOT_FOUND]);
    const nul = await get(`${url}/p/report.txt%00.png`);
    expect([nul.status, JSON.parse(nul.text).code]).toEqual([404, StaticErrorCodes.NOT_FOUND]);
  });

  it("handles dotfiles: 'ignore' (default) answers 404, 'deny' 403, 'allow' sends; under root any segment counts, without root the file's own name", async () => {
    const parent = await tree({ '.hidden/site/.env': 'SECRET=1', '.hidden/site/.well-known/a.txt': 'well known', '.hidden/site/ok.txt': 'ok' });
    const root = join(parent, '.hidden', 'site');
    const app = server();
    app.get('/ignore/*', (req, res) => res.sendFile(req.params['*'], { root }));
    app.get('/deny/*', (req, res) => res.sendFile(req.params['*'], { root, dotfiles: 'deny' }));
    app.get('/allow/*', (req, res) => res.sendFile(req.params['*'], { root, dotfiles: 'allow' }));
    app.get('/absolute-env', (req, res) => res.sendFile(join(root, '.env')));
    app.get('/absolute-ok', (req, res) => res.sendFile(join(root, 'ok.txt')));
    const { url } = await start(app);
    // The root itself sits inside a dot directory: only what is below it is checked.
    expect((await get(`${url}/ignore/ok.txt`)).text).toBe('ok');
    const ignored = await get(`${url}/ignore/.env`);
    expect([ignored.status, JSON.parse(ignored.text).code]).toEqual([404, StaticErrorCodes.NOT_FOUND]);
    expect((await get(`${url}/ignore/.well-known/a.txt`)).status).toBe(404);
    const denied = await get(`${url}/deny/.env`);
    expect([denied.status, JSON.parse(denied.text).code]).toEqual([403, StaticErrorCodes.FORBIDDEN]);
    expect((await get(`${url}/deny/.well-known/a.txt`)).status).toBe(403);
    expect((await get(`${url}/allow/.env`)).text).toBe('SECRET=1');
    expect((await get(`${url}/allow/.well-known/a.txt`)).text).toBe('well known');
    expect((await get(`${url}/absolute-env`)).status).toBe(404);
    // An absolute path through dot directories (~/.nvm/…, a .hidden parent) is the program's own choice.
    expect((await get(`${url}/absolute-ok`)).text).toBe('ok');
  });

  it('takes maxAge (ms or a duration), immutable, cacheControl, lastModified, etag, acceptRanges and headers', async () => {
    const { url } = await setup((app, dir) => {
      const file = join(dir, 'report.txt');
      app.get('/cache', (req, res) => res.sendFile(file, { maxAge: 60_000, immutable: true }));
      app.get('/duration', (req, res) => res.sendFile(file, { maxAge: '1d' }));
      app.get('/plain', (req, res) => res.sendFile(file, { cacheControl: false, lastModified: false, etag: false, acceptRanges: false }));
      app.get('/headers', (req, res) => res.sendFile(file, { headers: { 'x-sent': 'yes', 'x-count': 2, 'cache-control': 'no-store' } }));
      app.get('/typed', (req, res) => res.type('application/x-report').sendFile(file));
      app.get('/set-headers', (req, res) =>
        res.sendFile(file, { setHeaders: (r, path, stats) => r.set('x-size', String(stats.size)).set('x-name', path.slice(-10)) }),
      );
    });
    expect((await get(`${url}/cache`)).headers.get('cache-control')).toBe('public, max-age=60, immutable');
    expect((await get(`${url}/duration`)).headers.get('cache-control')).toBe('public, max-age=86400');
    const plain = await get(`${url}/plain`, { range: 'bytes=0-1', 'if-modified-since': 'Tue, 01 Jan 2999 00:00:00 GMT' });
    expect([plain.status, plain.text]).toEqual([200, REPORT]);
    for (const name of ['cache-control', 'last-modified', 'etag', 'accept-ranges']) expect(plain.headers.get(name), name).toBeNull();
    const headers = await get(`${url}/headers`);
    expect([headers.headers.get('x-sent'), headers.headers.get('x-count'), headers.headers.get('cache-control')]).toEqual(['yes', '2', 'no-store']);
    expect((await get(`${url}/typed`)).headers.get('content-type')).toBe('application/x-report');
    const set = await get(`${url}/set-headers`);
    expect([set.headers.get('x-size'), set.headers.get('x-name')]).toEqual([String(REPORT.length), 'report.txt']);
  });

  it('keeps a status set before (a 404 page): the whole file, with no 304 or 206 for it', async () => {
    const { url } = await setup((app, dir) => {
      app.get('/not-found', (req, res) => res.status(404).sendFile(join(dir, 'page.html')));
    });
    const page = await get(`${url}/not-found`);
    expect([page.status, page.text, page.headers.get('content-type')]).toEqual([404, '<p>hi</p>', 'text/html; charset=utf-8']);
    const etag = page.headers.get('etag')!;
    const revalidated = await get(`${url}/not-found`, { 'if-none-match': etag, range: 'bytes=0-1' });
    expect([revalidated.status, revalidated.text]).toEqual([404, '<p>hi</p>']);
  });

  it('throws VELOX_ERR_STATIC_INVALID_OPTION at once for a relative path without root, an empty path or a bad option', async () => {
    const thrown: Array<[string, unknown]> = [];
    const { url } = await setup((app, dir) => {
      app.get('/bad/:which', (req, res) => {
        const which = req.params.which;
        try {
          if (which === 'relative') res.sendFile('report.txt');
          else if (which === 'empty') res.sendFile('');
          else if (which === 'max-age') res.sendFile(join(dir, 'report.txt'), { maxAge: 'soon' });
          else if (which === 'dotfiles') res.sendFile(join(dir, 'report.txt'), { dotfiles: 'hide' as 'deny' });
          else res.sendFile(42 as unknown as string);
        } catch (err) {
          thrown.push([which, (err as VeloxError).code]);
          throw err;
        }
      });
    });
    for (const which of ['relative', 'empty', 'max-age', 'dotfiles', 'number']) {
      const r = await get(`${url}/bad/${which}`);
      expect(r.status, which).toBe(500);
    }
    expect(thrown).toEqual(['relative', 'empty', 'max-age', 'dotfiles', 'number'].map((which) => [which, StaticErrorCodes.INVALID_OPTION]));
  });

  it('calls the callback with no argument once sent, and with the error (answering nothing itself) when it fails', async () => {
    const outcomes: Array<string> = [];
    const { url } = await setup((app, dir) => {
      app.get('/ok', (req, res) =>
        res.sendFile('report.txt', { root: dir }, (err) => {
          outcomes.push(err === undefined ? `ok finished=${res.finished}` : 'error');
        }),
      );
      app.get('/missing', (req, res) =>
        res.sendFile(join(dir, 'nope.txt'), (err) => {
          outcomes.push(`${(err as VeloxError).code} sent=${res.headersSent}`);
          res.status(410).send('gone for good');
        }),
      );
      app.get('/throws', (req, res) =>
        res.sendFile(join(dir, 'nope.txt'), () => {
          throw new VeloxError('APP_CALLBACK', 'callback failed', { status: 409 });
        }),
      );
    });
    expect((await get(`${url}/ok`)).text).toBe(REPORT);
    const missing = await get(`${url}/missing`);
    expect([missing.status, missing.text]).toEqual([410, 'gone for good']);
    const throws = await get(`${url}/throws`);
    expect([throws.status, JSON.parse(throws.text).code]).toEqual([409, 'APP_CALLBACK']);
    await until(() => outcomes.length >= 2, 'the callbacks');
    expect(outcomes).toEqual(['ok finished=true', `${StaticErrorCodes.NOT_FOUND} sent=false`]);
  });

  it('returns a promise that settles after the answer and never rejects', async () => {
    const settled: string[] = [];
    const { url } = await setup((app, dir) => {
      app.get('/ok', async (req, res) => {
        await res.sendFile(join(dir, 'report.txt'));
        settled.push(`ok finished=${res.finished}`);
      });
      app.get('/missing', async (req, res) => {
        await res.sendFile(join(dir, 'nope.txt'));
        settled.push(`missing finished=${res.finished}`);
      });
    });
    expect((await get(`${url}/ok`)).text).toBe(REPORT);
    expect((await get(`${url}/missing`)).status).toBe(404);
    await until(() => settled.length === 2, 'both promises');
    expect(settled).toEqual(['ok finished=true', 'missing finished=true']);
  });

  it('streams a file far larger than the in-memory threshold (512 KiB) whole, and a range from deep inside it', async () => {
    const big = randomBytes(3 * 1024 * 1024 + 123);
    const dir = await tree({ 'big.bin': big });
    const app = server();
    app.get('/big', (req, res) => res.sendFile(join(dir, 'big.bin')));
    const { url } = await start(app);
    const r = await get(`${url}/big`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-length')).toBe(String(big.length));
    expect(createHash('sha256').update(r.body).digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));
    const start2 = 2 * 1024 * 1024;
    const part = await get(`${url}/big`, { range: `bytes=${start2}-${start2 + 99_999}` });
    expect(part.status).toBe(206);
    expect(part.body.equals(big.subarray(start2, start2 + 100_000))).toBe(true);
  });

  it('calls the callback with VELOX_ERR_ABORTED when the client leaves mid-file, and the server goes on serving', async () => {
    const dir = await tree({ 'huge.bin': Buffer.alloc(24 * 1024 * 1024, 7), 'small.txt': 'still here' });
    const results: Array<string | undefined> = [];
    const app = server();
    app.get('/huge', (req, res) => res.sendFile(join(dir, 'huge.bin'), (err) => results.push(err ? (err as VeloxError).code : undefined)));
    app.get('/small', (req, res) => res.sendFile(join(dir, 'small.txt')));
    const { url, port } = await start(app);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /huge HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.once('data', () => {
        socket.destroy();
        resolve();
      });
      socket.on('error', reject);
    });
    await until(() => results.length === 1, 'the callback');
    expect(results).toEqual([ErrorCodes.ABORTED]);
    expect((await get(`${url}/small`)).text).toBe('still here');
  });

  it('lets the process exit on its own after app.close(), with files sent whole and cut short', async () => {
    const dir = await tree({ 'a.txt': 'A'.repeat(100), 'big.bin': Buffer.alloc(16 * 1024 * 1024, 1) });
    const script = `
      import { connect } from 'node:net';
      import { Server } from '@velox/core';
      import { sendFiles } from './src/index.ts';
      const app = new Server({ logger: false });
      await app.register(sendFiles);
      app.get('/a', (req, res) => res.sendFile(${JSON.stringify(join(dir, 'a.txt'))}));
      app.get('/big', (req, res) => res.download(${JSON.stringify(join(dir, 'big.bin'))}));
      const { port } = await app.listen(0, '127.0.0.1');
      const a = await fetch('http://127.0.0.1:' + port + '/a');
      console.log('a', (await a.text()).length);
      await new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.write('GET /big HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));
        socket.once('data', () => { socket.destroy(); resolve(); });
      });
      await app.close();
      console.log('closed');
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 30_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(out).toContain('a 100');
    expect(out).toContain('closed');
    expect(code).toBe(0);
  });
});

describe('res.download', () => {
  async function setup(configure: (app: Server, dir: string) => void) {
    const dir = await tree({ 'report.txt': REPORT, 'files/data.csv': 'a,b\n1,2\n' });
    const app = server();
    configure(app, dir);
    return { dir, ...(await start(app)) };
  }

  it('sends the file with Content-Disposition: attachment and its own name', async () => {
    const { url } = await setup((app, dir) => app.get('/d', (req, res) => res.download(join(dir, 'report.txt'))));
    const r = await get(`${url}/d`);
    expect(r.status).toBe(200);
    expect(r.text).toBe(REPORT);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename=report.txt');
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('etag')).toMatch(/^W\//);
  });

  it('names the download as asked, with an RFC 8187 filename* and an ASCII fallback for a non-ASCII name', async () => {
    const { url } = await setup((app, dir) => {
      app.get('/named', (req, res) => res.download(join(dir, 'report.txt'), 'Q3 summary.txt'));
      app.get('/unicode', (req, res) => res.download(join(dir, 'report.txt'), 'rapport-été-€.txt'));
      app.get('/path-name', (req, res) => res.download(join(dir, 'report.txt'), '../../etc/nice.txt'));
    });
    expect((await get(`${url}/named`)).headers.get('content-disposition')).toBe('attachment; filename="Q3 summary.txt"');
    const unicode = (await get(`${url}/unicode`)).headers.get('content-disposition');
    expect(unicode).toBe(`attachment; filename="rapport-?t?-?.txt"; filename*=UTF-8''rapport-%C3%A9t%C3%A9-%E2%82%AC.txt`);
    expect((await get(`${url}/path-name`)).headers.get('content-disposition')).toBe('attachment; filename=nice.txt');
  });

  it("takes Express's argument forms: options, root, headers (its own content-disposition wins), a callback", async () => {
    const outcomes: Array<string> = [];
    const { url } = await setup((app, dir) => {
      app.get('/root', (req, res) => res.download('data.csv', { root: join(dir, 'files') }));
      app.get('/options', (req, res) =>
        res.download(join(dir, 'report.txt'), 'r.txt', { headers: { 'x-kind': 'report', 'Content-Disposition': 'inline' }, maxAge: 1000 }),
      );
      app.get('/callback', (req, res) => res.download(join(dir, 'report.txt'), (err) => outcomes.push(err ? 'error' : 'sent')));
      app.get('/named-callback', (req, res) =>
        res.download(join(dir, 'missing.txt'), 'm.txt', (err) => {
          outcomes.push((err as VeloxError).code);
          res.status(404).send('no such report');
        }),
      );
    });
    const root = await get(`${url}/root`);
    expect([root.text, root.headers.get('content-disposition'), root.headers.get('content-type')]).toEqual([
      'a,b\n1,2\n',
      'attachment; filename=data.csv',
      'text/csv; charset=utf-8',
    ]);
    const options = await get(`${url}/options`);
    expect([options.headers.get('content-disposition'), options.headers.get('x-kind'), options.headers.get('cache-control')]).toEqual([
      'attachment; filename=r.txt',
      'report',
      'public, max-age=1',
    ]);
    expect((await get(`${url}/callback`)).text).toBe(REPORT);
    const missing = await get(`${url}/named-callback`);
    expect([missing.status, missing.text, missing.headers.get('content-disposition')]).toEqual([404, 'no such report', null]);
    await until(() => outcomes.length === 2, 'the callbacks');
    expect(outcomes).toEqual(['sent', StaticErrorCodes.NOT_FOUND]);
  });

  it('takes a relative path from the working directory, as Express does', async () => {
    const { url, dir } = await setup((app, dir) => app.get('/relative', (req, res) => res.download(relative(process.cwd(), join(dir, 'report.txt')))));
    expect(relative(process.cwd(), dir).startsWith('/')).toBe(false);
    const r = await get(`${url}/relative`);
    expect([r.status, r.text, r.headers.get('content-disposition')]).toEqual([200, REPORT, 'attachment; filename=report.txt']);
  });

  it('answers an error without Content-Disposition (the header goes out with the file only), with ranges and 304 as sendFile', async () => {
    const { url } = await setup((app, dir) => {
      app.get('/missing', (req, res) => res.download(join(dir, 'nope.txt')));
      app.get('/d', (req, res) => res.download(join(dir, 'report.txt')));
    });
    const missing = await get(`${url}/missing`);
    expect([missing.status, JSON.parse(missing.text).code, missing.headers.get('content-disposition')]).toEqual([404, StaticErrorCodes.NOT_FOUND, null]);
    const part = await get(`${url}/d`, { range: 'bytes=10-15' });
    expect([part.status, part.text, part.headers.get('content-disposition')]).toEqual([206, 'report', 'attachment; filename=report.txt']);
    const etag = (await get(`${url}/d`)).headers.get('etag')!;
    expect((await get(`${url}/d`, { 'if-none-match': etag })).status).toBe(304);
  });

  it('throws VELOX_ERR_STATIC_INVALID_OPTION at once for a path or file name that is not a string', async () => {
    const codes: unknown[] = [];
    const { url } = await setup((app, dir) =>
      app.get('/bad/:which', (req, res) => {
        try {
          if (req.params.which === 'path') res.download(undefined as unknown as string);
          else res.download(join(dir, 'report.txt'), 42 as unknown as string, {});
        } catch (err) {
          codes.push((err as VeloxError).code);
          throw err;
        }
      }),
    );
    expect((await get(`${url}/bad/path`)).status).toBe(500);
    expect((await get(`${url}/bad/name`)).status).toBe(500);
    expect(codes).toEqual([StaticErrorCodes.INVALID_OPTION, StaticErrorCodes.INVALID_OPTION]);
  });
});

describe('sendFile (the function behind res.sendFile)', () => {
  it("raises @velox/static's codes, the same as serveStatic's", async () => {
    const { sendFile } = await import('../src/index.ts');
    const dir = await tree({ 'a.txt': 'abc', '.env': 'X=1' });
    const app = quietServer();
    app.get('/f/:name', (req, res) => sendFile(req, res, req.params.name, { root: dir, dotfiles: 'deny' }));
    app.get('/relative', (req, res) => sendFile(req, res, 'a.txt', undefined));
    app.setErrorHandler((err, req, res) => res.status((err as VeloxError).status).json({ code: (err as VeloxError).code }));
    const { url } = await start(app);
    const code = async (path: string, headers: Record<string, string> = {}) => {
      const r = await get(`${url}${path}`, headers);
      return [r.status, JSON.parse(r.text).code];
    };
    expect(await code('/f/missing.txt')).toEqual([404, StaticErrorCodes.NOT_FOUND]);
    expect(await code('/f/.env')).toEqual([403, StaticErrorCodes.FORBIDDEN]);
    expect(await code('/f/a.txt', { 'if-match': '"x"' })).toEqual([412, StaticErrorCodes.PRECONDITION_FAILED]);
    expect(await code('/f/a.txt', { range: 'bytes=10-' })).toEqual([416, StaticErrorCodes.RANGE_NOT_SATISFIABLE]);
    expect(await code('/relative')).toEqual([500, StaticErrorCodes.INVALID_OPTION]);
    expect((await get(`${url}/f/a.txt`)).text).toBe('abc');
  });
});
