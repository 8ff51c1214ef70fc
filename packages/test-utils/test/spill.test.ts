import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { digest, later, postAfterWarm, rss, run, sampleRss, sleep, slowSink, until, upload, uploadDigest } from '../src/index.ts';

const MB = 1024 * 1024;

/** A node:http server on 127.0.0.1, closed after the test; resolves with its port. */
async function httpServer(listener: RequestListener): Promise<number> {
  const server = createServer(listener);
  later(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** Reads a request's body: its size, SHA-256 and the headers it came with. */
async function read(req: IncomingMessage): Promise<{ size: number; hash: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of req) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, hash: hash.digest('hex') };
}

/**
 * A server that records, per request, the connection it came on, its path and framing headers,
 * and answers the digest of its body.
 */
async function recordingServer(): Promise<{ port: number; seen: Array<{ socket: Socket; path: string; type?: string; length?: string; chunked: boolean }> }> {
  const seen: Array<{ socket: Socket; path: string; type?: string; length?: string; chunked: boolean }> = [];
  const port = await httpServer(async (req, res) => {
    seen.push({
      socket: req.socket,
      path: req.url!,
      type: req.headers['content-type'],
      length: req.headers['content-length'],
      chunked: req.headers['transfer-encoding'] === 'chunked',
    });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(await read(req)));
  });
  return { port, seen };
}

