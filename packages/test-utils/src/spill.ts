/**
 * The harness of the request-body spill tests (core's body-spill tests, and the readers of
 * `@velox/fetch` and `@velox/express` that read through a spilled body): a client that uploads
 * as fast as its socket takes the bytes, a consumer that hashes slowly, and the server's
 * resident memory sampled in /proc. Nothing here needs a running test (core's spill-server
 * fixture, a child process, imports `@velox/test-utils/spill`).
 *
 * uWS reads past a pause only when a read fills its 512 KB buffer, which a new connection's small
 * receive buffer cannot: the uploads that need it first send a body to `/warm` on the same
 * connection (a route that keeps up), so that the kernel has grown the buffer by the time the body
 * under test comes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { parseResponses, type RawResponse } from './net.ts';

const MB = 1024 * 1024;

/** A body's size in bytes and its SHA-256 (hex): what the spill routes answer. */
export interface Digest {
  size: number;
  hash: string;
}

/**
 * The size and SHA-256 of `bytes` (a string as UTF-8): the answer expected from a route that
 * hashed the body it read.
 * @example
 * ```ts
 * const body = randomBytes(32 * 1024 * 1024);
 * expect(JSON.parse(answer.body)).toEqual(digest(body));
 * ```
 */
export function digest(bytes: Buffer | string): Digest {
  return { size: Buffer.byteLength(bytes), hash: createHash('sha256').update(bytes).digest('hex') };
}

/** A Writable that hashes what it is given; `result()` once it finished. */
export interface HashingSink extends Writable {
  /** The size and SHA-256 of everything written (call it once, after 'finish'). */
  result(): Digest;
}

/** Options of {@link slowSink}. */
export interface SlowSinkOptions {
  /** Stop after each this many bytes (default 1 MiB). */
  every?: number;
  /** How long to stop, in ms (default 10); a function is asked at each stop (0: do not stop). */
  pauseMs?: number | (() => number);
  /** The Writable's highWaterMark (default Node's, 16 KiB). */
  highWaterMark?: number;
}

/**
 * A slow consumer: a Writable that hashes what it gets and, after each `every` bytes, stops for
 * `pauseMs` before it takes more, so that the body arrives faster than it is read.
 * @example
 * ```ts
 * app.post('/slow', async (req, res) => {
 *   const sink = slowSink({ every: 1024 * 1024, pauseMs: 20 });
 *   await pipeline(req.stream(), sink);
 *   res.json(sink.result());
 * });
 * ```
 */
export function slowSink({ every = MB, pauseMs = 10, highWaterMark }: SlowSinkOptions = {}): HashingSink {
  if (!(Number.isInteger(every) && every > 0)) throw new Error(`slowSink: every must be a whole number of bytes over 0, not ${every}`);
  if (typeof pauseMs !== 'function' && !(Number.isFinite(pauseMs) && pauseMs >= 0)) {
    throw new Error(`slowSink: pauseMs must be a number of ms (0 or more) or a function, not ${pauseMs}`);
  }
  const pause = typeof pauseMs === 'function' ? pauseMs : () => pauseMs;
  const hash = createHash('sha256');
  let size = 0;
  let since = 0;
  const sink = new Writable({
    ...(highWaterMark === undefined ? {} : { highWaterMark }),
    write(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      since += chunk.length;
      if (since < every) return done();
      since -= every;
      const ms = pause();
      if (ms > 0) setTimeout(done, ms);
      else done();
    },
  });
  return Object.assign(sink, { result: () => ({ size, hash: hash.digest('hex') }) });
}

/** Options of {@link postAfterWarm}. */
export interface PostAfterWarmOptions {
  /** How many random bytes go to `/warm` first (default 32 MiB). */
  warm?: number;
  /** The body's Content-Type (default: none sent). */
  type?: string;
}

