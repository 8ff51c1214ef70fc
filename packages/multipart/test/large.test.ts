/**
 * Large uploads streamed to disk: the server's memory while a client sends faster than the file
 * is written, with a server and a client in processes of their own (a client in the test's
 * process could not send while the server's process is busy, which hides what uWS does).
 *
 * uWS v20.51 reads past pause() for as long as each read fills its 512 KB buffer (core's
 * test/faults/uws-pause.test.ts). So backpressure holds only where the socket's receive buffer cannot
 * hold 512 KB: the first test gives the server its own network namespace with
 * net.ipv4.tcp_rmem's maximum at 512 KiB (the setting the READMEs document; it needs root, as the
 * project's machines and CI have), and the memory bound is the one uWS v20.30 gave everywhere.
 * The second test pins what happens with the machine's own settings.
 *
 * Pacing the client at a network rate instead (the first plan) tests nothing on these machines:
 * at 16 MB/s the server keeps up without pausing (the test passed with core's pause() removed),
 * and at 200 MB/s the client outran the server's copying of what uWS read past the pause (memory
 * the process never touched before is slow to get here: 33 to 60 MB/s), and RSS grew 400 MB.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseResponses, type Running, spawnProcess, tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { BOUNDARY, postHead } from './helpers.ts';

const MB = 1024 * 1024;
const cwd = new URL('..', import.meta.url).pathname;
/** uWS's read: a receive buffer of at most this much can never fill one. */
const SMALL_RCVBUF = 512 * 1024;

/** The server: writes the upload to `dir/upload.bin` and answers with what it saved and its RSS growth. */
function serverScript(dir: string): string {
  const core = new URL('../../core/src/index.ts', import.meta.url).pathname;
  const src = new URL('../src/index.ts', import.meta.url).pathname;
  return `
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
`;
}

/**
 * The client: sends a multipart body holding `size` bytes of the file `blocks` (13 blocks of
 * 1 MB, in turn: a chunk lost, doubled or out of place changes the saved file's hash) as fast as
 * the socket takes them, and prints the answer.
 */
function clientScript(head: string, tail: string): string {
  return `
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
const [port, size, blocksPath] = process.argv.slice(2).map((a, i) => (i < 2 ? Number(a) : a));
const all = readFileSync(blocksPath);
const MB = ${MB};
const count = all.length / MB;
const block = (i) => all.subarray((i % count) * MB, (i % count) * MB + Math.min(MB, size - i * MB));
const socket = connect(port, '127.0.0.1');
let i = 0;
let text = '';
const pump = () => {
  while (i * MB < size) if (!socket.write(block(i++))) return void socket.once('drain', pump);
  socket.write(${JSON.stringify(tail)});
};
socket.on('connect', () => {
  socket.write(${JSON.stringify(head)});
  pump();
});
socket.on('data', (d) => {
  text += d.toString('latin1');
  const end = text.indexOf('\\r\\n\\r\\n');
  const length = /content-length: (\\d+)/i.exec(text);
  if (end >= 0 && length && text.length >= end + 4 + Number(length[1])) {
    process.stdout.write('ANSWER ' + JSON.stringify(text) + '\\n');
    socket.destroy();
  }
});
`;
}

/**
 * Uploads `size` bytes to a server of its own and checks the saved file is the one sent; with
 * `smallRcvbuf`, server and client share a network namespace whose TCP receive buffers stay
 * under SMALL_RCVBUF. Resolves with the server's RSS growth.
 */
async function upload(size: number, { smallRcvbuf }: { smallRcvbuf: boolean }): Promise<number> {
  const dir = await tempDir();
  const blocks = randomBytes(13 * MB);
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="random.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  const length = Buffer.byteLength(head) + size + Buffer.byteLength(tail);
  await writeFile(join(dir, 'server.mts'), serverScript(dir));
  await writeFile(join(dir, 'client.mjs'), clientScript(postHead('/upload', length) + head, tail));
  await writeFile(join(dir, 'blocks.bin'), blocks);
  const node = [process.execPath, '--import', 'tsx', join(dir, 'server.mts')];
  const server = smallRcvbuf
    ? spawnProcess(
        'unshare',
        ['--net', '--', 'sh', '-c', `ip link set lo up && echo "4096 131072 ${SMALL_RCVBUF}" > /proc/sys/net/ipv4/tcp_rmem && exec "$@"`, 'sh', ...node],
        { cwd },
      )
    : spawnProcess(node[0]!, node.slice(1), { cwd });
  const port = (await server.waitFor(/port (\d+)/, 60_000))[1]!;
  const client: Running = spawnProcess(
    smallRcvbuf ? 'nsenter' : process.execPath,
    [...(smallRcvbuf ? [`--net=/proc/${server.pid}/ns/net`, '--', process.execPath] : []), join(dir, 'client.mjs'), port, String(size), join(dir, 'blocks.bin')],
    { cwd },
  );
  const [answer] = parseResponses(JSON.parse((await client.waitFor(/ANSWER (.*)\n/, 100_000))[1]!) as string);
  server.proc.kill('SIGTERM');
  await server.exited;
  expect(answer?.status).toBe(200);
  const result = JSON.parse(answer!.body) as { saved: Array<{ size: number }>; growth: number };
  expect(result.saved).toEqual([{ path: join(dir, 'upload.bin'), size }]);
  const sent = createHash('sha256');
  for (let i = 0; i * MB < size; i++) sent.update(blocks.subarray((i % 13) * MB, (i % 13) * MB + Math.min(MB, size - i * MB)));
  expect(await fileHash(join(dir, 'upload.bin'))).toBe(sent.digest('hex'));
  return result.growth;
}

function fileHash(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

describe('a large upload streamed to disk', () => {
  /**
   * About 1 GB: 990,000,000 bytes, so that the whole body stays under 1,000,000,000 bytes, the
   * largest Content-Length this uWS build reads (see the README). The growth measured 36 to 38 MB;
   * with core's pause() taken out, 505 MB.
   */
  it('keeps the server\'s RSS growth under 64 MB for a 990 MB file when the TCP receive buffer cannot hold 512 KB', { timeout: 120_000 }, async () => {
    expect(await upload(990_000_000, { smallRcvbuf: true })).toBeLessThan(64 * MB);
  });

  /**
   * With the machine's settings (net.ipv4.tcp_rmem up to 32 MB on the project's machines, 6 MB
   * by default on Linux) and a client faster than the server, as a proxy on the same host that
   * buffered the upload is (nginx does by default), uWS v20.51 may read the rest of the file at
   * once, past core's pause. Core keeps bodyBufferSize (8 MiB) of it in memory and the rest in a
   * temporary file (core's README: Backpressure on request bodies): before that, the growth
   * measured 144 to 380 MB for 256 to 400 MB files.
   */
  it('saves a 256 MB file from an unthrottled client whole, the RSS growing by under 64 MB', { timeout: 120_000 }, async () => {
    expect(await upload(256 * MB, { smallRcvbuf: false })).toBeLessThan(64 * MB);
  });
});
