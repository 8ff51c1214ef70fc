import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listen, tempDir } from '@velox/test-utils';
import serveIndex from 'serve-index';
import serveStatic from 'serve-static';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

describe('serve-index', () => {
  it('lists a directory under a prefix as HTML (with links under the prefix), JSON and text, without dotfiles', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'a.txt'), 'a');
    await writeFile(join(dir, 'b.json'), '{}');
    await writeFile(join(dir, '.hidden'), 'x');
    await writeFile(join(dir, 'sub', 'c.txt'), 'c');
    const app = server();
    app.use('/files', serveStatic(dir), serveIndex(dir));
    const url = await listen(app);
    const html = await fetch(`${url}/files/`, { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await html.text();
    expect(page).toContain('<title>listing directory /files/</title>');
    for (const link of ['/files/a.txt', '/files/b.json', '/files/sub']) expect(page).toContain(`href="${link}"`);
    expect(page).not.toContain('.hidden');
    const json = await fetch(`${url}/files/`, { headers: { accept: 'application/json' } });
    expect(await json.json()).toEqual(['sub', 'a.txt', 'b.json']); // directories first
    const text = await fetch(`${url}/files/sub/`, { headers: { accept: 'text/plain' } });
    expect(await text.text()).toBe('c.txt\n');
    expect(await (await fetch(`${url}/files/a.txt`)).text()).toBe('a');
  });

  it('passes a file or a missing directory on to the next handler, and refuses paths outside the root', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.txt'), 'a');
    const app = server();
    app.use('/files', serveIndex(dir));
    app.get('/files/*', (req, res) => res.status(404).send('next'));
    const url = await listen(app);
    expect(await (await fetch(`${url}/files/missing/`)).text()).toBe('next');
    expect(await (await fetch(`${url}/files/a.txt`)).text()).toBe('next');
    const outside = await fetch(`${url}/files/..%2f..%2f`);
    expect(outside.status).not.toBe(200);
  });
});
