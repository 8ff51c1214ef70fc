/**
 * Request bodies past `bodyBufferSize` go to a temporary file (src/body-spill.ts): bounded memory
 * under a client that sends faster than the route reads, whatever uWS reads past a pause (see
 * uws-pause.test.ts), and every way such a body can end leaves no file and no descriptor.
 *
 * The server mostly runs in a process of its own (test/fixtures/spill-server.ts): its RSS is
 * measured from here, in /proc, while it takes the upload, and its descriptors are read in
 * /proc/<pid>/fd. The client is this process, writing as fast as its socket takes the bytes. The
 * readers' test (bodyBufferSize 0) and the options' run a server in this process. The upload
 * client, the RSS sampling and the warmed-up POST come from @velox/test-utils (src/spill.ts),
 * which the fetch and express spill tests use too.
 *
 * uWS reads past a pause only when a read fills its 512 KB buffer, which a new connection's
 * small receive buffer cannot: the tests that need it either upload long enough for the kernel
 * to grow the buffer, or first send 32 MiB on the same connection to a route that keeps up
 * (`warm`). Each checks that the file was used, so that none passes without testing it.
 *
 * VELOX_SPILL_TEST_MB sets the size of the large uploads (default 512, the size the issue pins).
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync, statfsSync, statSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  alive,
  eventually,
  get,
  postAfterWarm,
  type RawResponse,
  rss,
  runServer,
  sampleRss,
  sleep,
  spawnProcess,
  start,
  tempDir,
  until,
  upload,
  uploadDigest,
} from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { bodySpillStats, Server } from '../../src/index.ts';
import { server } from '../helpers.ts';

const MB = 1024 * 1024;
const FIXTURE = new URL('../fixtures/spill-server.ts', import.meta.url);
const CORE = new URL('../..', import.meta.url).pathname;
/** The large uploads' size: 512 MiB unless VELOX_SPILL_TEST_MB says otherwise. */
const LARGE = Number(process.env.VELOX_SPILL_TEST_MB ?? 512) * MB;

/** What the process's descriptors that are spill files point at (`<dir>/velox-body-… (deleted)`). */
function spillDescriptors(pid: number): Array<{ fd: string; target: string }> {
  const out: Array<{ fd: string; target: string }> = [];
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.includes('velox-body-')) out.push({ fd, target });
    } catch {
      // closed while we looked
    }
  }
  return out;
}

interface Stats {
  files: number;
  bytes: number;
  published: { open: number; write: number; written: number; close: number; closed: number };
}

async function stats(url: string): Promise<Stats> {
  return (await get(`${url}/stats`)).json() as Stats;
}

/** Starts the fixture server with these settings. */
function spillServer(env: Record<string, string> = {}) {
  return runServer(FIXTURE, env, { cwd: CORE });
}

/** Waits for the process to hold a spill file open, and returns its descriptors. */
function spilling(pid: number, ms = 20_000) {
  return eventually(() => {
    const open = spillDescriptors(pid);
    return open.length > 0 ? open : undefined;
  }, 'a spill file open in the server', ms);
}

/** Checks that the server holds no spill file, and still answers. */
async function clean(server: { pid: number; url: string }): Promise<void> {
  await until(() => spillDescriptors(server.pid).length === 0, 'no spill file open', 10_000);
  // The descriptor closes on libuv's pool; the count follows in the close callback, a moment later.
  await until(async () => (await stats(server.url)).files === 0, 'the spill count back to 0', 2_000);
  expect((await stats(server.url)).files).toBe(0);
  expect((await get(`${server.url}/ping`)).text).toBe('pong');
}

/** Uploads `size` bytes to a slow route; checks the answer and returns the server's RSS growth. */
async function slowUpload(server: { pid: number; port: number }, size: number, chunked: boolean): Promise<{ answer: RawResponse | undefined; growth: number }> {
  const base = rss(server.pid);
  const sampler = sampleRss(server.pid);
  const answer = await upload(server.port, '/slow', size, { chunked }).answer;
  return { answer, growth: sampler.stop() - base };
}

