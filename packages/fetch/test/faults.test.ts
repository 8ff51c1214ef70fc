import { request as httpRequest } from 'node:http';
import { parseResponses, raw, rawConnection, sleep, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { FetchErrorCodes } from '../src/index.ts';
import { logged, openFds, served } from './helpers.ts';

const GET = (path: string, host = 'x') => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;

describe('bad input', () => {
  it('refuses with 400, before the app, a Host and target that make no valid URL', async () => {
    let calls = 0;
    const { port } = await served(() => {
      calls++;
      return new Response('ok');
    });
    for (const host of ['', 'a b', 'evil.com/x', 'user@evil.com', '[::1', 'exa%mple.com:99999']) {
      const [answer] = parseResponses((await raw(port, GET('/', host), { quietMs: 150 })).text);
      expect(answer?.status, `Host: ${JSON.stringify(host)}`).toBe(400);
      expect(JSON.parse(answer!.body).code).toBe(FetchErrorCodes.BAD_REQUEST);
    }
    const [backslash] = parseResponses((await raw(port, GET('/a\\..\\b'), { quietMs: 150 })).text);
    expect(backslash?.status).toBe(400);
    expect(calls).toBe(0);
    // and the server goes on serving
    expect(parseResponses((await raw(port, GET('/'))).text)[0]?.body).toBe('ok');
  });

  it('passes header values Fetch accepts; uWS refuses control characters with 400 before the app', async () => {
    const seen: Array<string | null> = [];
    const { port } = await served((request) => {
      seen.push(request.headers.get('x-odd'));
      return new Response('ok');
    });
    const send = async (value: string) => parseResponses((await raw(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Odd: ${value}\r\n\r\n`, { quietMs: 150 })).text)[0]?.status;
    expect(await send('a\tb  ')).toBe(200);
    expect(await send('a\x01b')).toBe(400);
    expect(await send('a\x00b')).toBe(400);
    expect(seen).toEqual(['a\tb']); // trailing whitespace trimmed, as Fetch's Headers does
    expect(await send('plain')).toBe(200);
  });

  it('answers 413 that the client reads when text() meets a body over maxBodyLength', async () => {
    let caught = '';
    const { url, port } = await served(
      async (request) => {
        try {
          return new Response(await request.text());
        } catch (err) {
          caught = (err as Error).message;
          return new Response('the app swallowed it', { status: 500 });
        }
      },
      { maxBodyLength: 1000 },
    );
    const r = await fetch(url, { method: 'POST', body: 'x'.repeat(5000) });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { code: string }).code).toBe('VELOX_ERR_BODY_TOO_LARGE');
    expect(caught).toMatch(/larger than 1000/);
    // chunked, with no Content-Length to refuse up front
    const [chunked] = parseResponses(
      (await raw(port, `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n${'y'.repeat(2000)}\r\n0\r\n\r\n`)).text,
    );
    expect(chunked?.status).toBe(413);
    expect((await fetch(url, { method: 'POST', body: 'small' })).status).toBe(200);
  });

  it('answers 413 when the body stream passes maxStreamLength, and when formData() passes maxBodyLength', async () => {
    const { url } = await served(
      async (request) => {
        if (new URL(request.url).pathname === '/form') return new Response(String([...(await request.formData()).keys()].length));
        const reader = request.body!.getReader();
        for (;;) if ((await reader.read()).done) break;
        return new Response('read it all');
      },
      { maxStreamLength: 100_000, maxBodyLength: 1000 },
    );
    const r = await fetch(url, { method: 'POST', body: new Uint8Array(300_000) });
    expect(r.status).toBe(413);
    expect((await fetch(url, { method: 'POST', body: new Uint8Array(50_000) })).status).toBe(200);
    const form = await fetch(`${url}/form`, { method: 'POST', body: new URLSearchParams({ a: 'x'.repeat(5000) }) });
    expect(form.status).toBe(413);
  });
});

describe('faults', () => {
  it('answers 500 to a handler that throws or rejects, logs it, and keeps serving', async () => {
    const log = logged();
    const { url } = await served(
      (request) => {
        const path = new URL(request.url).pathname;
        if (path === '/throw') throw new Error('sync boom');
        if (path === '/reject') return Promise.reject(new Error('async boom'));
        return new Response('fine');
      },
      { logger: log.logger },
    );
    expect((await fetch(`${url}/throw`)).status).toBe(500);
    expect((await fetch(`${url}/reject`)).status).toBe(500);
    expect(await (await fetch(`${url}/`)).text()).toBe('fine');
    expect(log.errors.map((e) => (e as Error).message)).toEqual(['sync boom', 'async boom']);
  });

  it('answers 503 to a handler that never resolves when timeout is set, aborting its signal', async () => {
    let reason: unknown;
    const { url } = await served(
      (request) =>
        new Promise<Response>(() => {
          request.signal.addEventListener('abort', () => {
            reason = request.signal.reason;
          });
        }),
      { timeout: 100 },
    );
    const started = Date.now();
    const r = await fetch(url);
    expect(r.status).toBe(503);
    expect(((await r.json()) as { code: string }).code).toBe(FetchErrorCodes.TIMEOUT);
    expect(Date.now() - started).toBeLessThan(2000);
    expect((reason as DOMException).name).toBe('TimeoutError');
  });

  it('lets a client leave a handler that never resolves, and close() does not wait for it', async () => {
    let aborted = false;
    const { port, server } = await served(
      (request) =>
        new Promise<Response>(() => {
          request.signal.addEventListener('abort', () => {
            aborted = true;
          });
        }),
    );
    const client = await rawConnection(port);
    await client.write(GET('/'));
    await sleep(50);
    client.socket.destroy();
    await until(() => aborted, 'the signal to abort');
    const started = Date.now();
    await server.close({ timeout: 5000 });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('cuts the connection and logs when a response stream errors halfway, and keeps serving', async () => {
    const log = logged();
    const { port, url } = await served(
      (request) => {
        if (new URL(request.url).pathname === '/ok') return new Response('alive');
        let step = 0;
        return new Response(
          new ReadableStream({
            async pull(controller) {
              await sleep(5);
              if (step++ < 2) controller.enqueue(new TextEncoder().encode(`part${step};`));
              else controller.error(new Error('source broke'));
            },
          }),
        );
      },
      { logger: log.logger },
    );
    const { text, closed } = await raw(port, GET('/'), { quietMs: 1000 });
    expect(closed).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(text).toContain('part1;');
    expect(text).not.toContain('0\r\n\r\n'); // never a clean end: the client sees it cut
    await until(() => log.errors.length > 0, 'the error to be logged');
    expect((log.errors[0] as { code: string }).code).toBe(FetchErrorCodes.STREAM_FAILED);
    expect(await (await fetch(`${url}/ok`)).text()).toBe('alive');
  });

  it('cancels the response stream when the client leaves mid-download', async () => {
    let cancelled: unknown = 'not yet';
    const { port } = await served(
      () =>
        new Response(
          new ReadableStream({
            pull: async (controller) => {
              await sleep(2);
              controller.enqueue(new Uint8Array(16 * 1024));
            },
            cancel: (reason) => {
              cancelled = reason;
            },
          }),
        ),
    );
    const client = await rawConnection(port);
    await client.write(GET('/'));
    await client.until((t) => t.length > 50_000, 'some of the body');
    client.socket.destroy();
    await until(() => cancelled !== 'not yet', 'the stream to be cancelled');
  });

  it('rejects the body read of a client that leaves mid-upload, and aborts its signal', async () => {
    let outcome = '';
    let aborted = false;
    const { port } = await served(async (request) => {
      request.signal.addEventListener('abort', () => {
        aborted = true;
      });
      try {
        await request.arrayBuffer();
        outcome = 'read';
      } catch (err) {
        outcome = (err as { code?: string }).code ?? String(err);
      }
      return new Response('late');
    });
    const client = await rawConnection(port);
    await client.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
    await client.write('x'.repeat(1000));
    await sleep(50);
    client.socket.destroy();
    await until(() => outcome !== '' && aborted, 'the read to fail');
    expect(outcome).toBe('VELOX_ERR_ABORTED');
  });

  it('leaks no file descriptors or memory over 1,000 aborted streams', async () => {
    let cancelled = 0;
    const { port, url } = await served(
      () =>
        new Response(
          new ReadableStream({
            pull: async (controller) => {
              await sleep(1);
              controller.enqueue(new Uint8Array(32 * 1024));
            },
            cancel: () => {
              cancelled++;
            },
          }),
        ),
    );
    const round = async (n: number) => {
      for (let i = 0; i < n; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, () =>
            new Promise<void>((resolve, reject) => {
              const req = httpRequest({ port, host: '127.0.0.1', path: '/' }, (res) => {
                res.once('data', () => {
                  req.destroy();
                  resolve();
                });
              });
              req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? resolve() : reject(err)));
              req.end();
            }),
          ),
        );
      }
    };
    await round(100); // warm up
    await until(() => cancelled === 100, 'the warm-up streams to be cancelled');
    global.gc?.();
    const fdsBefore = await openFds();
    const heapBefore = process.memoryUsage().heapUsed;
    await round(1000);
    await until(() => cancelled === 1100, 'every stream to be cancelled', 10_000);
    await sleep(100);
    global.gc?.();
    const fdsAfter = await openFds();
    expect(fdsAfter - fdsBefore).toBeLessThan(10);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(20 << 20);
    expect(await (await fetch(url, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('limits after the built-in Request was made', () => {
  it('keeps maxBodyLength for text() after a member such as mode made the built-in Request', async () => {
    const { url } = await served(async (request) => new Response(`${request.mode}:${(await request.text()).length}`), { maxBodyLength: 1000 });
    expect((await fetch(url, { method: 'POST', body: 'x'.repeat(500) })).status).toBe(200);
    expect((await fetch(url, { method: 'POST', body: 'x'.repeat(5000) })).status).toBe(413);
  });
});

describe('a response stream that fails before its first chunk', () => {
  it('answers 500 through the error path (nothing went out yet)', async () => {
    const log = logged();
    const { url } = await served(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.error(new Error('failed at once'));
            },
          }),
        ),
      { logger: log.logger },
    );
    const r = await fetch(url);
    expect(r.status).toBe(500);
    expect(log.errors.map((e) => (e as Error).message)).toEqual(['failed at once']);
  });
});
