// The floor: raw uWebSockets.js feeding @fastify/busboy (the parser @velox/multipart uses)
// directly, with backpressure, the way a hand-written uWS server would.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Busboy } from '@fastify/busboy';
import { listenRaw } from '../../lib/raw-uws-kit.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { MAX_FILE, PROBE, uploadDir } from './shared.mjs';

const uWS = assertNativeUws(import.meta.url);

/** Parses one upload; `onFile(stream)` returns a promise of the file's size. */
function upload(res, req, onFile) {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const answer = (status, body) => {
    if (aborted) return;
    res.cork(() => {
      if (status !== 200) res.writeStatus(status);
      res.writeHeader('content-type', 'application/json').end(body);
    });
  };
  let parser;
  try {
    parser = new Busboy({ headers: { 'content-type': req.getHeader('content-type') }, limits: { fileSize: MAX_FILE } });
  } catch {
    return answer('400 Bad Request', '{"error":"not multipart"}');
  }
  let fields = 0;
  const files = [];
  parser.on('field', () => fields++);
  parser.on('file', (_name, stream) => files.push(onFile(stream)));
  parser.on('error', () => answer('400 Bad Request', '{"error":"malformed"}'));
  parser.on('finish', async () => {
    const sizes = await Promise.all(files);
    answer(200, JSON.stringify({ file: sizes.reduce((a, b) => a + b, 0), fields }));
  });
  res.onData((ab, isLast) => {
    // uWS reuses `ab` after this callback: the parser gets a copy.
    const ok = parser.write(Buffer.from(new Uint8Array(ab)));
    if (isLast) parser.end();
    else if (!ok) {
      res.pause();
      parser.once('drain', () => {
        if (!aborted) res.resume();
      });
    }
  });
}

await serve({
  create: () => uWS.App(),
  scenarios: {
    upload(app) {
      app.post('/upload', (res, req) =>
        upload(res, req, (stream) => {
          let size = 0;
          stream.on('data', (chunk) => {
            size += chunk.length;
          });
          return new Promise((resolve) => stream.on('end', () => resolve(size)));
        }),
      );
    },
    [PROBE](app) {
      const dir = uploadDir('uws');
      app.post('/upload', (res, req) =>
        upload(res, req, async (stream) => {
          const file = path.join(dir, `${process.hrtime.bigint()}.bin`);
          const out = createWriteStream(file);
          await new Promise((resolve, reject) => stream.pipe(out).on('finish', resolve).on('error', reject));
          const size = out.bytesWritten;
          await rm(file);
          return size;
        }),
      );
    },
  },
  listen: listenRaw(uWS),
});