/**
 * POSTs `warm` random bytes to `/warm`, then, on the same connection once that is answered,
 * `body` to `path` with its Content-Length, written as fast as the socket takes it; resolves with
 * the second answer. The server needs a `/warm` route that reads its body and answers.
 * @example
 * ```ts
 * const body = randomBytes(32 * 1024 * 1024);
 * const answer = await postAfterWarm(port, '/slow', body, { type: 'application/octet-stream' });
 * expect(JSON.parse(answer.body)).toEqual(digest(body));
 * ```
 */
export function postAfterWarm(port: number, path: string, body: Buffer, { warm = 32 * MB, type }: PostAfterWarmOptions = {}): Promise<RawResponse> {
  if (!Buffer.isBuffer(body)) return Promise.reject(new Error('postAfterWarm: body must be a Buffer'));
  if (!(Number.isInteger(warm) && warm >= 0)) return Promise.reject(new Error(`postAfterWarm: warm must be a whole number of bytes, not ${warm}`));
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const warmBody = randomBytes(warm);
    const contentType = type === undefined ? '' : `Content-Type: ${type}\r\n`;
    let text = '';
    let sent = false;
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(`POST /warm HTTP/1.1\r\nHost: x\r\nContent-Length: ${warm}\r\n\r\n`), warmBody])));
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const answers = parseResponses(text);
      if (answers.length === 1 && !sent) {
        sent = true;
        socket.write(Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\n${contentType}Content-Length: ${body.length}\r\n\r\n`), body]));
      }
      if (answers.length === 2) {
        socket.destroy();
        resolve(answers[1]!);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed before the answer to POST ${path}; got ${JSON.stringify(text.slice(0, 300))}`)));
  });
}

/** 13 blocks of 1 MiB, made on first use: a chunk lost, doubled or out of place changes the hash. */
let blocks: Buffer[] | undefined;
function block(i: number, size: number): Buffer {
  blocks ??= Array.from({ length: 13 }, () => randomBytes(MB));
  return blocks[i % 13]!.subarray(0, Math.min(MB, size - i * MB));
}

const digests = new Map<number, Digest>();

/**
 * The size and SHA-256 of what {@link upload} sends for `size` bytes (the first `size` bytes of
 * its block sequence): the answer expected from a route that hashed the whole upload.
 * @example
 * ```ts
 * const answer = await upload(port, '/slow', 512 * 1024 * 1024).answer;
 * expect(JSON.parse(answer!.body)).toEqual(uploadDigest(512 * 1024 * 1024));
 * ```
 */
export function uploadDigest(size: number): Digest {
  let known = digests.get(size);
  if (known === undefined) {
    const h = createHash('sha256');
    for (let i = 0; i * MB < size; i++) h.update(block(i, size));
    digests.set(size, (known = { size, hash: h.digest('hex') }));
  }
  return { ...known };
}

/** Options of {@link upload}. */
export interface UploadOptions {
  /** `Transfer-Encoding: chunked` (one chunk per MiB block) instead of a Content-Length (default false). */
  chunked?: boolean;
  /** The last this many bytes wait until the test calls `socket.emit('go')` (default 0). */
  holdLast?: number;
  /** First, on the same connection, this many bytes to `/warm` (default 0: none). */
  warm?: number;
}

/** An upload under way. */
export interface Upload {
  socket: Socket;
  /** Bytes of the body written so far (the warm-up not counted). */
  sent: () => number;
  /** The answer to the upload, once whole; undefined when the connection ended without one. */
  answer: Promise<RawResponse | undefined>;
}

/**
 * POSTs `size` bytes of a block sequence (see {@link uploadDigest}) to `path`, as fast as the
 * socket takes them, with a Content-Length or chunked. `holdLast`: the last that many bytes wait
 * until the test calls `socket.emit('go')`. `warm`: first, on the same connection, that many
 * bytes to `/warm` (a reader that keeps up), so that the kernel has grown the connection's receive
 * buffer and holds megabytes of the body when uWS first reads it.
 * @example
 * ```ts
 * const sending = upload(port, '/slow', 256 * 1024 * 1024, { chunked: true, warm: 32 * 1024 * 1024 });
 * await until(() => sending.sent() > 64 * 1024 * 1024, 'a quarter sent');
 * sending.socket.resetAndDestroy();
 * ```
 */
