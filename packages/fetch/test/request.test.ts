import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { parseResponses, raw, rawConnection, sleep, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { FetchRequest, veloxRequest } from '../src/index.ts';
import { served } from './helpers.ts';

describe('the lazy Request', () => {
  it('is an instanceof Request with the URL, method and headers the client sent', async () => {
    let seen: Record<string, unknown> = {};
    const { url, port } = await served((request) => {
      seen = {
        isRequest: request instanceof Request,
        isOurs: request instanceof FetchRequest,
        tag: Object.prototype.toString.call(request),
        url: request.url,
        method: request.method,
        agent: request.headers.get('x-agent'),
        headersAreHeaders: request.headers instanceof Headers,
        cache: request.cache,
        velox: veloxRequest(request)?.path,
      };
      return new Response('ok');
    });
    await fetch(`${url}/a/b?c=d&e`, { method: 'PATCH', headers: { 'x-agent': 'test' } });
    expect(seen).toEqual({
      isRequest: true,
      isOurs: true,
      tag: '[object Request]',
      url: `http://127.0.0.1:${port}/a/b?c=d&e`,
      method: 'PATCH',
      agent: 'test',
      headersAreHeaders: true,
      cache: 'default',
      velox: '/a/b',
    });
  });

  it('joins repeated header lines as Fetch does (Cookie lines with "; ")', async () => {
    let seen: Record<string, string | null> = {};
    const { port } = await served((request) => {
      seen = { accept: request.headers.get('x-multi'), cookie: request.headers.get('cookie') };
      return new Response('ok');
    });
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nX-Multi: a\r\nX-Multi: b\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n');
    expect(parseResponses(text)[0]?.status).toBe(200);
    expect(seen).toEqual({ accept: 'a, b', cookie: 'a=1; b=2' });
  });

  it('normalizes the URL as the URL parser does (dot segments, upper-case host, spaces)', async () => {
    const urls: string[] = [];
    const { port } = await served((request) => {
      urls.push(request.url);
      return new Response('ok');
    });
    await raw(port, 'GET /a/../b/./c?x=%41 HTTP/1.1\r\nHost: EXAMPLE.com:8080\r\n\r\n');
    await raw(port, 'GET /café|{} HTTP/1.1\r\nHost: [::1]\r\n\r\n');
    expect(urls).toEqual(['http://example.com:8080/b/c?x=%41', 'http://[::1]/caf%C3%A9|%7B%7D']);
  });

  it('gives each request its own URL when targets and hosts repeat or change (the last URL is reused)', async () => {
    const urls: string[] = [];
    const { port } = await served((request) => {
      urls.push(request.url);
      return new Response('ok');
    });
    const sent: [string, string][] = [
      ['/a?x=1', 'one:1'],
      ['/a?x=1', 'one:1'],
      ['/a?x=2', 'one:1'],
      ['/a?x=2', 'two:2'],
      ['/a/./b', 'two:2'],
      ['/a/./b', 'two:2'],
      ['/a?x=2', 'two:2'],
      ['/a?x=2', 'one:1'],
    ];
    for (const [target, host] of sent) await raw(port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(urls).toEqual([
      'http://one:1/a?x=1',
      'http://one:1/a?x=1',
      'http://one:1/a?x=2',
      'http://two:2/a?x=2',
      'http://two:2/a/b',
      'http://two:2/a/b',
      'http://two:2/a?x=2',
      'http://one:1/a?x=2',
    ]);
  });

  it('builds https URLs on a TLS-less server only through a trusted proxy (trustProxy)', async () => {
    const urls: string[] = [];
    const fetchApp = (request: Request) => {
      urls.push(request.url);
      return new Response('ok');
    };
    const trusting = await served(fetchApp, { trustProxy: true });
    const plain = await served(fetchApp);
    const headers = 'X-Forwarded-Proto: https\r\nX-Forwarded-Host: shop.example:8443\r\n';
    await raw(trusting.port, `GET /p HTTP/1.1\r\nHost: internal:3000\r\n${headers}\r\n`);
    await raw(plain.port, `GET /p HTTP/1.1\r\nHost: internal:3000\r\n${headers}\r\n`);
    expect(urls).toEqual(['https://shop.example:8443/p', 'http://internal:3000/p']);
  });

  it('reads text(), json(), arrayBuffer() and bytes() straight from Velox', async () => {
    const { url } = await served(async (request) => {
      const how = new URL(request.url).searchParams.get('how');
      if (how === 'text') return new Response(`text:${await request.text()}`);
      if (how === 'json') return Response.json({ json: await request.json() });
      if (how === 'ab') {
        const ab = await request.arrayBuffer();
        return new Response(`ab:${ab instanceof ArrayBuffer}:${ab.byteLength}:${new Uint8Array(ab)[0]}`);
      }
      const bytes = await (request as Request & { bytes(): Promise<Uint8Array> }).bytes();
      return new Response(`bytes:${bytes.constructor.name}:${bytes.length}`);
    });
    const post = (how: string, body: string) => fetch(`${url}/?how=${how}`, { method: 'POST', body }).then((r) => r.text());
    expect(await post('text', 'héllo')).toBe('text:héllo');
    expect(await post('json', '{"a":1}')).toBe('{"json":{"a":1}}');
    expect(await post('ab', 'xyz')).toBe('ab:true:3:120');
    expect(await post('bytes', 'x'.repeat(100_000))).toBe('bytes:Uint8Array:100000');
  });

  it('rejects json() of malformed JSON with a SyntaxError, and a second read with a TypeError', async () => {
    const { url } = await served(async (request) => {
      const first = await request.json().then(
        () => 'parsed',
        (err: Error) => err.name,
      );
      const second = await request.text().then(
        () => 'read',
        (err: Error) => err.name,
      );
      return new Response(`${first} ${second} ${request.bodyUsed}`);
    });
    expect(await (await fetch(url, { method: 'POST', body: '{nope' })).text()).toBe('SyntaxError TypeError true');
  });

  it('gives GET and HEAD a null body and an empty text()', async () => {
    const { url } = await served(async (request) => new Response(`${request.body === null}:${JSON.stringify(await request.text())}`));
    expect(await (await fetch(url)).text()).toBe('true:""');
  });

  it('reads formData(): urlencoded, and multipart with a file', async () => {
    const { url } = await served(async (request) => {
      const form = await request.formData();
      const file = form.get('file');
      return Response.json({
        name: form.get('name'),
        file: file instanceof File ? { name: file.name, type: file.type, text: await file.text() } : null,
      });
    });
    const urlencoded = await fetch(url, { method: 'POST', body: new URLSearchParams({ name: 'ann é' }) });
    expect(await urlencoded.json()).toEqual({ name: 'ann é', file: null });
    const multipart = new FormData();
    multipart.set('name', 'bob');
    multipart.set('file', new File(['file body'], 'a.txt', { type: 'text/plain' }));
    const r = await fetch(url, { method: 'POST', body: multipart });
    expect(await r.json()).toEqual({ name: 'bob', file: { name: 'a.txt', type: 'text/plain', text: 'file body' } });
  });

  it('reads blob() typed by Content-Type', async () => {
    const { url } = await served(async (request) => {
      const blob = await request.blob();
      return new Response(`${blob.type}:${blob.size}`);
    });
    const r = await fetch(url, { method: 'POST', body: 'abcd', headers: { 'content-type': 'application/x-thing' } });
    expect(await r.text()).toBe('application/x-thing:4');
  });

  it('streams a 64 MB body through request.body, whole and in order, to a slow consumer', async () => {
    const { port } = await served(async (request) => {
      let size = 0;
      let sum = 0;
      let pauses = 0;
      const reader = request.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (let i = (4096 - (size % 4096)) % 4096; i < value.length; i += 4096) sum = (sum + value[i]! * (size + i)) % 1_000_000_007;
        size += value.byteLength;
        if (size % (8 << 20) < value.byteLength) {
          pauses++;
          await sleep(5); // a slow consumer now and then
        }
      }
      return Response.json({ size, sum, pauses });
    });
    const total = 64 << 20;
    const chunk = Buffer.alloc(1 << 20);
    for (let i = 0; i < chunk.length; i++) chunk[i] = i % 251;
    let expected = 0;
    for (let sent = 0; sent < total; sent += chunk.length) {
      for (let i = 0; i < chunk.length; i += 4096) expected = (expected + chunk[i]! * (sent + i)) % 1_000_000_007;
    }
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/', headers: { 'content-length': total } });
    const answer = once(req, 'response');
    for (let sent = 0; sent < total; sent += chunk.length) if (!req.write(chunk)) await once(req, 'drain');
    req.end();
    const [res] = (await answer) as [import('node:http').IncomingMessage];
    let text = '';
    for await (const c of res) text += c;
    const result = JSON.parse(text);
    expect(result.size).toBe(total);
    expect(result.sum).toBe(expected);
    expect(result.pauses).toBeGreaterThanOrEqual(7);
  });

  it('pulls the body from uWS only as the app reads it (nothing read ahead)', async () => {
    let firstChunk = 0;
    let bodyUsed: boolean | undefined;
    const { port } = await served(async (request) => {
      const reader = request.body!.getReader();
      const { value } = await reader.read();
      firstChunk = value!.byteLength;
      bodyUsed = request.bodyUsed;
      await reader.cancel();
      return new Response('enough');
    });
    const client = await rawConnection(port);
    await client.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${10 << 20}\r\n\r\n`);
    await client.write(Buffer.alloc(64 * 1024, 97));
    await client.until((t) => t.includes('enough'), 'the answer before the body is complete');
    expect(firstChunk).toBeGreaterThan(0);
    expect(firstChunk).toBeLessThanOrEqual(64 * 1024);
    expect(bodyUsed).toBe(true);
    client.socket.destroy();
  });

  it('aborts request.signal when the client goes away', async () => {
    let signal: AbortSignal | undefined;
    let reason: unknown;
    const { port } = await served(async (request) => {
      signal = request.signal;
      await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
      reason = request.signal.reason;
      return new Response('too late');
    });
    const client = await rawConnection(port);
    await client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => signal !== undefined, 'the request to arrive');
    client.socket.destroy();
    await until(() => reason !== undefined, 'the signal to abort');
    expect(signal!.aborted).toBe(true);
    expect((reason as DOMException).name).toBe('AbortError');
  });
});

describe('request.headers', () => {
  it('reads get() and has() lazily, and behaves as a Headers for everything else', async () => {
    let seen: Record<string, unknown> = {};
    const { port } = await served((request) => {
      const h = request.headers;
      seen = {
        isHeaders: h instanceof Headers,
        tag: Object.prototype.toString.call(h),
        get: h.get('X-Multi'),
        missing: h.get('x-none'),
        has: [h.has('host'), h.has('x-none')],
        badName: (() => {
          try {
            h.get('bad name');
            return 'no throw';
          } catch (err) {
            return (err as Error).name;
          }
        })(),
        copy: new Headers(h).get('x-multi'),
        entries: [...h].filter(([k]) => k.startsWith('x-')),
        forEach: (() => {
          const names: string[] = [];
          h.forEach((_v, k, parent) => {
            names.push(`${k}:${parent === h}`);
          });
          return names.filter((n) => n.startsWith('x-'));
        })(),
      };
      h.set('x-added', '1');
      seen.afterSet = [h.get('x-added'), h.get('x-multi')];
      seen.inRequest = new Request('http://x/', { headers: h }).headers.get('x-added');
      return new Response('ok');
    });
    await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nX-Multi: a\r\nX-Multi: b\r\nX-One: 1\r\n\r\n');
    expect(seen).toEqual({
      isHeaders: true,
      tag: '[object Headers]',
      get: 'a, b',
      missing: null,
      has: [true, false],
      badName: 'TypeError',
      copy: 'a, b',
      entries: [
        ['x-multi', 'a, b'],
        ['x-one', '1'],
      ],
      forEach: ['x-multi:true', 'x-one:true'],
      afterSet: ['1', 'a, b'],
      inRequest: '1',
    });
  });
});