describe('digest()', () => {
  it('gives the size in bytes and the SHA-256 of a Buffer or a string (as UTF-8)', () => {
    expect(digest(Buffer.from('abc'))).toEqual({ size: 3, hash: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' });
    expect(digest('é')).toEqual({ size: 2, hash: createHash('sha256').update(Buffer.from('é')).digest('hex') });
  });
});

describe('slowSink()', () => {
  it('hashes what it gets and stops once per `every` bytes, asking pauseMs each time', async () => {
    const body = randomBytes(3 * MB + 123);
    let stops = 0;
    const sink = slowSink({
      every: MB,
      pauseMs: () => {
        stops++;
        return 1;
      },
      highWaterMark: 64 * 1024,
    });
    // 64 KiB chunks: 3 MiB and a bit make three stops.
    await pipeline(
      Readable.from((function* () {
        for (let at = 0; at < body.length; at += 64 * 1024) yield body.subarray(at, at + 64 * 1024);
      })()),
      sink,
    );
    expect(sink.result()).toEqual(digest(body));
    expect(stops).toBe(3);
    expect(sink.writableHighWaterMark).toBe(64 * 1024);
  });

  it('holds the next write back for pauseMs', async () => {
    const sink = slowSink({ every: 4, pauseMs: 200 });
    let second = false;
    sink.write(Buffer.from('abcd'));
    sink.write(Buffer.from('e'), () => (second = true));
    await sleep(50);
    // The first write reached `every`: the sink is stopped, the second waits.
    expect(second).toBe(false);
    await until(() => second, 'the second write');
    sink.end();
    await new Promise((resolve) => sink.on('finish', resolve));
    expect(sink.result()).toEqual(digest('abcde'));
  });

  it('refuses an every or pauseMs that is not one', () => {
    for (const every of [0, -1, 1.5, Number.NaN]) expect(() => slowSink({ every })).toThrow(/every must be a whole number of bytes over 0/);
    for (const pauseMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => slowSink({ pauseMs })).toThrow(/pauseMs must be a number of ms/);
  });
});

describe('postAfterWarm()', () => {
  it('POSTs warm bytes to /warm, then the body on the same connection, and resolves with the second answer', async () => {
    const { port, seen } = await recordingServer();
    const body = randomBytes(2 * MB);
    const answer = await postAfterWarm(port, '/body', body, { warm: MB, type: 'application/octet-stream' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(digest(body));
    expect(seen.map(({ path, type, length }) => ({ path, type, length }))).toEqual([
      { path: '/warm', type: undefined, length: String(MB) },
      { path: '/body', type: 'application/octet-stream', length: String(2 * MB) },
    ]);
    expect(seen[0]!.socket).toBe(seen[1]!.socket);
  });

  it('sends no Content-Type unless given one, and 32 MiB to /warm by default', async () => {
    const sizes: number[] = [];
    const port = await httpServer(async (req, res) => {
      const { size } = await read(req);
      sizes.push(size);
      res.end(req.headers['content-type'] ?? 'none');
    });
    const answer = await postAfterWarm(port, '/body', Buffer.from('hi'));
    expect(answer.body).toBe('none');
    expect(sizes).toEqual([32 * MB, 2]);
  });

  it('rejects a body that is not a Buffer, a bad warm size, and a connection closed before the answer', async () => {
    await expect(postAfterWarm(1, '/x', 'text' as unknown as Buffer)).rejects.toThrow(/body must be a Buffer/);
    await expect(postAfterWarm(1, '/x', Buffer.from('x'), { warm: -1 })).rejects.toThrow(/warm must be a whole number of bytes/);
    // A server that closes every connection once it has read the request head.
    const tcp = createTcpServer((socket) => {
      socket.once('data', () => socket.destroy());
      socket.on('error', () => {});
    });
    later(() => new Promise((resolve) => tcp.close(resolve)));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    await expect(postAfterWarm((tcp.address() as { port: number }).port, '/x', Buffer.from('x'), { warm: 10 })).rejects.toThrow(/connection closed before the answer to POST \/x/);
  });
});

describe('upload()', () => {
  it('sends the block sequence with a Content-Length, or chunked, and the answer is uploadDigest(size)', async () => {
    const { port, seen } = await recordingServer();
    const size = 5 * MB + 7;
    const plain = upload(port, '/plain', size);
    expect(JSON.parse((await plain.answer)!.body)).toEqual(uploadDigest(size));
    expect(plain.sent()).toBe(size);
    const chunked = upload(port, '/chunked', size, { chunked: true });
    expect(JSON.parse((await chunked.answer)!.body)).toEqual(uploadDigest(size));
    expect(seen.map(({ path, length, chunked: c }) => ({ path, length, chunked: c }))).toEqual([
      { path: '/plain', length: String(size), chunked: false },
      { path: '/chunked', length: undefined, chunked: true },
    ]);
  });

  it('repeats 13 different blocks of 1 MiB: a block out of place changes the digest', () => {
    const a = uploadDigest(14 * MB);
    expect(a.size).toBe(14 * MB);
    expect(uploadDigest(14 * MB)).toEqual(a);
    expect(uploadDigest(14 * MB - 1).hash).not.toBe(a.hash);
    expect(uploadDigest(MB).hash).not.toBe(uploadDigest(2 * MB).hash);
  });

  it('warms the connection with /warm first, and holds the last bytes until the test says go', async () => {
    const { port, seen } = await recordingServer();
    const size = 3 * MB;
    const sending = upload(port, '/held', size, { warm: 2 * MB, holdLast: 1000 });
    await until(() => sending.sent() === size - 1000, 'all but the held bytes');
    await sleep(100);
    // Nothing more goes out, and no answer comes, until 'go'.
    expect(sending.sent()).toBe(size - 1000);
    let answered = false;
    void sending.answer.then(() => (answered = true));
    await sleep(50);
    expect(answered).toBe(false);
    sending.socket.emit('go');
    const answer = await sending.answer;
    expect(JSON.parse(answer!.body)).toEqual(uploadDigest(size));
    expect(sending.sent()).toBe(size);
    expect(seen.map(({ path, length }) => ({ path, length }))).toEqual([
      { path: '/warm', length: String(2 * MB) },
      { path: '/held', length: String(size) },
    ]);
    expect(seen[0]!.socket).toBe(seen[1]!.socket);
  });

  it('resolves the answer undefined when the connection ends without one', async () => {
    const tcp = createTcpServer((socket) => {
      socket.once('data', () => socket.destroy());
      socket.on('error', () => {});
    });
    later(() => new Promise((resolve) => tcp.close(resolve)));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    expect(await upload((tcp.address() as { port: number }).port, '/x', MB).answer).toBeUndefined();
  });

  it('refuses sizes that are not whole numbers of bytes, and holding back more than the size', () => {
    expect(() => upload(1, '/x', -1)).toThrow(/size must be a whole number of bytes/);
    expect(() => upload(1, '/x', 1.5)).toThrow(/size must be a whole number of bytes/);
    expect(() => upload(1, '/x', 10, { warm: -5 })).toThrow(/warm must be a whole number of bytes/);
    expect(() => upload(1, '/x', 10, { holdLast: 11 })).toThrow(/holdLast \(11\) is more than the size \(10\)/);
  });
});

describe('rss() and sampleRss()', () => {
  it("reads a process's resident memory, and sampling keeps the peak a child reached", async () => {
    // The child says READY, fills 200 MiB when told (a line on stdin), holds it 100 ms, then drops it and says FREED.
    const child = run(
      {
        script: `
          console.log('READY');
          process.stdin.once('data', () => {
            let held = Buffer.alloc(200 * 1024 * 1024, 1);
            console.log('FILLED ' + held.length);
            setTimeout(() => { held = null; globalThis.gc(); console.log('FREED'); }, 100);
          });
        `,
      },
      {},
      { cwd: new URL('..', import.meta.url), node: ['--expose-gc'], stdin: 'pipe' },
    );
    await child.waitFor(/READY/);
    const base = rss(child.pid);
    const sampler = sampleRss(child.pid, 10);
    child.proc.stdin!.write('go\n');
    await child.waitFor(/FREED/);
    const peak = sampler.stop();
    expect(peak - base).toBeGreaterThan(150 * MB);
    child.proc.stdin!.end();
    expect(rss(process.pid)).toBeGreaterThan(MB);
  });

  it('throws for a process that is not there, and refuses a sampling period that is not one', async () => {
    const gone = run({ script: '' }, {}, { cwd: new URL('..', import.meta.url) });
    await gone.exited;
    expect(() => rss(gone.pid)).toThrow();
    expect(() => sampleRss(process.pid, 0)).toThrow(/everyMs must be a number of ms over 0/);
  });
});