export function upload(port: number, path: string, size: number, { chunked = false, holdLast = 0, warm = 0 }: UploadOptions = {}): Upload {
  for (const [name, value] of [
    ['size', size],
    ['holdLast', holdLast],
    ['warm', warm],
  ] as const) {
    if (!(Number.isInteger(value) && value >= 0)) throw new Error(`upload: ${name} must be a whole number of bytes, not ${value}`);
  }
  if (holdLast > size) throw new Error(`upload: holdLast (${holdLast}) is more than the size (${size})`);
  const socket = connect(port, '127.0.0.1');
  let sent = 0;
  // 'go' may come before the writing reaches the held bytes (while the socket is full): remembered.
  let go = false;
  socket.once('go', () => (go = true));
  const frame = (bytes: Buffer) => (chunked ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]) : bytes);
  const send = (to: string, total: number, hold: number, count: boolean) => {
    let i = 0;
    let held = false;
    const pump = () => {
      while (i * MB < total) {
        let bytes = block(i, total);
        const at = i * MB;
        if (hold > 0 && !held && at + bytes.length > total - hold) {
          held = true;
          bytes = bytes.subarray(0, total - hold - at);
          socket.write(frame(bytes));
          if (count) sent += bytes.length;
          const release = () => {
            const rest = block(i, total).subarray(bytes.length);
            i++;
            socket.write(frame(rest));
            if (count) sent += rest.length;
            pump();
          };
          if (go) release();
          else socket.once('go', release);
          return;
        }
        i++;
        if (count) sent += bytes.length;
        if (!socket.write(frame(bytes))) return void socket.once('drain', pump);
      }
      if (chunked) socket.write('0\r\n\r\n');
    };
    socket.write(`POST ${to} HTTP/1.1\r\nHost: x\r\n${chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${total}`}\r\n\r\n`);
    pump();
  };
  const wanted = warm > 0 ? 2 : 1;
  socket.on('connect', () => (warm > 0 ? send('/warm', warm, 0, false) : send(path, size, holdLast, true)));
  const answer = new Promise<RawResponse | undefined>((resolve) => {
    let text = '';
    let main = warm === 0;
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const responses = parseResponses(text);
      if (!main && responses.length === 1) {
        main = true;
        send(path, size, holdLast, true);
      }
      if (responses.length >= wanted) {
        resolve(responses[wanted - 1]);
        socket.destroy();
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(parseResponses(text)[wanted - 1]));
  });
  return { socket, sent: () => sent, answer };
}

/**
 * A process's resident memory (VmRSS in /proc/<pid>/status), in bytes. Throws when the process
 * is gone.
 * @example
 * ```ts
 * const before = rss(server.pid);
 * ```
 */
export function rss(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`process ${pid} has no resident memory to read (a zombie?)`);
  return Number(match[1]) * 1024;
}

/**
 * Samples a process's RSS every `everyMs` (default 20); `stop()` ends the sampling and returns
 * the peak seen (sampling stops quietly when the process ends).
 * @example
 * ```ts
 * const base = rss(server.pid);
 * const sampler = sampleRss(server.pid);
 * await upload(server.port, '/slow', 512 * 1024 * 1024).answer;
 * expect(sampler.stop() - base).toBeLessThan(64 * 1024 * 1024);
 * ```
 */
export function sampleRss(pid: number, everyMs = 20): { stop: () => number } {
  if (!(Number.isFinite(everyMs) && everyMs > 0)) throw new Error(`sampleRss: everyMs must be a number of ms over 0, not ${everyMs}`);
  let peak = rss(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rss(pid));
    } catch {
      // the process ended
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}
