// Velox with @velox/multipart (started with --conditions=built: the packages' dist/).
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Server } from '@velox/core';
import { multipart } from '@velox/multipart';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { consumeSlowly, MAX_FILE, PROBE, SLOW_PROBE, uploadDir } from './shared.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: async (scenario) => {
    // The slow-consumer probe runs Velox twice: as released (bodyBufferSize's default, files past
    // 8 MiB) and with BENCH_BODY_BUFFER_SIZE=Infinity (everything in memory, as before issue 45).
    const size = process.env.BENCH_BODY_BUFFER_SIZE;
    const app = new Server({ logger: false, ...(scenario === SLOW_PROBE && size ? { bodyBufferSize: Number(size) } : {}) });
    await app.register(multipart, { limits: { fileSize: MAX_FILE } });
    return app;
  },
  scenarios: {
    upload(app) {
      app.post('/upload', async (req, res) => {
        let file = 0;
        let fields = 0;
        await req.multipart(async (part) => {
          if (part.file) for await (const chunk of part.file.stream) file += chunk.length;
          else fields++;
        });
        res.json({ file, fields });
      });
    },
    [SLOW_PROBE](app) {
      app.get('/ping', (req, res) => res.send('pong'));
      app.post('/upload', async (req, res) => {
        let file = 0;
        let fields = 0;
        await req.multipart(async (part) => {
          if (part.file) file += await consumeSlowly(part.file.stream);
          else fields++;
        });
        res.json({ file, fields });
      });
    },
    [PROBE](app) {
      const dir = uploadDir('velox');
      app.post('/upload', async (req, res) => {
        let file = 0;
        let fields = 0;
        await req.multipart(async (part) => {
          if (!part.file) return void fields++;
          const written = await part.write(path.join(dir, randomUUID()));
          file += written.size;
          await rm(written.path);
        });
        res.json({ file, fields });
      });
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
