// hyper-express 6.17.3: req.multipart() (busboy 1.6 underneath), as its docs show it.
import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import HyperExpress from 'hyper-express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { consumeSlowly, MAX_FILE, PROBE, SLOW_PROBE, uploadDir } from './shared.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, 'hyper-express'),
  // Its default max_body_length (250 KiB) also bounds multipart bodies.
  create: () => new HyperExpress.Server({ max_body_length: MAX_FILE }),
  scenarios: {
    upload(app) {
      app.post('/upload', async (req, res) => {
        let file = 0;
        let fields = 0;
        await req.multipart(async (field) => {
          if (field.file) for await (const chunk of field.file.stream) file += chunk.length;
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
        // As in the disk probe: req.multipart() can resolve before the handler's work is done.
        const reads = [];
        await req.multipart((field) => {
          if (!field.file) return void fields++;
          const read = consumeSlowly(field.file.stream).then((size) => {
            file += size;
          });
          reads.push(read);
          return read;
        });
        await Promise.all(reads);
        res.json({ file, fields });
      });
    },
    [PROBE](app) {
      const dir = uploadDir('hyper-express');
      app.post('/upload', async (req, res) => {
        let file = 0;
        let fields = 0;
        // req.multipart() can resolve before a handler's field.write() has finished (seen with
        // 6.17.3 when the body is already buffered): wait for the writes too.
        const writes = [];
        await req.multipart((field) => {
          if (!field.file) return void fields++;
          const target = path.join(dir, randomUUID());
          const write = field.write(target).then(async () => {
            file += (await stat(target)).size;
            await rm(target);
          });
          writes.push(write);
          return write;
        });
        await Promise.all(writes);
        res.json({ file, fields });
      });
    },
  },
  listen: async (app, port) => {
    await app.listen(port, '127.0.0.1');
    return app.port;
  },
});
