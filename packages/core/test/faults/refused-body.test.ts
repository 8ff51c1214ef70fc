import { parseResponses, rawConnection, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from '../helpers.ts';

const MB = 1024 * 1024;

/** A body of `size` zero bytes, sent chunked (no Content-Length), 1 MiB at a time. */
function streamed(size: number): ReadableStream<Uint8Array> {
  let left = size;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const n = Math.min(MB, left);
      left -= n;
      controller.enqueue(new Uint8Array(n));
    },
  });
}

/** Posts `body` `tries` times with Node's fetch; tallies the statuses and the errors by code. */
async function tally(url: string, tries: number, body: () => Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
  const seen: Record<string, number> = {};
  for (let i = 0; i < tries; i++) {
    let key: string;
    try {
      const r = await fetch(url, { method: 'POST', body: body(), headers, duplex: 'half' } as RequestInit);
      const text = await r.text();
      key = `${r.status} ${r.headers.get('connection')} ${JSON.parse(text).code}`;
    } catch (err) {
      key = `error ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`;
    }
    seen[key] = (seen[key] ?? 0) + 1;
  }
  return seen;
}

const chunk = (bytes: number) => `${bytes.toString(16)}\r\n${'x'.repeat(bytes)}\r\n`;

describe('refusing a body (413)', () => {
  it('lets Node fetch read the 413 every time for a 20 MB body over maxBodyLength (Content-Length)', { timeout: 60_000 }, async () => {
    const app = server();
    app.post('/json', async (req, res) => res.json(await req.json()));
    const { url } = await start(app);
    const seen = await tally(`${url}/json`, 20, () => new Uint8Array(20 * MB), { 'content-type': 'application/json' });
    expect(seen).toEqual({ '413 close VELOX_ERR_BODY_TOO_LARGE': 20 });
  });

  it('lets Node fetch read the 413 every time for a 20 MB chunked body over maxBodyLength', { timeout: 60_000 }, async () => {
    const app = server();
    app.post('/json', async (req, res) => res.json(await req.buffer()));
    const { url } = await start(app);
    const seen = await tally(`${url}/json`, 20, () => streamed(20 * MB), { 'content-type': 'application/json' });
    expect(seen).toEqual({ '413 close VELOX_ERR_BODY_TOO_LARGE': 20 });
  });

  it('lets Node fetch read a 413 that a handler answers before reading the body', { timeout: 60_000 }, async () => {
    const app = server();
    app.post('/sync', (req, res) => {
      res.status(413).json({ code: 'TOO_BIG_SYNC' });
    });
    app.post('/async', async (req, res) => {
      await new Promise((r) => setImmediate(r));
      res.status(413).json({ code: 'TOO_BIG_ASYNC' });
    });
    const { url } = await start(app);
    expect(await tally(`${url}/sync`, 10, () => new Uint8Array(20 * MB))).toEqual({ '413 close TOO_BIG_SYNC': 10 });
    expect(await tally(`${url}/async`, 10, () => streamed(20 * MB))).toEqual({ '413 close TOO_BIG_ASYNC': 10 });
  });

  it('answers in full at once when the rest of the body is short, and reads that rest without a reset', async () => {
    const app = server({ maxBodyLength: 1000 });
    app.post('/json', async (req, res) => res.json(await req.json()));
    const { port } = await start(app);
    const client = await rawConnection(port);
    const length = 2 * MB;
    client.socket.write(`POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"a":`);
    // The whole answer (framed by Content-Length) comes before the rest of the body is sent.
    await until(() => parseResponses(client.text()).length === 1 && parseResponses(client.text())[0]!.body.length > 0, 'the 413');
    const [answer] = parseResponses(client.text());
    expect(answer?.status).toBe(413);
    expect(answer?.headers.connection).toBe('close');
    expect(answer?.headers['content-length']).toBe(String(answer?.body.length));
    // The rest goes in without a reset: every write is accepted and nothing more is answered.
    const rest = Buffer.alloc(length - 5, 0x20);
    await new Promise<void>((resolve, reject) => client.socket.write(rest, (err) => (err ? reject(err) : resolve())));
    await new Promise((r) => setTimeout(r, 200));
    expect(client.socket.destroyed).toBe(false);
    expect(parseResponses(client.text())).toHaveLength(1);
    client.socket.destroy();
  });

  it('completes a held answer once a chunked body ends, and lets the connection close cleanly', async () => {
    const app = server({ maxBodyLength: 1000 });
    app.post('/text', async (req, res) => res.send(await req.text()));
    const { port } = await start(app);
    const client = await rawConnection(port);
    client.socket.write(`POST /text HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(4000)}`);
    // The head and the body arrive at once; the end of the chunked answer is held back.
    await until(() => client.text().includes('VELOX_ERR_BODY_TOO_LARGE'), 'the 413 head and body');
    expect(client.text()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.text()).toMatch(/\r\nconnection: close\r\n/i);
    expect(client.text()).not.toMatch(/\r\n0\r\n\r\n$/);
    client.socket.write(`${chunk(4000)}0\r\n\r\n`);
    await until(() => client.text().endsWith('\r\n0\r\n\r\n'), 'the end of the answer');
    client.socket.end();
    await client.closed;
  });

  it('completes a held answer when the client stops sending, keeping the connection until the client closes', async () => {
    const app = server({ maxBodyLength: 1000 });
    app.post('/text', async (req, res) => res.send(await req.text()));
    const { port } = await start(app);
    const client = await rawConnection(port);
    client.socket.write(`POST /text HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(4000)}`);
    // A client that stops writing once an answer arrives (curl does) gets its end after a quiet spell.
    await until(() => client.text().endsWith('\r\n0\r\n\r\n'), 'the end of the answer');
    expect(client.text()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.socket.destroyed).toBe(false);
    client.socket.destroy();
  });

  it('cuts a client that keeps sending after the answer, once the linger time is over', { timeout: 30_000 }, async () => {
    const app = server({ maxBodyLength: 1000 });
    app.post('/text', async (req, res) => res.send(await req.text()));
    const { port } = await start(app);
    const client = await rawConnection(port);
    client.socket.write('POST /text HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    let sentAfterAnswer = 0;
    const piece = chunk(16 * 1024);
    const pump = setInterval(() => {
      if (!client.socket.destroyed && client.socket.writable) {
        client.socket.write(piece);
        if (client.text().includes('VELOX_ERR_BODY_TOO_LARGE')) sentAfterAnswer++;
      }
    }, 10);
    try {
      await Promise.race([
        client.closed,
        new Promise((_, reject) => setTimeout(() => reject(new Error('the server never cut the connection')), 25_000)),
      ]);
    } finally {
      clearInterval(pump);
    }
    expect(client.text()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.text()).toContain('VELOX_ERR_BODY_TOO_LARGE');
    // Not cut with the answer: the body was read on for a while (the linger is 5 s).
    expect(sentAfterAnswer).toBeGreaterThan(20);
  });

  it('holds the answer for a client that asked for Connection: close, and closes after the last byte', async () => {
    const app = server({ maxBodyLength: 1000 });
    app.post('/text', async (req, res) => res.send(await req.text()));
    const { port } = await start(app);
    const client = await rawConnection(port);
    const length = 512 * 1024;
    client.socket.write(`POST /text HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${length}\r\n\r\n`);
    client.socket.write(Buffer.alloc(length, 0x61));
    await client.closed;
    expect(client.text()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.text()).toContain('VELOX_ERR_BODY_TOO_LARGE');
    expect(client.text().endsWith('\r\n0\r\n\r\n')).toBe(true);
  });

  it('closes a lingering connection when the server closes', async () => {
    const app = server({ maxBodyLength: 1000 });
    app.post('/text', async (req, res) => res.send(await req.text()));
    const { port } = await start(app);
    const client = await rawConnection(port);
    client.socket.write(`POST /text HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(4000)}`);
    await until(() => client.text().includes('VELOX_ERR_BODY_TOO_LARGE'), 'the 413');
    await new Promise((r) => setTimeout(r, 100));
    expect(client.socket.destroyed).toBe(false);
    await app.close({ timeout: 1000 });
    await client.closed;
    expect(client.text()).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe('Server.close during a chunked response', () => {
  it('ends the chunked body cleanly instead of writing Connection: close into it', async () => {
    const app = server();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    app.get('/chunked', async (req, res) => {
      res.write('part one;');
      await held;
      res.end('part two');
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    client.socket.write('GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => client.text().includes('part one;'), 'the first chunk');
    const closing = app.close({ timeout: 5000 });
    release();
    await closing;
    await client.closed;
    const text = client.text();
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    expect(body).toBe('9\r\npart one;\r\n8\r\npart two\r\n0\r\n\r\n');
  });
});
