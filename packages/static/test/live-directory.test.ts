import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { closeAfter, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { LiveDirectory, type LiveFile, StaticErrorCodes } from '../src/index.ts';
import { tree } from './helpers.ts';

describe('LiveDirectory', () => {
  it('holds every file that passes the filter, by path', async () => {
    const root = await tree({ 'email.html': '<p>hi</p>', 'notes.txt': 'no', 'sub/welcome.html': '<p>w</p>', '.hidden.html': 'h' });
    const views = closeAfter(new LiveDirectory(root, { filter: (path) => path.endsWith('.html'), settleTime: 0 }));
    await views.ready();
    const file = views.get('/email.html')!;
    expect(file.content.toString()).toBe('<p>hi</p>');
    expect(file).toMatchObject({ path: '/email.html', size: 9 });
    expect(file.etag).toMatch(/^"[\w-]+"$/);
    expect(file.mtime).toBeInstanceOf(Date);
    expect(views.get('sub/welcome.html')?.content.toString()).toBe('<p>w</p>');
    expect(views.get('/notes.txt')).toBeUndefined();
    expect(views.get('/.hidden.html')).toBeUndefined();
    expect(views.paths()).toEqual(['/email.html', '/sub/welcome.html']);
  });

  it("emits 'add', 'change' and 'delete' as files change on disk, and get() follows", async () => {
    const root = await tree({ 'a.html': 'one' });
    const views = closeAfter(new LiveDirectory(root, { settleTime: 50 }));
    await views.ready();
    const events: string[] = [];
    views.on('add', (file: LiveFile) => events.push(`add ${file.path}`));
    views.on('change', (file: LiveFile, previous: LiveFile) => events.push(`change ${file.path} ${previous.content} → ${file.content}`));
    views.on('delete', (previous: LiveFile) => events.push(`delete ${previous.path}`));
    await writeFile(join(root, 'b.html'), 'bee');
    await until(() => views.get('/b.html')?.content.toString() === 'bee', 'add', 15_000);
    await writeFile(join(root, 'a.html'), 'two');
    await until(() => views.get('/a.html')?.content.toString() === 'two', 'change', 15_000);
    await rm(join(root, 'b.html'));
    await until(() => views.get('/b.html') === undefined, 'delete', 15_000);
    await until(() => events.length === 3, 'events', 5000);
    expect(events).toEqual(['add /b.html', 'change /a.html one → two', 'delete /b.html']);
  });

  it('leaves out files bigger than maxFileSize', async () => {
    const root = await tree({ 'big.txt': 'x'.repeat(100), 'small.txt': 'x' });
    const views = closeAfter(new LiveDirectory(root, { maxFileSize: 10, watch: false }));
    await views.ready();
    expect(views.get('/big.txt')).toBeUndefined();
    expect(views.get('/small.txt')?.size).toBe(1);
  });

  it('keeps a snapshot with watch: false', async () => {
    const root = await tree({ 'a.txt': 'a' });
    const views = closeAfter(new LiveDirectory(root, { watch: false, settleTime: 0 }));
    await views.ready();
    await writeFile(join(root, 'a.txt'), 'changed');
    await new Promise((r) => setTimeout(r, 300));
    expect(views.get('/a.txt')?.content.toString()).toBe('a');
  });

  it('refuses a missing root and unknown events with VELOX_ERR_STATIC_INVALID_OPTION', async () => {
    const root = await tree({});
    expect(() => new LiveDirectory(join(root, 'nope'))).toThrowError(expect.objectContaining({ code: StaticErrorCodes.INVALID_OPTION }));
    const views = closeAfter(new LiveDirectory(root, { watch: false }));
    expect(() => views.on('explode' as 'add', () => {})).toThrowError(expect.objectContaining({ code: StaticErrorCodes.INVALID_OPTION }));
  });
});
