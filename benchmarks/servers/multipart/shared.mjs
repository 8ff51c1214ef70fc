// What the multipart suite's servers, its probe client and suites/multipart.mjs share.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const BOUNDARY = 'VeloxBench7MA4YWxkTrZu0gW';
export const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
/** The `upload` scenario's file: 1 MiB of pseudo-random bytes (the same every run). */
export const FILE_SIZE = 1024 * 1024;
export const FIELDS = { title: 'benchmark', note: 'two small fields and one file' };
/** What every server answers to the `upload` body. */
export const EXPECTED = { file: FILE_SIZE, fields: Object.keys(FIELDS).length };

/** The probe: a file streamed to disk. 990 MB keeps the body under 10^9 bytes, the largest Content-Length uWS v20.30 reads. */
export const PROBE = 'upload-1gb';
export const PROBE_SIZE = 990_000_000;

/**
 * The slow-consumer probe (issue 45): a 512 MiB file in one multipart body, sent by a client on
 * the same host as fast as its socket takes it, to a route whose file consumer takes 1 MiB per
 * 20 ms (50 MiB/s, a slow disk or a remote store); with Content-Length and chunked.
 */
export const SLOW_PROBE = 'upload-slow-consumer';
export const SLOW_SIZE = 512 * 1024 * 1024;
export const SLOW_STEP = 1024 * 1024;
export const SLOW_STEP_MS = 20;

/**
 * The slow consumer: resolves with the bytes of `stream` once read, taking SLOW_STEP bytes per
 * SLOW_STEP_MS (the same code for every framework: only the stream it is given differs).
 */
export async function consumeSlowly(stream) {
  let size = 0;
  let since = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    since += chunk.length;
    while (since >= SLOW_STEP) {
      since -= SLOW_STEP;
      await new Promise((resolve) => setTimeout(resolve, SLOW_STEP_MS));
    }
  }
  return size;
}

/** Limits high enough for every framework to take the probe's file. */
export const MAX_FILE = 2 * 1024 * 1024 * 1024;

/** The `upload` scenario's body, byte for byte (the file `size` bytes long). */
export function uploadBody(size = FILE_SIZE) {
  const parts = [];
  for (const [name, value] of Object.entries(FIELDS)) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="data.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`));
  parts.push(pseudoRandomBytes(size), Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

/** `size` reproducible bytes that look random to a boundary search (zeros would let it skip ahead): xorshift32. */
export function pseudoRandomBytes(size) {
  const file = Buffer.alloc(size + 3);
  let x = 0x9e3779b9;
  for (let i = 0; i < size; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    file.writeUInt32LE(x >>> 0, i);
  }
  return file.subarray(0, size);
}

/** Writes an `upload` body to `file` (under benchmarks/.runs/, not committed) and returns its path. */
export function writeUploadBody(file, size = FILE_SIZE) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, uploadBody(size));
  return file;
}

/** The head of the probe's body (one file part) and its tail. */
export function probeFraming() {
  return {
    head: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    tail: `\r\n--${BOUNDARY}--\r\n`,
  };
}

/** A directory of its own for a server's probe uploads, removed when the server exits. */
export function uploadDir(framework) {
  const dir = path.join(tmpdir(), `velox-bench-multipart-${framework}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      remove();
      process.exit(0);
    });
  }
  return dir;
}
