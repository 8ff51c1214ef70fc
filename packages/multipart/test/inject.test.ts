/**
 * An upload sent with fetch's FormData through core's `app.inject()` (no listen()). Here rather
 * than in core's tests: core cannot depend on @velox/multipart, which depends on core.
 */
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

describe('uploads through app.inject()', () => {
  it('reads the fields and files of a FormData body, with its boundary', async () => {
    const app = await server();
    app.post('/upload', async (req, res) => {
      const fields: Record<string, string> = {};
      const files: Array<{ field: string; name: string; type: string; body: string }> = [];
      for await (const part of req.parts()) {
        if (!part.file) {
          fields[part.name] = part.value!;
          continue;
        }
        const chunks: Buffer[] = [];
        for await (const chunk of part.file.stream) chunks.push(chunk as Buffer);
        files.push({ field: part.name, name: part.file.name, type: part.file.mimeType, body: Buffer.concat(chunks).toString('latin1') });
      }
      res.json({ fields, files });
    });
    const bytes = Buffer.alloc(300_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
    const form = new FormData();
    form.append('title', 'holiday');
    form.append('note', 'é ☃');
    form.append('photo', new Blob([bytes], { type: 'image/png' }), 'beach.png');
    form.append('readme', new Blob(['plain text'], { type: 'text/plain' }), 'read me.txt');

    const res = await app.inject('/upload', { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      fields: { title: 'holiday', note: 'é ☃' },
      files: [
        { field: 'photo', name: 'beach.png', type: 'image/png', body: bytes.toString('latin1') },
        { field: 'readme', name: 'read me.txt', type: 'text/plain', body: 'plain text' },
      ],
    });
  });
});
