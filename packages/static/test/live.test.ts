import { spawn } from 'node:child_process';
import { appendFile, mkdir, open, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { get, serve, tree } from './helpers.ts';

describe('serveStatic watching', () => {
  it('shows added, changed and deleted files without a restart', async () => {
    const root = await tree({ 'a.txt': 'one' });
    const { url } = await serve(root, { settleTime: 50 });
    expect((await get(`${url}/assets/a.txt`)).text).toBe('one');
    await writeFile(join(root, 'new.txt'), 'new');
    await until(async () => (await get(`${url}/assets/new.txt`)).text === 'new', 'added file', 15_000);
    await writeFile(join(root, 'a.txt'), 'two!');
    await until(async () => (await get(`${url}/assets/a.txt`)).text === 'two!', 'changed file', 15_000);
    await rm(join(root, 'a.txt'));
    await until(async () => (await get(`${url}/assets/a.txt`)).status === 404, 'deleted file', 15_000);
    await mkdir(join(root, 'docs'));
    await writeFile(join(root, 'docs', 'index.html'), 'docs');
    await until(async () => (await get(`${url}/assets/docs/`)).text === 'docs', 'new index', 15_000);
    await rm(join(root, 'docs'), { recursive: true });
    await until(async () => (await get(`${url}/assets/docs/`)).status === 404, 'removed dir', 15_000);
  });

  it('serves a file replaced by a larger one while cached: old or new, whole, never a mix', async () => {
    const before = 'a'.repeat(1000);
    const after = 'B'.repeat(50_000);
    const root = await tree({ 'f.txt': before });
    const { url } = await serve(root, { settleTime: 50, compress: false });
    expect((await get(`${url}/assets/f.txt`)).text).toBe(before);
    // Written in place, in pieces.
    const handle = await open(join(root, 'f.txt'), 'w');
    for (let i = 0; i < 10; i++) await handle.write(after.slice(i * 5000, (i + 1) * 5000));
    await handle.close();
    let sawNew = false;
    await until(async () => {
      const r = await get(`${url}/assets/f.txt`);
      expect(r.status).toBe(200);
      expect([before, after]).toContain(r.text);
      expect(r.headers.get('content-length')).toBe(String(r.body.length));
      sawNew = r.text === after;
      return sawNew;
    }, 'the larger file', 15_000);
    expect(sawNew).toBe(true);
  });

  it('never serves a file half-written: a new file appears only once its writes settled', async () => {
    const root = await tree({});
    const { url } = await serve(root, { settleTime: 1000 });
    const full = Buffer.alloc(200_000, 'x');
    const path = join(root, 'slow.txt');
    const handle = await open(path, 'w');
    // Writes in small pieces with short pauses, checking the answer between them.
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++) {
      await handle.write(full.subarray(i * 10_000, (i + 1) * 10_000));
      const r = await get(`${url}/assets/slow.txt`);
      seen.add(r.status);
      if (r.status === 200) expect(r.body.length).toBe(full.length);
    }
    await handle.close();
    await until(async () => (await get(`${url}/assets/slow.txt`)).body.length === full.length, 'the settled file', 20_000);
    const done = await get(`${url}/assets/slow.txt`);
    expect(done.body.equals(full)).toBe(true);
    expect([...seen].every((s) => s === 404 || s === 200 || s === 503)).toBe(true);
  });

  it('keeps up with a burst of 1,000 changes on disk', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 500; i++) files[`d/f${i}.txt`] = `v0 ${i}`;
    const root = await tree(files);
    const { url, files: statics } = await serve(root, { settleTime: 50 });
    const writes: Array<Promise<void>> = [];
    for (let i = 0; i < 500; i++) writes.push(writeFile(join(root, 'd', `f${i}.txt`), `v1 ${i}`)); // 500 changes
    for (let i = 0; i < 500; i++) writes.push(writeFile(join(root, 'd', `n${i}.txt`), `new ${i}`)); // 500 adds
    await Promise.all(writes);
    await until(() => statics.stats().files === 1000, 'every add', 30_000);
    await until(async () => (await get(`${url}/assets/d/f499.txt`)).text === 'v1 499', 'the last change', 30_000);
    for (let i = 0; i < 500; i += 50) {
      expect((await get(`${url}/assets/d/f${i}.txt`)).text).toBe(`v1 ${i}`);
      expect((await get(`${url}/assets/d/n${i}.txt`)).text).toBe(`new ${i}`);
    }
  }, 60_000);

  it('indexes 10,000 files at start and serves each', async () => {
    const root = await tree({});
    for (let d = 0; d < 20; d++) {
      await mkdir(join(root, `dir${d}`));
      await Promise.all(Array.from({ length: 500 }, (_, i) => writeFile(join(root, `dir${d}`, `file${i}.txt`), `${d}/${i}`)));
    }
    const { url, files } = await serve(root);
    expect(files.stats().files).toBe(10_000);
    const paths = Array.from({ length: 10_000 }, (_, n) => [Math.floor(n / 500), n % 500] as const);
    for (let i = 0; i < paths.length; i += 40) {
      const batch = paths.slice(i, i + 40);
      const answers = await Promise.all(batch.map(([d, f]) => fetch(`${url}/assets/dir${d}/file${f}.txt`).then((r) => r.text())));
      for (let j = 0; j < answers.length; j++) expect(answers[j]).toBe(`${batch[j]![0]}/${batch[j]![1]}`);
    }
    expect(files.stats().cachedFiles).toBe(10_000);
  }, 90_000);

  it('serves the files found at start and no others with watch: false', async () => {
    const root = await tree({ 'a.txt': 'a' });
    const { url } = await serve(root, { watch: false });
    await writeFile(join(root, 'late.txt'), 'late');
    // Give a watcher (there is none) every chance; the index must not change.
    await new Promise((r) => setTimeout(r, 300));
    expect((await get(`${url}/assets/late.txt`)).status).toBe(404);
    expect((await get(`${url}/assets/a.txt`)).text).toBe('a');
  });

  it('finishes a download of a file deleted while a client reads it, then answers 404', async () => {
    const size = 8 * 1024 * 1024;
    const root = await tree({});
    await writeFile(join(root, 'big.bin'), Buffer.alloc(size, 3));
    const { port, url } = await serve(root, { cache: { maxFileSize: 1024, maxSize: 4096 }, settleTime: 50 });
    const received = await new Promise<number>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let bytes = 0;
      let deleted = false;
      socket.on('data', (chunk) => {
        bytes += chunk.length;
        if (!deleted && bytes > 256 * 1024) {
          deleted = true;
          socket.pause();
          rm(join(root, 'big.bin')).then(() => socket.resume(), reject);
        }
      });
      socket.on('end', () => resolve(bytes));
      socket.on('close', () => resolve(bytes));
      socket.on('error', reject);
      socket.write('GET /assets/big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    expect(received).toBeGreaterThan(size); // the whole body plus the head
    await until(async () => (await get(`${url}/assets/big.bin`)).status === 404, '404 after delete', 15_000);
  });

  it('streams a big file to a slow reader with backpressure: RSS stays flat', async () => {
    const size = 400 * 1024 * 1024;
    const root = await tree({});
    const path = join(root, 'huge.bin');
    await writeFile(path, '');
    await truncate(path, size); // sparse: no disk used
    // The server in a child process, so its RSS is its own.
    const script = `
      import { Server } from '@velox/core';
      import { serveStatic } from './src/index.ts';
      const app = new Server({ logger: false });
      const files = serveStatic(${JSON.stringify(root)}, { settleTime: 0 });
      app.use('/s', files);
      await files.ready();
      const { port } = await app.listen(0, '127.0.0.1');
      process.stdout.write('PORT ' + port + '\\n');
      process.stdin.on('data', () => { global.gc?.(); process.stdout.write('RSS ' + process.memoryUsage().rss + '\\n'); });
      process.stdin.on('end', () => app.close().then(() => process.exit(0)));
    `;
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '..'),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    let pending = '';
    child.stdout.on('data', (d) => {
      pending += d;
      const parts = pending.split('\n');
      pending = parts.pop()!;
      lines.push(...parts);
    });
    const next = async (prefix: string) => {
      await until(() => lines.some((l) => l.startsWith(prefix)), prefix, 30_000);
      const i = lines.findIndex((l) => l.startsWith(prefix));
      return Number(lines.splice(i, 1)[0]!.split(' ')[1]);
    };
    try {
      const port = await next('PORT');
      child.stdin.write('x');
      const rssBefore = await next('RSS');
      // A reader that takes 64 KB at a time and stops after 64 MB: the server must not buffer the rest.
      const socket = connect(port, '127.0.0.1');
      let got = 0;
      socket.on('data', (chunk) => {
        got += chunk.length;
        socket.pause();
        setTimeout(() => socket.resume(), 1);
      });
      socket.write('GET /s/huge.bin HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => got > 64 * 1024 * 1024, '64 MB read', 60_000);
      socket.pause();
      await new Promise((r) => setTimeout(r, 300));
      child.stdin.write('x');
      const rssDuring = await next('RSS');
      socket.destroy();
      // Had the file been buffered, RSS would grow by hundreds of MB.
      expect(rssDuring - rssBefore).toBeLessThan(64 * 1024 * 1024);
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
  }, 120_000);

  it('serves appended bytes only after the file settled again', async () => {
    const root = await tree({ 'log.txt': 'line 1\n' });
    const { url } = await serve(root, { settleTime: 50, compress: false });
    expect((await get(`${url}/assets/log.txt`)).text).toBe('line 1\n');
    await appendFile(join(root, 'log.txt'), 'line 2\n');
    await until(async () => (await get(`${url}/assets/log.txt`)).text === 'line 1\nline 2\n', 'appended', 15_000);
  });

  it('picks up a file replaced by rename (atomic write)', async () => {
    const root = await tree({ 'x.json': '{"v":1}' });
    const { url } = await serve(root, { settleTime: 50 });
    expect((await get(`${url}/assets/x.json`)).text).toBe('{"v":1}');
    await writeFile(join(root, 'x.json.tmp'), '{"v":2}');
    await rename(join(root, 'x.json.tmp'), join(root, 'x.json'));
    await until(async () => (await get(`${url}/assets/x.json`)).text === '{"v":2}', 'renamed file', 15_000);
  });
});
