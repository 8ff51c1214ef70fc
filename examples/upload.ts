// An upload route with limits, writing files to a temporary directory:
//   pnpm exec tsx examples/upload.ts
//   curl -F title=Holiday -F photo=@some-picture.jpg http://127.0.0.1:3000/upload
// or open http://127.0.0.1:3000/ in a browser. The directory is removed when the server stops.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@velox/core';
import { MultipartErrorCodes, multipart } from '@velox/multipart';

const uploads = await mkdtemp(join(tmpdir(), 'velox-uploads-'));

const app = new Server();
// Server-wide defaults: 5 MiB per file, 3 files, 20 text fields.
await app.register(multipart, { limits: { fileSize: 5 * 1024 * 1024, files: 3, fields: 20 } });
app.addHook('onClose', () => rm(uploads, { recursive: true, force: true }));

app.get('/', (req, res) =>
  res.html(`<!doctype html><title>Upload</title>
<form method="post" action="/upload" enctype="multipart/form-data">
  <input name="title" placeholder="Title"> <input type="file" name="photo" multiple> <button>Send</button>
</form>`),
);

app.post('/upload', async (req, res) => {
  const fields: Record<string, string> = Object.create(null);
  const files: Array<{ field: string; name: string; type: string; path: string; size: number }> = [];
  await req.multipart(async (part) => {
    if (!part.file) {
      fields[part.name] = part.value;
      return;
    }
    // Store under a name of our own: the client's name is for display only.
    const { path, size } = await part.write(join(uploads, randomUUID()));
    files.push({ field: part.name, name: part.file.name, type: part.file.mimeType, path, size });
  });
  res.status(201).json({ fields, files });
});

// Errors from the plugin carry a status (413, 415, 400) and a code; answer them as JSON.
app.setErrorHandler((err, req, res) => {
  const status = (err as { status?: number }).status ?? 500;
  const code = (err as { code?: string }).code;
  const message = code === MultipartErrorCodes.FILE_TOO_LARGE ? 'Files are limited to 5 MiB' : status < 500 ? (err as Error).message : 'Upload failed';
  if (status >= 500) console.error(err);
  res.status(status).json({ error: message, code });
});

// SIGINT/SIGTERM: stop accepting, finish in-flight requests (up to 5 s), run onClose hooks, exit 0.
app.closeOnSignals({ timeout: 5000 });

const { port } = await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
console.log(`Upload example on http://127.0.0.1:${port} (files go to ${uploads})`);