describe('request bodies past bodyBufferSize, with a slow consumer and a fast client', () => {
  it(`hands a ${LARGE / MB} MiB Content-Length upload over whole, the server's RSS growing by under 64 MiB`, { timeout: 60_000 }, async () => {
    const app = await spillServer();
    const { answer, growth } = await slowUpload(app, LARGE, false);
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body)).toEqual(uploadDigest(LARGE));
    expect(growth).toBeLessThan(64 * MB);
    const { files, bytes, published } = await stats(app.url);
    // It did spill (else this would test nothing), and the channels told each byte.
    expect(bytes).toBeGreaterThan(0);
    expect(files).toBe(0);
    expect(published.written).toBe(bytes);
    expect(published.closed).toBe(bytes);
    expect(published.open).toBe(published.close);
    await clean(app);
  });

  it(`hands a ${LARGE / MB} MiB chunked upload over whole, the server's RSS growing by under 64 MiB`, { timeout: 60_000 }, async () => {
    const app = await spillServer();
    const { answer, growth } = await slowUpload(app, LARGE, true);
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body)).toEqual(uploadDigest(LARGE));
    expect(growth).toBeLessThan(64 * MB);
    expect((await stats(app.url)).bytes).toBeGreaterThan(0);
    await clean(app);
  });

  it(`takes two ${LARGE / MB} MiB uploads at once (one of each framing), the server's RSS growing by under 96 MiB`, { timeout: 60_000 }, async () => {
    const app = await spillServer();
    const base = rss(app.pid);
    const sampler = sampleRss(app.pid);
    const answers = await Promise.all([upload(app.port, '/slow', LARGE).answer, upload(app.port, '/slow', LARGE, { chunked: true }).answer]);
    const growth = sampler.stop() - base;
    for (const answer of answers) {
      expect(answer?.status).toBe(200);
      expect(JSON.parse(answer!.body)).toEqual(uploadDigest(LARGE));
    }
    expect(growth).toBeLessThan(96 * MB);
    await clean(app);
  });

  it('never touches the disk for a consumer that keeps up', { timeout: 30_000 }, async () => {
    const app = await spillServer({ BODY_BUFFER_SIZE: String(MB) });
    const answer = await upload(app.port, '/drop', 64 * MB).answer;
    expect(JSON.parse(answer!.body)).toEqual({ size: 64 * MB });
    expect(await stats(app.url)).toMatchObject({ files: 0, bytes: 0, published: { open: 0, write: 0 } });
  });

  it('reads a body spilled before its reader came: a stream, and a buffered read', { timeout: 30_000 }, async () => {
    // bodyBufferSize 0: whatever uWS reads past the first pause goes to the file.
    const app = await spillServer({ BODY_BUFFER_SIZE: '0', WAIT_MS: '800', MAX_BODY_LENGTH: String(48 * MB) });
    const size = 16 * MB;
    for (const path of ['/slow', '/buffer']) {
      const before = (await stats(app.url)).bytes;
      // No reader for 0.8 s: 64 KiB queued, then uWS is paused and what it reads on goes to disk.
      const answer = await upload(app.port, path, size, { chunked: true, warm: 32 * MB }).answer;
      expect(answer?.status).toBe(200);
      expect(JSON.parse(answer!.body)).toEqual(uploadDigest(size));
      expect((await stats(app.url)).bytes).toBeGreaterThan(before);
    }
    await clean(app);
  });

  it("keeps a paused request's connection while its file is read back for longer than uWS's 10 s timeout", { timeout: 40_000 }, async () => {
    // The route reads 16 MiB, stops for 13 s, then reads the rest; the client holds its last
    // bytes back until then. uWS restarts its 10 s timer for the bytes it reads past the pause
    // (3 ticks of its 4 s clock: it fires 8 to 12 s later).
    const app = await spillServer({ BODY_BUFFER_SIZE: String(MB), STALL_MS: '13000' });
    const size = 96 * MB;
    const sending = upload(app.port, '/stall', size, { holdLast: 1024, warm: 32 * MB });
    await spilling(app.pid);
    await sleep(13_500);
    sending.socket.emit('go');
    const answer = await sending.answer;
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body)).toEqual(uploadDigest(size));
    await clean(app);
  });
});

