import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { parseResponses, type Running, run, tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { BOUNDARY, postHead } from './helpers.ts';

const MB = 1024 * 1024;
/**
 * About 1 GB: 990,000,000 bytes, so that the whole body stays under 1,000,000,000 bytes, the
 * largest Content-Length this uWS build reads (see the README). It takes a second or two.
 */
const SIZE = 990_000_000;

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

/** Streams a multipart body holding one file of `size` zero bytes, with backpressure; resolves with the answer. */
function uploadZeros(port: number, size: number): Promise<string> {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="zeros.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  const length = Buffer.byteLength(head) + size + Buffer.byteLength(tail);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const block = Buffer.alloc(MB);
    let sent = 0;
    let text = '';
    const pump = () => {
      while (sent < size) {
        const n = Math.min(block.length, size - sent);
        sent += n;
        if (!socket.write(n === block.length ? block : block.subarray(0, n))) return void socket.once('drain', pump);
      }
      socket.write(tail);
    };
    socket.on('connect', () => {
      socket.write(postHead('/upload', length) + head);
      pump();
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

describe('a large upload streamed to disk', () => {
  it('keeps the server\'s RSS growth under 64 MB for a 990 MB file', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    const { child, port } = await childServer(dir);
    try {
      const [answer] = parseResponses(await uploadZeros(port, SIZE));
      expect(answer?.status).toBe(200);
      const result = JSON.parse(answer!.body) as { saved: Array<{ size: number }>; growth: number };
      expect(result.saved).toEqual([{ path: join(dir, 'upload.bin'), size: SIZE }]);
      expect(result.growth).toBeLessThan(64 * MB);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
  });
});
