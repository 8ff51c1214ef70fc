import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StaticErrorCodes, sendFile } from '../src/index.ts';
import { get, rawGet, server, tree } from './helpers.ts';

describe('sendFile', () => {
  async function setup() {
    const parent = await tree({ 'secret.txt': 'TOP SECRET', 'files/report.txt': 'report body', 'files/.env': 'X=1' });
    const root = join(parent, 'files');
    await symlink(join(parent, 'secret.txt'), join(root, 'link.txt'));
    const app = server();
    app.get('/by-root/*', (req, res) => sendFile(req, res, req.params['*'], { root, maxAge: 60_000 }));
    app.get('/download', async (req, res) => {
      res.set('content-disposition', 'attachment; filename="report.txt"');
      await sendFile(req, res, join(root, 'report.txt'));
    });
    app.get('/relative', (req, res) => sendFile(req, res, 'report.txt'));
    const { port } = await app.listen(0, '127.0.0.1');
    return { url: `http://127.0.0.1:${port}`, port, root };
  }

  it('sends a file with type, ETag, Last-Modified and Cache-Control, and honours conditionals and ranges', async () => {
    const { url } = await setup();
    const r = await get(`${url}/by-root/report.txt`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('report body');
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = r.headers.get('etag')!;
    expect((await get(`${url}/by-root/report.txt`, { 'if-none-match': etag })).status).toBe(304);
    const part = await get(`${url}/by-root/report.txt`, { range: 'bytes=0-5' });
    expect(part.status).toBe(206);
    expect(part.text).toBe('report');
  });

  it('keeps headers the route set (a download)', async () => {
    const { url } = await setup();
    const r = await get(`${url}/download`);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="report.txt"');
    expect(r.text).toBe('report body');
  });

  it('refuses paths that leave the root, symlinks out of it and dotfiles', async () => {
    const { port } = await setup();
    for (const [target, statuses] of [
      ['/by-root/../secret.txt', [403, 404]],
      ['/by-root/%2e%2e/secret.txt', [403, 404]],
      ['/by-root/..%2fsecret.txt', [403, 404]],
      ['/by-root/link.txt', [403]],
      ['/by-root/.env', [404]],
      ['/by-root/missing.txt', [404]],
    ] as const) {
      const r = await rawGet(port, target);
      expect(statuses).toContain(r.status);
      expect(r.body.toString()).not.toContain('TOP SECRET');
    }
  });

  it('refuses a .. segment in an absolute path with 403, and sets its headers option on the file answer only', async () => {
    const { url, root } = await setup();
    const app = server();
    app.get('/up', (req, res) => sendFile(req, res, `${root}/../secret.txt`));
    app.get('/headers/:name', (req, res) => sendFile(req, res, req.params.name, { root, headers: { 'x-file': 'yes' } }));
    const { port } = await app.listen(0, '127.0.0.1');
    const other = `http://127.0.0.1:${port}`;
    const up = await get(`${other}/up`);
    expect([up.status, JSON.parse(up.text).code]).toEqual([403, StaticErrorCodes.FORBIDDEN]);
    expect(up.text).not.toContain('TOP SECRET');
    expect((await get(`${other}/headers/report.txt`)).headers.get('x-file')).toBe('yes');
    const missing = await get(`${other}/headers/missing.txt`);
    expect([missing.status, missing.headers.get('x-file')]).toEqual([404, null]);
    expect((await get(`${url}/by-root/report.txt`)).status).toBe(200);
  });

  it('answers a relative path without root with a 500 (a programmer error), not a file', async () => {
    const { url } = await setup();
    const r = await get(`${url}/relative`);
    expect(r.status).toBe(500);
  });

  it('rejects with VELOX_ERR_STATIC_NOT_FOUND for a missing file', async () => {
    const root = await tree({});
    const app = server();
    let code: string | undefined;
    app.get('/x', async (req, res) => {
      try {
        await sendFile(req, res, 'nope.txt', { root });
      } catch (err) {
        code = (err as { code: string }).code;
        res.status(404).send('missing');
      }
    });
    const { port } = await app.listen(0, '127.0.0.1');
    expect((await get(`http://127.0.0.1:${port}/x`)).text).toBe('missing');
    expect(code).toBe(StaticErrorCodes.NOT_FOUND);
  });
});