describe('how a spilled body ends', () => {
  it('closes and frees the file when the client disconnects halfway, and serves on', { timeout: 30_000 }, async () => {
    const app = await spillServer({ BODY_BUFFER_SIZE: String(MB) });
    const sending = upload(app.port, '/slow', 256 * MB, { warm: 16 * MB });
    await spilling(app.pid);
    await until(() => sending.sent() > 64 * MB, 'a quarter of the body sent');
    sending.socket.resetAndDestroy();
    await clean(app);
    // The next upload is served whole.
    const answer = await upload(app.port, '/slow', 16 * MB).answer;
    expect(JSON.parse(answer!.body)).toEqual(uploadDigest(16 * MB));
  });

  it('ends a stream at its limit counting the bytes that wait unread on disk: 413, the file freed', { timeout: 30_000 }, async () => {
    // The route opens its stream at once but reads nothing for 1.5 s, then 1 MiB per 100 ms; the
    // client sends as fast as it can. The bytes uWS reads past the pause wait on disk, and count:
    // the limit ends the body before the route has read it. (Without the wait, a client slowed by
    // a busy machine let the route keep up and read exactly the limit once in CI.)
    const limit = 24 * MB;
    const app = await spillServer({ BODY_BUFFER_SIZE: String(MB), STREAM_LIMIT: String(limit), WAIT_MS: '1500', PACE_MS: '100' });
    const answer = await upload(app.port, '/limited', 256 * MB, { chunked: true, warm: 32 * MB }).answer;
    expect(answer?.status).toBe(413);
    expect(answer?.headers.connection).toBe('close');
    expect(JSON.parse(answer!.body)).toMatchObject({ code: 'VELOX_ERR_BODY_TOO_LARGE' });
    expect(Number((await app.waitFor(/READ (\d+)/))[1])).toBeLessThan(limit);
    const { bytes } = await stats(app.url);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(limit);
    await clean(app);
  });

  it('cuts a spilled upload at close() after its timeout, freeing the file before close() resolves', { timeout: 30_000 }, async () => {
    const app = await spillServer({ BODY_BUFFER_SIZE: String(MB), CLOSE_TIMEOUT: '300' });
    const sending = upload(app.port, '/slow', 256 * MB);
    await spilling(app.pid);
    app.proc.kill('SIGTERM');
    const [, after] = await app.waitFor(/CLOSED (.*)\n/, 10_000);
    expect(JSON.parse(after!)).toMatchObject({ files: 0 });
    expect(await sending.answer).toBeUndefined();
    expect((await app.exited).code).toBe(0);
  });

  it('answers 503 VELOX_ERR_BODY_SPILL when the directory cannot be written, and serves on', { timeout: 30_000 }, async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'file'), '');
    // A directory under a regular file: open() fails with ENOTDIR (root, which these tests run
    // as, ignores permission bits, so a chmod 0500 directory would not fail).
    const app = await spillServer({ BODY_BUFFER_SIZE: String(MB), BODY_TEMP_DIR: join(dir, 'file', 'tmp') });
    const answer = await upload(app.port, '/slow', 128 * MB).answer;
    expect(answer?.status).toBe(503);
    expect(answer?.headers.connection).toBe('close');
    expect(JSON.parse(answer!.body)).toMatchObject({ code: 'VELOX_ERR_BODY_SPILL' });
    await clean(app);
    expect(await readdir(dir)).toEqual(['file']);
  });

  it.skipIf(process.getuid?.() !== 0)('answers 507 VELOX_ERR_BODY_SPILL when the disk is full, leaving nothing written (a 4 MiB tmpfs; needs root)', { timeout: 30_000 }, async () => {
    const dir = await tempDir();
    // The server in a mount namespace of its own, with a 4 MiB tmpfs over `dir`: nothing to unmount after.
    const app = spawnProcess(
      'unshare',
      ['--mount', '--propagation', 'private', '--', 'sh', '-c', 'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$@"', dir, process.execPath, '--import', 'tsx', FIXTURE.pathname],
      { cwd: CORE, env: { BODY_BUFFER_SIZE: String(MB), BODY_TEMP_DIR: dir } },
    );
    const port = Number((await app.waitFor(/PORT (\d+)/))[1]);
    const url = `http://127.0.0.1:${port}`;
    const seen = `/proc/${app.pid}/root${dir}`;
    expect(statfsSync(seen).blocks * statfsSync(seen).bsize).toBe(4 * MB);
    const answer = await upload(port, '/slow', 128 * MB).answer;
    expect(answer?.status).toBe(507);
    expect(answer?.headers.connection).toBe('close');
    expect(JSON.parse(answer!.body)).toMatchObject({ code: 'VELOX_ERR_BODY_SPILL' });
    await clean({ pid: app.pid, url });
    // The tmpfs is empty again: the partial file went with its descriptor.
    expect(readdirSync(seen)).toEqual([]);
    expect(statfsSync(seen).bfree).toBe(statfsSync(seen).blocks);
    // And a body whose file fits is still taken through it (1 MiB in memory, at most 2 on disk).
    const next = await upload(port, '/slow', 3 * MB, { warm: 32 * MB }).answer;
    expect(JSON.parse(next!.body)).toEqual(uploadDigest(3 * MB));
    expect(readdirSync(seen)).toEqual([]);
  });
});

