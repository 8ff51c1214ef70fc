import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCodes, Server } from '@velox/core';
import { start, tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { MultipartErrorCodes, multipart, type Part } from '../src/index.ts';
import { BOUNDARY, formBody, listDir, post, server } from './helpers.ts';

function form(entries: Array<[string, string | Blob, string?]>): FormData {
  const data = new FormData();
  for (const [name, value, filename] of entries) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, value, filename);
  }
  return data;
}

describe('req.multipart (handler style)', () => {
  it('hands fields and files to the handler one at a time, in order, and writes files to disk', async () => {
    const dir = await tempDir();
    const app = await server();
    app.post('/avatar', async (req, res) => {
      const fields: Record<string, string> = {};
      const order: string[] = [];
      const saved: Array<{ path: string; size: number }> = [];
      await req.multipart(async (field) => {
        order.push(field.name);
        if (field.file) saved.push(await field.write(join(dir, randomUUID())));
        else fields[field.name] = field.value!;
      });
      res.json({ fields, order, saved });
    });
    const { url } = await start(app);
    const content = randomBytes(300_000);
    const r = await fetch(`${url}/avatar`, {
      method: 'POST',
      body: form([
        ['title', 'Holiday'],
        ['photo', new Blob([content], { type: 'image/jpeg' }), 'beach.jpg'],
        ['note', 'à bientôt'],
      ]),
    });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { fields: Record<string, string>; order: string[]; saved: Array<{ path: string; size: number }> };
    expect(body.order).toEqual(['title', 'photo', 'note']);
    expect(body.fields).toEqual({ title: 'Holiday', note: 'à bientôt' });
    expect(body.saved).toHaveLength(1);
    expect(body.saved[0]!.size).toBe(content.length);
    expect((await readFile(body.saved[0]!.path)).equals(content)).toBe(true);
  });

  it('waits for the handler before handing out the next part', async () => {
    const app = await server();
    app.post('/slow', async (req, res) => {
      const log: string[] = [];
      await req.multipart(async (part) => {
        log.push(`start ${part.name}`);
        if (part.file) for await (const _ of part.file.stream);
        await new Promise((r) => setTimeout(r, 20));
        log.push(`end ${part.name}`);
      });
      res.json(log);
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/slow`, { method: 'POST', body: form([['a', '1'], ['f', new Blob(['x'.repeat(1000)]), 'f.txt'], ['b', '2']]) });
    expect(await r.json()).toEqual(['start a', 'end a', 'start f', 'end f', 'start b', 'end b']);
  });

  it('drains a file stream the handler leaves unread, so the next part comes', async () => {
    const app = await server();
    app.post('/skip', async (req, res) => {
      const seen: string[] = [];
      await req.multipart(async (part) => {
        seen.push(part.file ? `${part.name} (file, unread)` : `${part.name}=${part.value}`);
      });
      res.json(seen);
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/skip`, {
      method: 'POST',
      body: form([
        ['first', new Blob([randomBytes(1024 * 1024)]), 'one.bin'],
        ['second', new Blob([randomBytes(200_000)]), 'two.bin'],
        ['after', 'yes'],
      ]),
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual(['first (file, unread)', 'second (file, unread)', 'after=yes']);
  });

  it('takes per-call limits over the server defaults', async () => {
    const app = await server({ limits: { fileSize: 10 } });
    app.post('/default', async (req, res) => {
      await req.multipart(async (part) => {
        if (part.file) for await (const _ of part.file.stream);
      });
      res.send('ok');
    });
    app.post('/roomy', async (req, res) => {
      await req.multipart({ limits: { fileSize: 1000 } }, async (part) => {
        if (part.file) for await (const _ of part.file.stream);
      });
      res.send('ok');
    });
    const { url } = await start(app);
    const body = formBody([{ name: 'f', filename: 'a.txt', body: 'x'.repeat(100) }]);
    expect((await post(`${url}/default`, body)).json).toMatchObject({ code: MultipartErrorCodes.FILE_TOO_LARGE, limit: 'fileSize', max: 10 });
    expect((await post(`${url}/roomy`, body)).text).toBe('ok');
  });

  it('rejects with the handler error, deletes the files it wrote, and the error handler answers', async () => {
    const dir = await tempDir();
    const app = await server();
    app.post('/boom', async (req, res) => {
      await req.multipart(async (part) => {
        if (part.file) await part.write(join(dir, randomUUID()));
        else if (part.name === 'bad') throw new Error('handler failed');
      });
      res.send('not reached');
    });
    app.setErrorHandler((err, req, res) => res.status(422).json({ message: (err as Error).message }));
    const { url } = await start(app);
    const body = formBody([
      { name: 'f', filename: 'a.bin', body: randomBytes(50_000) },
      { name: 'bad', body: 'x' },
      { name: 'g', filename: 'b.bin', body: randomBytes(50_000) },
    ]);
    const r = await post(`${url}/boom`, body);
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ message: 'handler failed' });
    expect(await listDir(dir)).toEqual([]);
  });

  it('refuses to read the same body twice', async () => {
    const app = await server();
    let second: unknown;
    app.post('/twice', async (req, res) => {
      await req.multipart(() => {});
      try {
        await req.multipart(() => {});
      } catch (err) {
        second = err;
      }
      res.send('done');
    });
    const { url } = await start(app);
    await post(`${url}/twice`, formBody([{ name: 'a', body: '1' }]));
    expect(second).toMatchObject({ code: ErrorCodes.BODY_CONSUMED, status: 500 });
  });

  it('rejects a call without a handler, and bad limits, with VELOX_ERR_MULTIPART_INVALID_OPTION', async () => {
    const app = await server();
    const errors: unknown[] = [];
    app.post('/misuse', async (req, res) => {
      for (const call of [
        () => (req.multipart as (o: unknown) => Promise<void>)({ limits: {} }),
        () => req.multipart({ limits: { fileSize: -1 } }, () => {}),
        () => req.multipart({ limits: { filesize: 10 } as never }, () => {}),
      ]) {
        try {
          await call();
        } catch (err) {
          errors.push(err);
        }
      }
      res.send('done');
    });
    const { url } = await start(app);
    await post(`${url}/misuse`, formBody([{ name: 'a', body: '1' }]));
    expect(errors).toHaveLength(3);
    for (const err of errors) expect(err).toMatchObject({ code: MultipartErrorCodes.INVALID_OPTION });
    expect((errors[1] as Error).message).toMatch(/limits\.fileSize must be a whole number/);
    expect((errors[2] as Error).message).toMatch(/unknown limit "filesize"/);
  });
});

describe('req.parts (iterator style)', () => {
  it('streams each part with per-call limits', async () => {
    const app = await server({ limits: { fileSize: 10 } });
    app.post('/import', async (req, res) => {
      let bytes = 0;
      const names: string[] = [];
      for await (const part of req.parts({ limits: { fileSize: 1024 * 1024 * 1024 } })) {
        names.push(part.name);
        if (part.file) for await (const chunk of part.file.stream) bytes += chunk.length;
      }
      res.json({ bytes, names });
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/import`, {
      method: 'POST',
      body: form([
        ['kind', 'csv'],
        ['data', new Blob([randomBytes(2 * 1024 * 1024 + 17)]), 'data.csv'],
      ]),
    });
    expect(await r.json()).toEqual({ bytes: 2 * 1024 * 1024 + 17, names: ['kind', 'data'] });
  });

  it('gives each part its name, value, file info and truncated flag', async () => {
    const app = await server();
    app.post('/describe', async (req, res) => {
      const out: unknown[] = [];
      for await (const part of req.parts()) {
        if (part.file) {
          out.push({ name: part.name, value: part.value, file: { name: part.file.name, mimeType: part.file.mimeType, encoding: part.file.encoding }, truncated: part.truncated });
          part.file.stream.resume();
        } else out.push({ name: part.name, value: part.value, file: part.file, truncated: part.truncated });
      }
      res.json(out);
    });
    const { url } = await start(app);
    const body = formBody([
      { name: 'plain', body: 'text' },
      { name: 'doc', filename: 'report.PDF', type: 'Application/PDF; charset=binary', headers: ['Content-Transfer-Encoding: BINARY'], body: '%PDF' },
      { name: 'blob', filename: 'no-type', body: 'x' },
    ]);
    const r = await post(`${url}/describe`, body);
    expect(r.json).toEqual([
      { name: 'plain', value: 'text', truncated: false },
      { name: 'doc', file: { name: 'report.PDF', mimeType: 'application/pdf', encoding: 'binary' }, truncated: false },
      { name: 'blob', file: { name: 'no-type', mimeType: 'application/octet-stream', encoding: '7bit' }, truncated: false },
    ]);
  });

  it('stops reading when the loop is left early, and the connection serves the next request', async () => {
    const app = await server();
    app.post('/first', async (req, res) => {
      for await (const part of req.parts()) {
        res.json({ first: part.name });
        break;
      }
    });
    app.get('/next', (req, res) => res.send('still here'));
    const { url } = await start(app);
    const r = await fetch(`${url}/first`, {
      method: 'POST',
      body: form([
        ['a', '1'],
        ['big', new Blob([randomBytes(3 * 1024 * 1024)]), 'big.bin'],
      ]),
    });
    expect(await r.json()).toEqual({ first: 'a' });
    expect(await (await fetch(`${url}/next`)).text()).toBe('still here');
  });

  it('decodes a field in the charset its part names', async () => {
    const app = await server();
    app.post('/charset', async (req, res) => {
      const values: string[] = [];
      for await (const part of req.parts()) if (!part.file) values.push(part.value);
      res.json(values);
    });
    const { url } = await start(app);
    const body = formBody([
      { name: 'latin', type: 'text/plain; charset=iso-8859-1', body: Buffer.from('café', 'latin1') },
      { name: 'utf', type: 'text/plain; charset=UTF-8', body: 'café' },
    ]);
    expect((await post(`${url}/charset`, body)).json).toEqual(['café', 'café']);
  });
});

describe('truncate option', () => {
  it('cuts a file and a field at their limits and flags them truncated instead of answering 413', async () => {
    const app = await server({ limits: { fileSize: 100, fieldSize: 5 }, truncate: true });
    app.post('/cut', async (req, res) => {
      const out: unknown[] = [];
      for await (const part of req.parts()) {
        if (part.file) {
          let size = 0;
          for await (const chunk of part.file.stream) size += chunk.length;
          out.push({ name: part.name, size, truncated: part.truncated });
        } else out.push({ name: part.name, value: part.value, truncated: part.truncated });
      }
      res.json(out);
    });
    const { url } = await start(app);
    const body = formBody([
      { name: 'long', body: 'abcdefgh' },
      { name: 'file', filename: 'f.bin', body: randomBytes(5000) },
      { name: 'small', filename: 's.bin', body: randomBytes(50) },
    ]);
    const r = await post(`${url}/cut`, body);
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { name: 'long', value: 'abcde', truncated: true },
      { name: 'file', size: 100, truncated: true },
      { name: 'small', size: 50, truncated: false },
    ]);
  });
});

describe('multipart plugin', () => {
  it('refuses bad defaults at registration', () => {
    const app = new Server({ logger: false });
    expect(() => app.register(multipart, { limits: { files: 1.5 } })).toThrow(expect.objectContaining({ code: MultipartErrorCodes.INVALID_OPTION }));
    expect(() => app.register(multipart, { limits: { headerSize: 0 } })).toThrow(/at least 1/);
    expect(() => app.register(multipart, { truncate: 'yes' } as never)).toThrow(/truncate must be true or false/);
  });

  it('refuses to be registered twice on one server', async () => {
    const app = await server();
    expect(() => app.register(multipart)).toThrow(expect.objectContaining({ code: MultipartErrorCodes.INVALID_OPTION }));
  });

  it('answers VELOX_ERR_PLUGIN_MISSING, naming the fix, on a server that did not register it', async () => {
    await server({ limits: { fileSize: 1 } }); // decorates that server's own Request class only
    const other = new Server({ logger: false, exposeErrors: true });
    other.post('/up', async (req, res) => {
      let size = 0;
      for await (const part of req.parts()) if (part.file) for await (const chunk of part.file.stream) size += chunk.length;
      res.json({ size });
    });
    try {
      const { port } = await other.listen(0, '127.0.0.1');
      const r = await post(`http://127.0.0.1:${port}/up`, formBody([{ name: 'f', filename: 'a', body: 'x'.repeat(5000) }]));
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ code: 'VELOX_ERR_PLUGIN_MISSING' });
      expect(String((r.json as { message?: string }).message)).toContain("import { multipart } from '@velox/multipart'; await app.register(multipart)");
    } finally {
      await other.close();
    }
  });

  it('leaves a field named __proto__ as a name, changing no prototype', async () => {
    const app = await server();
    app.post('/proto', async (req, res) => {
      const parts: Part[] = [];
      await req.multipart((part) => {
        parts.push(part);
      });
      const fields: Record<string, string> = Object.create(null);
      for (const part of parts) if (!part.file) fields[part.name] = part.value;
      res.json({ names: parts.map((p) => p.name), value: Reflect.get(fields, '__proto__'), polluted: ({} as Record<string, unknown>).polluted ?? null });
    });
    const { url } = await start(app);
    const body = formBody([
      { name: '__proto__', body: '{"polluted":true}' },
      { disposition: 'form-data; name="constructor"; filename="__proto__"', body: 'x' },
    ]);
    const r = await post(`${url}/proto`, body);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ names: ['__proto__', 'constructor'], value: '{"polluted":true}', polluted: null });
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('answers a request without a body with 400', async () => {
    const app = await server();
    app.post('/empty', async (req, res) => {
      await req.multipart(() => {});
      res.send('not reached');
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/empty`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: string }).code).toBe(MultipartErrorCodes.UNEXPECTED_END);
  });
});

describe('an upload still open when the response ends', () => {
  it('stops: a waiting loop ends, unread streams are destroyed, and the next request is served', async () => {
    const app = await server();
    let after: IteratorResult<Part> | undefined;
    let stream: import('node:stream').Readable | undefined;
    app.post('/early', async (req, res) => {
      const parts = req.parts();
      const first = await parts.next();
      if (!first.done && first.value.file) stream = first.value.file.stream;
      res.send('answered early');
      after = await parts.next();
    });
    app.get('/next', (req, res) => res.send('next'));
    const { url } = await start(app);
    const body = formBody([
      { name: 'f', filename: 'a.bin', body: 'x'.repeat(10_000) },
      { name: 'g', body: 'later' },
    ]);
    expect((await post(`${url}/early`, body)).text).toBe('answered early');
    expect(await (await fetch(`${url}/next`)).text()).toBe('next');
    await new Promise((r) => setTimeout(r, 50));
    expect(after).toEqual({ done: true, value: undefined });
    expect(stream?.destroyed).toBe(true);
  });
});
