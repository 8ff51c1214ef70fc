import { describe, expect, it } from 'vitest';
import type { Server } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** A server whose every route counts the requests that reached it. */
function counting(): { app: Server; reached: () => number } {
  const app = server();
  let reached = 0;
  app.any('/*', (req, res) => {
    reached++;
    res.send('reached');
  });
  return { app, reached: () => reached };
}

describe('app.inject() given bad input', () => {
  it('rejects a bad method on a relative URL with the TypeError fetch() gives', async () => {
    const { app, reached } = counting();
    await expect(app.inject('/x', { method: 'GE T' })).rejects.toThrow(new TypeError("'GE T' is not a valid HTTP method."));
    await expect(app.inject('/x', { method: '' })).rejects.toBeInstanceOf(TypeError);
    expect(reached()).toBe(0);
    expect((await app.inject('/x')).status).toBe(200);
  });

  it.each(['CONNECT', 'TRACE', 'TRACK'])('rejects the forbidden method %s', async (method) => {
    const { app, reached } = counting();
    await expect(app.inject('/x', { method })).rejects.toThrow(new TypeError(`'${method}' HTTP method is unsupported.`));
    expect(reached()).toBe(0);
  });

  it('rejects a GET or HEAD with a body', async () => {
    const { app } = counting();
    await expect(app.inject('/x', { body: 'no' })).rejects.toThrow(new TypeError('Request with GET/HEAD method cannot have body.'));
    await expect(app.inject('/x', { method: 'HEAD', body: 'no' })).rejects.toBeInstanceOf(TypeError);
  });

  it('rejects a stream body without duplex: "half", as fetch() does', async () => {
    const { app } = counting();
    await expect(app.inject('/x', { method: 'POST', body: new ReadableStream() })).rejects.toThrow(/duplex/);
  });

  it('rejects a URL that does not parse, and a scheme other than http and https', async () => {
    const { app, reached } = counting();
    await expect(app.inject('http://[bad/')).rejects.toMatchObject({ name: 'TypeError', code: 'ERR_INVALID_URL' });
    await expect(app.inject('ftp://localhost/x')).rejects.toThrow(/must be a path or an http: or https: URL, got ftp:/);
    expect(reached()).toBe(0);
  });

  it('rejects a header value with CR or LF, and a header name that is not a token', async () => {
    const { app, reached } = counting();
    await expect(app.inject('/x', { headers: { 'x-a': 'one\r\nx-b: two' } })).rejects.toBeInstanceOf(TypeError);
    await expect(app.inject('/x', { headers: { 'bad name': 'v' } })).rejects.toBeInstanceOf(TypeError);
    expect(reached()).toBe(0);
  });

  it('rejects a target that does not start with / or holds a space', async () => {
    const { app, reached } = counting();
    for (const target of ['x', 'http://localhost/x', '/a b', '/a\nb', '']) {
      await expect(app.inject('/', { target })).rejects.toThrow(/target must start with "\/" and hold no space or control character/);
    }
    expect(reached()).toBe(0);
  });

  it('gets uWS’s own 431 for a head over its limit (a huge header, too many headers), and keeps answering', async () => {
    const { app, reached } = counting();
    for (const size of [20_000, 2_000_000]) {
      const res = await app.inject('/x', { headers: { 'x-big': 'a'.repeat(size) } });
      expect(res.status).toBe(431);
      expect(await res.text()).toContain('Request Header Fields Too Large');
    }
    const many: Record<string, string> = {};
    for (let i = 0; i < 120; i++) many[`x-h${i}`] = 'v';
    expect((await app.inject('/x', { headers: many })).status).toBe(431);
    // A body behind a refused head is not waited for.
    const withBody = await app.inject('/x', { method: 'POST', headers: { 'x-big': 'a'.repeat(100_000) }, body: 'b'.repeat(3_000_000) });
    expect(withBody.status).toBe(431);
    expect(reached()).toBe(0);
    expect(await (await app.inject('/x')).text()).toBe('reached');
  });

  it('stops sending a chunked body the answer refuses (413), and reads the answer whole', async () => {
    const app = server({ maxBodyLength: 1000 });
    app.post('/upload', async (req, res) => res.send(await req.text()));
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(64 * 1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    const res = await app.inject('/upload', { method: 'POST', body: endless, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ statusCode: 413, code: 'VELOX_ERR_BODY_TOO_LARGE' });
    expect(cancelled).toBe(true);
  });

  it('rejects, with the cause, a request whose body stream fails before an answer', async () => {
    const app = server();
    app.post('/upload', async (req, res) => res.send(await req.text()));
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('part'));
        setTimeout(() => controller.error(new Error('the source broke')), 20);
      },
    });
    const refused = await app.inject('/upload', { method: 'POST', body: failing, duplex: 'half' } as RequestInit).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as Error).message).toMatch(/^inject\(\): POST \/upload failed before an answer came/);
    expect(((refused as Error).cause as Error).message).toBe('the source broke');
    expect(await (await app.inject('/upload', { method: 'POST', body: 'whole' })).text()).toBe('whole');
  });
});
