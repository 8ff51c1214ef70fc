import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ErrorCodes, loadUws } from '@velox/core';
import { exitCode, parseResponses, rawConnection, run, sleep, start, tempDir, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MultipartErrorCodes } from '../src/index.ts';
import { BOUNDARY, formBody, listDir, openFds, postHead, server } from './helpers.ts';

/** The head of one file part, for bodies sent in pieces. */
const fileHead = (name = 'f', filename = 'upload.bin') =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;

describe('a client that leaves mid-upload', () => {
  it('rejects req.multipart() with VELOX_ERR_ABORTED, destroys the stream and removes the partial file', async () => {
    const dir = await tempDir();
    const app = await server();
    let writing!: () => void;
    const started = new Promise<void>((r) => {
      writing = r;
    });
    let failure: unknown;
    let stream: Readable | undefined;
    app.post('/upload', async (req, res) => {
      try {
        await req.multipart(async (part) => {
          if (!part.file) return;
          stream = part.file.stream;
          const write = part.write(join(dir, randomUUID()));
          writing();
          await write;
        });
      } catch (err) {
        failure = err;
      }
      if (!res.aborted) res.send('not reached');
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write(postHead('/upload', 5 * 1024 * 1024));
    await client.write(fileHead());
    await client.write(randomBytes(256 * 1024));
    await started;
    await until(async () => (await listDir(dir)).length === 1, 'the partial file');
    client.socket.destroy();
    await until(() => failure !== undefined, 'the rejection');
    expect(failure).toMatchObject({ code: ErrorCodes.ABORTED });
    expect(await listDir(dir)).toEqual([]);
    expect(stream?.destroyed).toBe(true);
  });

  it('rejects the iterator with VELOX_ERR_ABORTED while a loop reads a file stream', async () => {
    const app = await server();
    let failure: unknown;
    let received = 0;
    app.post('/import', async (req) => {
      try {
        for await (const part of req.parts()) {
          if (part.file) for await (const chunk of part.file.stream) received += chunk.length;
        }
      } catch (err) {
        failure = err;
      }
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write(postHead('/import', 5 * 1024 * 1024));
    await client.write(fileHead());
    await client.write(randomBytes(128 * 1024));
    await until(() => received > 0, 'the first bytes');
    client.socket.destroy();
    await until(() => failure !== undefined, 'the rejection');
    expect(failure).toMatchObject({ code: ErrorCodes.ABORTED });
  });

  it('leaves no file descriptor, file or memory behind after 200 uploads aborted mid-body', { timeout: 60_000 }, async () => {
    const dir = await tempDir();
    const app = await server();
    let started = 0;
    let aborted = 0;
    let other = 0;
    app.post('/upload', async (req, res) => {
      try {
        await req.multipart(async (part) => {
          if (!part.file) return;
          started++;
          await part.write(join(dir, randomUUID()));
        });
        res.send('complete');
      } catch (err) {
        if ((err as { code?: string }).code === ErrorCodes.ABORTED) aborted++;
        else other++;
      }
    });
    const { port } = await start(app);
    const upload = async () => {
      const client = await rawConnection(port);
      const before = started;
      await client.write(postHead('/upload', 2 * 1024 * 1024));
      await client.write(fileHead());
      await client.write(randomBytes(64 * 1024));
      await until(() => started > before, 'the upload to start');
      client.socket.destroy();
      await client.closed;
    };
    // Warm up (first-use allocations), then take the baseline.
    await upload();
    await until(() => aborted === 1, 'the warm-up abort');
    await until(async () => (await listDir(dir)).length === 0, 'the warm-up clean-up');
    const fds = openFds();
    const rss = process.memoryUsage().rss;
    for (let round = 0; round < 20; round++) await Promise.all(Array.from({ length: 10 }, upload));
    await until(() => aborted === 201, `every abort to be seen (${aborted})`, 20_000);
    expect(other).toBe(0);
    await until(async () => (await listDir(dir)).length === 0, 'the upload directory to be empty', 20_000);
    await until(() => openFds() <= fds, `open fds back to ${fds} (now ${openFds()})`, 20_000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('a handler that throws mid-upload', () => {
  it('lets the error handler answer, drops the rest of the body, and serves the next request on the connection', async () => {
    const app = await server();
    app.post('/upload', async (req, res) => {
      await req.multipart(async (part) => {
        if (!part.file) return;
        for await (const _ of part.file.stream) throw new Error('cannot store this');
      });
      res.send('not reached');
    });
    app.get('/next', (req, res) => res.send('next ok'));
    const { port } = await start(app);
    const client = await rawConnection(port);
    const body = formBody([{ name: 'f', filename: 'big.bin', body: randomBytes(3 * 1024 * 1024) }]);
    await client.write(postHead('/upload', body.length));
    await client.write(body);
    await client.until((t) => parseResponses(t).length === 1, 'the error answer');
    expect(parseResponses(client.text())[0]?.status).toBe(500);
    await client.write('GET /next HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await client.until((t) => parseResponses(t).length === 2, 'the second answer');
    expect(parseResponses(text)[1]).toMatchObject({ status: 200, body: 'next ok' });
    client.socket.destroy();
  });
});

describe('a middleware that answers before the upload is read', () => {
  it('answers 401 and keeps the connection usable', async () => {
    const app = await server();
    const requireUser = (req: { get(name: string): string | undefined }, res: { status(code: number): { json(v: unknown): void } }, next: () => void) => {
      if (req.get('authorization') !== 'Bearer ok') return res.status(401).json({ error: 'login first' });
      next();
    };
    app.post('/upload', requireUser, async (req, res) => {
      let size = 0;
      await req.multipart(async (part) => {
        if (part.file) for await (const chunk of part.file.stream) size += chunk.length;
      });
      res.json({ size });
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    const body = formBody([{ name: 'f', filename: 'a.bin', body: randomBytes(2 * 1024 * 1024) }]);
    await client.write(postHead('/upload', body.length));
    await client.write(body);
    await client.write(postHead('/upload', body.length, { extra: 'Authorization: Bearer ok\r\n' }));
    await client.write(body);
    const text = await client.until((t) => parseResponses(t).length === 2, 'both answers');
    const [first, second] = parseResponses(text);
    expect(first?.status).toBe(401);
    expect(second?.status).toBe(200);
    expect(JSON.parse(second!.body)).toEqual({ size: 2 * 1024 * 1024 });
    client.socket.destroy();
  });
});

describe('a 413 from a limit', () => {
  it('reaches Node fetch every time for a 20 MB upload over fileSize', { timeout: 60_000 }, async () => {
    const app = await server({ limits: { fileSize: 1024 * 1024 } });
    app.post('/upload', async (req, res) => {
      await req.multipart(async (part) => {
        if (part.file) for await (const _ of part.file.stream);
      });
      res.send('not reached');
    });
    const { url } = await start(app);
    const file = new Blob([new Uint8Array(20 * 1024 * 1024)]);
    const seen: Record<string, number> = {};
    for (let i = 0; i < 20; i++) {
      const data = new FormData();
      data.append('f', file, 'big.bin');
      let key: string;
      try {
        const r = await fetch(`${url}/upload`, { method: 'POST', body: data });
        key = `${r.status} ${((await r.json()) as { code: string }).code}`;
      } catch (err) {
        key = `error ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`;
      }
      seen[key] = (seen[key] ?? 0) + 1;
    }
    expect(seen).toEqual({ [`413 ${MultipartErrorCodes.FILE_TOO_LARGE}`]: 20 });
  });
});

describe('a body slower than uWS v20.51 accepts (about 16 KB/s)', () => {
  it('ends in VELOX_ERR_MULTIPART_TOO_SLOW on the server while the client sees the connection close without an answer', { timeout: 40_000 }, async () => {
    const app = await server();
    let failure: unknown;
    app.post('/upload', async (req) => {
      try {
        await req.multipart(async (part) => {
          if (part.file) for await (const _ of part.file.stream);
        });
      } catch (err) {
        failure = err;
      }
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write(postHead('/upload', 10 * 1024 * 1024));
    await client.write(fileHead());
    // 2 KB every 250 ms: 8 KB/s, under uWS's 16 KB/s (160 KB per 10 s, unchanged from v20.30).
    const trickle = setInterval(() => {
      if (!client.socket.destroyed) client.socket.write(Buffer.alloc(2048));
    }, 250);
    try {
      await Promise.race([client.closed, sleep(30_000).then(() => Promise.reject(new Error('uWS never cut the slow body')))]);
    } finally {
      clearInterval(trickle);
    }
    expect(client.text()).toBe('');
    await until(() => failure !== undefined, 'the rejection');
    expect(failure).toMatchObject({ code: MultipartErrorCodes.TOO_SLOW, status: 408 });
    expect((failure as { cause?: { code?: string } }).cause).toMatchObject({ code: ErrorCodes.ABORTED });
  });
  it('cannot be given more time: uWS v20.51 has no timeout setter on a response, and its module-level setTimeout is a stub', async () => {
    const uws = loadUws();
    const moduleSetTimeout = (uws as unknown as { setTimeout: (fn: () => void, ms: number) => unknown }).setTimeout;
    const fired: string[] = [];
    expect(moduleSetTimeout(() => fired.push('uws.setTimeout'), 10)).toBeUndefined();
    const members = await new Promise<string[]>((resolve) => {
      const app = uws.App().post('/*', (res) => {
        resolve(Object.getOwnPropertyNames(Object.getPrototypeOf(res)));
        res.onAborted(() => {});
        res.end('x');
      });
      app.listen('127.0.0.1', 0, (token) => {
        void fetch(`http://127.0.0.1:${uws.us_socket_local_port(token)}/`, { method: 'POST', body: 'x' })
          .then((r) => r.text())
          .finally(() => {
            uws.us_listen_socket_close(token);
            app.close();
          });
      });
    });
    expect(members.filter((name) => /timeout/i.test(name))).toEqual([]);
    await sleep(200);
    expect(fired).toEqual([]);
  });
});

describe('app.close() during an upload', () => {
  it('fails the upload and deletes its files before close() resolves', async () => {
    const dir = await tempDir();
    const app = await server();
    let failure: unknown;
    app.post('/upload', async (req) => {
      try {
        await req.multipart(async (part) => {
          if (part.file) await part.write(join(dir, randomUUID()));
        });
      } catch (err) {
        failure = err;
      }
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write(postHead('/upload', 5 * 1024 * 1024));
    await client.write(fileHead());
    await client.write(randomBytes(200 * 1024));
    await until(async () => (await listDir(dir)).length === 1, 'the file being written');
    await app.close({ timeout: 200 });
    expect(await listDir(dir)).toEqual([]);
    expect(failure).toBeDefined();
    await client.closed;
  });

  it('lets the process exit on its own afterwards', { timeout: 30_000 }, async () => {
    const dir = await tempDir();
    const script = join(dir, 'child.mts');
    const src = new URL('../src/index.ts', import.meta.url).pathname;
    const core = new URL('../../core/src/index.ts', import.meta.url).pathname;
    await writeFile(
      script,
      `
import { connect } from 'node:net';
import { Server } from ${JSON.stringify(core)};
import { multipart } from ${JSON.stringify(src)};
const app = new Server({ logger: false });
await app.register(multipart);
app.post('/upload', async (req, res) => {
  try {
    await req.multipart(async (part) => { if (part.file) await part.write(${JSON.stringify(dir)} + '/' + crypto.randomUUID()); });
    res.send('ok');
  } catch {}
});
const { port } = await app.listen(0, '127.0.0.1');
const data = new FormData();
data.append('f', new Blob(['x'.repeat(100000)]), 'a.bin');
await (await fetch('http://127.0.0.1:' + port + '/upload', { method: 'POST', body: data })).text();
// One upload left hanging mid-body when the server closes.
const socket = connect(port, '127.0.0.1');
socket.on('error', () => {});
socket.write('POST /upload HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: multipart/form-data; boundary=B\\r\\nContent-Length: 1000000\\r\\n\\r\\n--B\\r\\nContent-Disposition: form-data; name="f"; filename="b"\\r\\n\\r\\n' + 'y'.repeat(50000));
await new Promise((r) => setTimeout(r, 300));
await app.close({ timeout: 200 });
console.log('closed');
`,
    );
    const child = run(script, {}, { cwd: new URL('..', import.meta.url) });
    let closedAt = 0;
    child.proc.stdout!.on('data', () => {
      if (child.output().includes('closed') && closedAt === 0) closedAt = Date.now();
    });
    const code = await exitCode(child, 20_000);
    expect(child.output()).toContain('closed');
    expect(code).toBe(0);
    // Nothing (socket, timer, file) kept the event loop alive after close.
    expect(Date.now() - closedAt).toBeLessThan(5000);
    expect((await listDir(dir)).filter((name) => name !== 'child.mts').length).toBe(1); // the complete upload stays
  });
});
