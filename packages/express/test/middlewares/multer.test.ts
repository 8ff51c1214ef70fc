import { readFile } from 'node:fs/promises';
import { listen, tempDir } from '@velox/test-utils';
import multer from 'multer';
import type { Middleware } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

declare module '@velox/core' {
  interface Request {
    file?: Express.Multer.File;
    files?: Express.Multer.File[] | Record<string, Express.Multer.File[]>;
  }
}

function form(fields: Record<string, string>, files: Array<{ field: string; name: string; type: string; content: string | Uint8Array }>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const file of files) data.append(file.field, new Blob([file.content], { type: file.type }), file.name);
  return data;
}

describe('multer', () => {
  it('memory storage: puts the file in req.file.buffer and the text fields in req.body', async () => {
    const app = server();
    const upload = multer({ storage: multer.memoryStorage() });
    // Typed for Express's req and res: route methods want a Velox Middleware, hence the cast (use() takes them as they are).
    app.post('/avatar', upload.single('avatar') as Middleware<any, any>, (req, res) =>
      res.json({
        body: { ...(req.body as object) },
        file: { field: req.file!.fieldname, name: req.file!.originalname, type: req.file!.mimetype, size: req.file!.size, text: req.file!.buffer.toString() },
      }),
    );
    const url = await listen(app);
    const r = await fetch(`${url}/avatar`, { method: 'POST', body: form({ user: 'ada' }, [{ field: 'avatar', name: 'me.png', type: 'image/png', content: 'PNGDATA' }]) });
    expect(await r.json()).toEqual({ body: { user: 'ada' }, file: { field: 'avatar', name: 'me.png', type: 'image/png', size: 7, text: 'PNGDATA' } });
  });

  it('disk storage: writes several files to the destination, with their paths in req.files', async () => {
    const dir = await tempDir();
    const app = server();
    const upload = multer({ dest: dir });
    app.post('/photos', upload.array('photos', 3) as Middleware<any, any>, async (req, res) => {
      const files = req.files as Express.Multer.File[];
      res.json(await Promise.all(files.map(async (f) => ({ name: f.originalname, inDir: f.path.startsWith(dir), content: await readFile(f.path, 'utf8') }))));
    });
    const url = await listen(app);
    const body = form({}, [
      { field: 'photos', name: 'a.txt', type: 'text/plain', content: 'first' },
      { field: 'photos', name: 'b.txt', type: 'text/plain', content: 'second' },
    ]);
    expect(await (await fetch(`${url}/photos`, { method: 'POST', body })).json()).toEqual([
      { name: 'a.txt', inDir: true, content: 'first' },
      { name: 'b.txt', inDir: true, content: 'second' },
    ]);
  });

  it('answers errors for a file over fileSize and an unexpected field, and the connection serves the next request', async () => {
    const app = server();
    const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: 10 } });
    app.post('/one', upload.single('doc') as Middleware<any, any>, (req, res) => res.send('stored'));
    app.use((err: any, req: any, res: any, next: any) => res.status(err.code === 'LIMIT_FILE_SIZE' ? 413 : 400).json({ code: err.code, field: err.field }));
    const url = await listen(app);
    const big = await fetch(`${url}/one`, { method: 'POST', body: form({}, [{ field: 'doc', name: 'big.bin', type: 'application/octet-stream', content: 'x'.repeat(5000) }]) });
    expect([big.status, await big.json()]).toEqual([413, { code: 'LIMIT_FILE_SIZE', field: 'doc' }]);
    const unexpected = await fetch(`${url}/one`, { method: 'POST', body: form({}, [{ field: 'other', name: 'a.txt', type: 'text/plain', content: 'a' }]) });
    expect([unexpected.status, await unexpected.json()]).toEqual([400, { code: 'LIMIT_UNEXPECTED_FILE', field: 'other' }]);
    const ok = await fetch(`${url}/one`, { method: 'POST', body: form({}, [{ field: 'doc', name: 'a.txt', type: 'text/plain', content: 'small' }]) });
    expect(await ok.text()).toBe('stored');
  });

  it('answers a truncated multipart body with an error instead of hanging', async () => {
    const app = server();
    app.post('/one', multer().single('doc') as Middleware<any, any>, (req, res) => res.send('stored'));
    app.use((err: any, req: any, res: any, next: any) => res.status(400).json({ message: err.message }));
    const url = await listen(app);
    const r = await fetch(`${url}/one`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
      body: '--XYZ\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\n\r\nhalf a file',
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toMatch(/Unexpected end of form/i);
  });
});