describe('every reader of a spilled body (bodyBufferSize: 0, in this process)', () => {
  it('for await, text() and json() get every byte in order, what waited in the file included', { timeout: 30_000 }, async () => {
    const app = server({ bodyBufferSize: 0, maxBodyLength: 64 * MB });
    const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
    app.post('/warm', async (req, res) => res.send(String((await req.buffer()).length)));
    // A slow reader: uWS is paused, and what it reads on goes to the file.
    app.post('/iterate', async (req, res) => {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of req) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
        await sleep(1);
      }
      res.json({ size, hash: hash.digest('hex') });
    });
    // No reader for 300 ms: the body waits (in the file), then is read back whole.
    app.post('/text', async (req, res) => {
      await sleep(300);
      const text = await req.text();
      res.json({ size: Buffer.byteLength(text), hash: sha(text) });
    });
    app.post('/json', async (req, res) => {
      await sleep(300);
      const list = (await req.json()) as string[];
      res.json({ size: list.length, hash: sha(list.join('')) });
    });
    const { port } = await start(app);
    const bytes = randomBytes(16 * MB);
    const text = bytes.toString('base64');
    const list = Array.from({ length: 120_000 }, (_, i) => bytes.subarray(i * 64, i * 64 + 64).toString('hex'));
    const cases: Array<[string, Buffer, string, unknown]> = [
      ['/iterate', bytes, 'application/octet-stream', { size: bytes.length, hash: sha(bytes) }],
      ['/text', Buffer.from(text), 'text/plain', { size: text.length, hash: sha(text) }],
      ['/json', Buffer.from(JSON.stringify(list)), 'application/json', { size: list.length, hash: sha(list.join('')) }],
    ];
    for (const [path, body, type, expected] of cases) {
      const before = bodySpillStats().bytes;
      const answer = await postAfterWarm(port, path, body, { type });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual(expected);
      expect(bodySpillStats().bytes, path).toBeGreaterThan(before);
    }
    await until(() => bodySpillStats().files === 0, 'every file closed');
  });
});

describe('the options', () => {
  it('refuses a bodyBufferSize, bodyTempDir or stream limit that is not one, saying what to write', async () => {
    for (const bad of [-1, 1.5, '8m', Number.NaN]) {
      expect(() => new Server({ bodyBufferSize: bad as number })).toThrow(/bodyBufferSize must be a whole number of bytes \(8388608 for 8 MiB\), or Infinity/);
    }
    for (const bad of ['', 3, 'a\0b']) {
      expect(() => new Server({ bodyTempDir: bad as string })).toThrow(/bodyTempDir must be a directory path/);
    }
    expect(new Server({ logger: false, bodyBufferSize: Infinity }).config).toBeDefined();
    const app = server();
    app.post('/limit', (req, res) => {
      try {
        req.stream({ limit: -1 });
        res.send('taken');
      } catch (err) {
        res.status(500).send((err as Error).message);
      }
    });
    const { url } = await start(app);
    const answer = await fetch(`${url}/limit`, { method: 'POST', body: 'x' });
    expect(await answer.text()).toMatch(/req.stream\(\{ limit \}\) takes a whole number of bytes/);
  });
});

describe('the spill files', () => {
  it('go in TMPDIR (os.tmpdir() read when a file is made), mode 0600, under a random name removed at once', { timeout: 30_000 }, async () => {
    const dir = await tempDir();
    const app = await spillServer({ BODY_BUFFER_SIZE: String(MB), TMPDIR: dir });
    const sending = upload(app.port, '/slow', 48 * MB, { warm: 16 * MB });
    const [open] = await spilling(app.pid);
    expect(open!.target).toMatch(new RegExp(`^${dir}/velox-body-${app.pid}-[0-9a-f]{32} \\(deleted\\)$`));
    expect(statSync(`/proc/${app.pid}/fd/${open!.fd}`).mode & 0o777).toBe(0o600);
    // The name went as soon as the file was made: the directory never shows it (tsx keeps its cache there).
    expect((await readdir(dir)).filter((name) => name.startsWith('velox-body-'))).toEqual([]);
    expect((await sending.answer)?.status).toBe(200);
    await clean(app);
  });

  it('listen() removes the files of processes that ended, and no others', async () => {
    const dir = await tempDir();
    const ended = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => ended.once('exit', resolve));
    const living = spawnProcess(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { cwd: CORE });
    const hex = () => randomBytes(16).toString('hex');
    const names = {
      ended: `velox-body-${ended.pid}-${hex()}`,
      mine: `velox-body-${process.pid}-${hex()}`,
      living: `velox-body-${living.pid}-${hex()}`,
      other: 'velox-body-notes.txt',
      unrelated: 'upload.bin',
    };
    expect(alive(ended.pid!)).toBe(false);
    for (const name of Object.values(names)) await writeFile(join(dir, name), 'x');
    await mkdir(join(dir, 'sub'));
    await start(server({ bodyTempDir: dir }));
    expect((await readdir(dir)).sort()).toEqual([names.living, names.other, names.unrelated, 'sub'].sort());
  });
});
