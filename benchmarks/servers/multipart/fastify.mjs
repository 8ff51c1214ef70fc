// Fastify 5 with @fastify/multipart (@fastify/busboy underneath): req.parts(), as its docs show it.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import fastifyMultipart from '@fastify/multipart';
import Fastify from 'fastify';
import { serve } from '../../lib/server-kit.mjs';
import { MAX_FILE, PROBE, uploadDir } from './shared.mjs';

await serve({
  create: async () => {
    const app = Fastify({ logger: false });
    await app.register(fastifyMultipart, { limits: { fileSize: MAX_FILE } });
    return app;
  },
  scenarios: {
    upload(app) {
      app.post('/upload', async (req) => {
        let file = 0;
        let fields = 0;
        for await (const part of req.parts()) {
          if (part.type === 'file') for await (const chunk of part.file) file += chunk.length;
          else fields++;
        }
        return { file, fields };
      });
    },
    [PROBE](app) {
      const dir = uploadDir('fastify');
      app.post('/upload', async (req) => {
        let file = 0;
        let fields = 0;
        for await (const part of req.parts()) {
          if (part.type !== 'file') {
            fields++;
            continue;
          }
          const target = path.join(dir, randomUUID());
          const out = createWriteStream(target);
          await pipeline(part.file, out);
          file += out.bytesWritten;
          await rm(target);
        }
        return { file, fields };
      });
    },
  },
  listen: async (app, port) => {
    await app.listen({ port, host: '127.0.0.1' });
    return app.server.address().port;
  },
});
