import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCodes } from '@velox/core';
import { parseResponses, type Running, raw, run, start, tempDir, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MultipartErrorCodes } from '../src/index.ts';
import { BOUNDARY, postHead, server } from './helpers.ts';

const MB = 1024 * 1024;
/** The file streamed to disk, quick to send at the pace below. */
const SIZE = 256 * MB;
/**
 * The RSS growth allowed: well under the file. Measured at this pace: 32 to 52 MB (the socket
 * buffer, the 512 KB chunks uWS reads, and the garbage they leave until the next GC). Sent as
 * fast as loopback takes it, the same upload grows the RSS by about the size of the file.
 */
const GROWTH_LIMIT = 96 * MB;
/**
 * The sender's pace: 256 KB, then a 4 ms pause (at most about 60 MB/s). uWS v20.51 reads on
 * after a pause while its reads fill its 512 KB buffer (core's test/uws-pause.test.ts): a sender
 * on loopback that writes as fast as the socket takes it keeps that buffer full, and most of the
 * body is read into memory while the disk is slow (a 1 GiB file grew the RSS by 420 MB, README).
 * At this pace the socket buffer is drained faster than it fills once reading resumes, so memory
 * is bounded by the socket buffer and the stages.
 */
const PACE = { bytes: 256 * 1024, ms: 4 };
const GIGABYTE_AND_ONE = 1_000_000_001;

/** Starts a server in its own process that writes uploads to `dir` and reports its RSS growth. */
async function childServer(dir: string): Promise<{ child: Running; port: number }> {
  const script = join(dir, 'server.mts');
  const core = new URL('../../core/src/index.ts', import.meta.url).pathname;
  const src = new URL('../src/index.ts', import.meta.url).pathname;
  await writeFile(
    script,
    `
import { Server } from ${JSON.stringify(core)};
import { multipart } from ${JSON.stringify(src)};
const app = new Server({ logger: false });
await app.register(multipart, { limits: { fileSize: Infinity } });
app.post('/upload', async (req, res) => {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sample = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
  const saved = [];
  try {
    await req.multipart(async (part) => { if (part.file) saved.push(await part.write(${JSON.stringify(dir)} + '/upload.bin')); });
  } finally {
    clearInterval(sample);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  res.json({ saved, growth: peak - base });
});
const { port } = await app.listen(0, '127.0.0.1');
process.stdout.write('port ' + port + '\\n');
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`,
  );
  const child = run(script, {}, { cwd: new URL('..', import.meta.url) });
  const port = Number((await child.waitFor(/port (\d+)/, 60_000))[1]);
  return { child, port };
}

/** Streams a multipart body holding one file of `size` zero bytes, at PACE and with backpressure; resolves with the answer. */
function uploadZeros(port: number, size: number): Promise<string> {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="zeros.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  const length = Buffer.byteLength(head) + size + Buffer.byteLength(tail);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const block = Buffer.alloc(PACE.bytes);
    let sent = 0;
    let text = '';
    const pump = async () => {
      while (sent < size && !socket.destroyed) {
        const n = Math.min(block.length, size - sent);
        sent += n;
        if (!socket.write(n === block.length ? block : block.subarray(0, n))) await new Promise((r) => socket.once('drain', r));
        await sleep(PACE.ms);
      }
      socket.write(tail);
    };
    socket.on('connect', () => {
      socket.write(postHead('/upload', length) + head);
      pump().catch(reject);
    });
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (parseResponses(text).length === 1) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
  });
}

describe('uploads of a gigabyte and more', () => {
  it('answers 413 VELOX_ERR_MULTIPART_BODY_TOO_LARGE to a body announced at 1,000,000,001 bytes, before reading it', async () => {
    const app = await server();
    app.post('/upload', async (req, res) => {
      await req.multipart(async () => {});
      res.send('read');
    });
    const { port } = await start(app);
    const { text } = await raw(port, postHead('/upload', GIGABYTE_AND_ONE), { quietMs: 500 });
    const [answer] = parseResponses(text, { partial: true });
    expect(answer?.status).toBe(413);
    expect(answer?.headers.connection).toBe('close');
    expect(JSON.parse(answer!.body)).toMatchObject({ code: MultipartErrorCodes.BODY_TOO_LARGE });
  });

  it('starts an upload announced at 1,000,000,001 bytes when no limit forbids it (uWS v20.51 reads a 10-digit Content-Length)', async () => {
    const app = await server({ limits: { fileSize: Infinity } });
    let received = 0;
    let failure: unknown;
    app.post('/upload', async (req, res) => {
      try {
        await req.multipart(async (part) => {
          if (part.file) for await (const chunk of part.file.stream) received += chunk.length;
        });
        res.send('whole');
      } catch (err) {
        failure = err;
      }
    });
    const { port } = await start(app);
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`;
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    // uWS v20.30 read at most 9 digits of Content-Length and closed this connection at once.
    socket.write(postHead('/upload', GIGABYTE_AND_ONE) + head);
    socket.write(Buffer.alloc(2 * MB));
    await until(() => received >= 2 * MB - 64 * 1024, 'the first 2 MB of the file');
    socket.destroy();
    await until(() => failure !== undefined, 'the upload to fail when the client leaves');
    expect(failure).toMatchObject({ code: ErrorCodes.ABORTED });
  });
});

describe('a large upload streamed to disk', () => {
  it('keeps the server\'s RSS growth under 96 MB for a 256 MB file sent at a steady pace', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    const { child, port } = await childServer(dir);
    try {
      const [answer] = parseResponses(await uploadZeros(port, SIZE));
      expect(answer?.status).toBe(200);
      const result = JSON.parse(answer!.body) as { saved: Array<{ size: number }>; growth: number };
      expect(result.saved).toEqual([{ path: join(dir, 'upload.bin'), size: SIZE }]);
      expect(result.growth).toBeLessThan(GROWTH_LIMIT);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
  });
});
