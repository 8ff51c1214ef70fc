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

/** Limits high enough for every framework to take the probe's file. */
export const MAX_FILE = 2 * 1024 * 1024 * 1024;

/** The `upload` scenario's body, byte for byte (the file `size` bytes long). */
export function uploadBody(size = FILE_SIZE) {
  const parts = [];
  for (const [name, value] of Object.entries(FIELDS)) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="data.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`));
  // xorshift32: reproducible bytes that look random to a boundary search (zeros would let it skip ahead).
  const file = Buffer.alloc(size + 3);
  let x = 0x9e3779b9;
  for (let i = 0; i < size; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    file.writeUInt32LE(x >>> 0, i);
  }
  parts.push(file.subarray(0, size), Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
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
