import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

const text = new TextDecoder();

describe('app.inject()', () => {
  it('answers a GET with its params and query, as fetch() would get it', async () => {
    const app = server();
    app.get('/users/:id', (req, res) => res.json({ id: req.params.id, query: req.query, path: req.path, method: req.method }));
    const res = await app.inject('/users/42?tab=a&tab=b');
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.statusText).toBe('OK');
    expect(res.url).toBe('http://localhost/users/42?tab=a&tab=b');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({ id: '42', query: { tab: ['a', 'b'] }, path: '/users/42', method: 'GET' });
  });

  it('takes a URL object and a Request, with or without an init', async () => {
    const app = server();
    app.any('/who', (req, res) => res.json({ method: req.method, q: req.query.q ?? null, x: req.get('x-a') ?? null }));
    expect(await (await app.inject(new URL('http://localhost/who?q=1'))).json()).toEqual({ method: 'GET', q: '1', x: null });
    const request = new Request('http://localhost/who?q=2', { method: 'PUT', headers: { 'x-a': 'from request' } });
    expect(await (await app.inject(request)).json()).toEqual({ method: 'PUT', q: '2', x: 'from request' });
    expect(await (await app.inject(request, { method: 'DELETE', headers: { 'x-a': 'from init' } })).json()).toEqual({ method: 'DELETE', q: '2', x: 'from init' });
  });

  it('sends a JSON POST with its Content-Length', async () => {
    const app = server();
    app.post('/items', async (req, res) => res.status(201).json({ got: await req.json(), length: req.get('content-length'), chunked: req.get('transfer-encoding') ?? null }));
    const res = await app.inject('/items', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 1 }) });
    expect(res.status).toBe(201);
    expect(res.statusText).toBe('Created');
    expect(await res.json()).toEqual({ got: { a: 1 }, length: '7', chunked: null });
  });

  it('sends every body kind fetch() sends, with the Content-Type fetch() gives it', async () => {
    const app = server();
    app.post('/echo', async (req, res) => {
      const body = (await req.buffer()).toString('latin1');
      res.json({ type: req.get('content-type') ?? null, length: req.get('content-length') ?? null, chunked: req.get('transfer-encoding') ?? null, body });
    });
    const send = async (body: unknown, extra: RequestInit = {}): Promise<any> =>
      (await app.inject('/echo', { method: 'POST', body: body as RequestInit['body'], ...extra })).json();

    expect(await send('héllo')).toEqual({ type: 'text/plain;charset=UTF-8', length: '6', chunked: null, body: Buffer.from('héllo').toString('latin1') });
    expect(await send(new Uint8Array([0, 1, 255]))).toEqual({ type: null, length: '3', chunked: null, body: '\u0000\u0001\u00ff' });
    expect(await send(Buffer.from('buf'))).toEqual({ type: null, length: '3', chunked: null, body: 'buf' });
    expect(await send(new URLSearchParams({ a: '1', b: 'two words' }))).toEqual({
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
      length: '15',
      chunked: null,
      body: 'a=1&b=two+words',
    });
    expect(await send(new Blob(['<p>'], { type: 'text/html' }))).toEqual({ type: 'text/html', length: '3', chunked: null, body: '<p>' });

    const form = new FormData();
    form.append('name', 'ana');
    form.append('file', new Blob(['file body'], { type: 'text/plain' }), 'a.txt');
    const multipart = await send(form);
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(multipart.type)?.[1];
    expect(boundary).toBeTruthy();
    expect(multipart.length).toBe(String(Buffer.byteLength(multipart.body, 'latin1')));
    expect(multipart.body).toContain(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nana\r\n`);
    expect(multipart.body).toContain('Content-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nfile body\r\n');
    expect(multipart.body.endsWith(`--${boundary}--\r\n`)).toBe(true);

    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('one,'));
        controller.enqueue(new TextEncoder().encode('two'));
        controller.close();
      },
    });
    expect(await send(stream, { duplex: 'half' } as RequestInit)).toEqual({ type: null, length: null, chunked: 'chunked', body: 'one,two' });
  });

  it('streams a request body into the connection as it is produced', async () => {
    const app = server();
    const seen: string[] = [];
    let first!: () => void;
    const firstSeen = new Promise<void>((resolve) => (first = resolve));
    app.post('/upload', async (req, res) => {
      for await (const chunk of req.stream()) {
        seen.push(text.decode(chunk as Uint8Array));
        first();
      }
      res.send(seen.join('|'));
    });
    let pushMore!: (value: string) => void;
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('first'));
        // The second chunk is made only once the handler has read the first: the body is not
        // collected before it is sent.
        controller.enqueue(new TextEncoder().encode(await new Promise<string>((resolve) => (pushMore = resolve))));
        controller.close();
      },
    });
    const answer = app.inject('/upload', { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    await firstSeen;
    expect(seen).toEqual(['first']);
    pushMore('second');
    expect(await (await answer).text()).toBe('first|second');
  });

  it('answers 50 injects at once, each with its own answer', async () => {
    const app = server();
    app.post('/double/:n', async (req, res) => {
      const { n } = (await req.json()) as { n: number };
      // Answers out of order: the later requests sleep less.
      await new Promise((resolve) => setTimeout(resolve, 50 - n));
      res.json({ path: Number(req.params.n), doubled: n * 2 });
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        app.inject(`/double/${n}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n }) }).then((r) => r.json()),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 50 }, (_, n) => ({ path: n, doubled: n * 2 })));
  });

  it('gives a streamed answer chunk by chunk, before the handler ends it', async () => {
    const app = server();
    let carryOn!: () => void;
    const more = new Promise<void>((resolve) => (carryOn = resolve));
    app.get('/events', async (req, res) => {
      const events = res.sse();
      events.send('first');
      await more;
      events.send('second');
      events.close();
    });
    const res = await app.inject('/events');
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let first = '';
    while (!first.includes('data: first\n\n')) first += text.decode((await reader.read()).value);
    // The handler is still waiting: the first event came before the end.
    expect(first).not.toContain('second');
    carryOn();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += text.decode(chunk.value);
    expect(rest).toBe('data: second\n\n');
  });

  it('reads a large answer whole', async () => {
    const app = server();
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'abcdefgh');
    app.get('/big', (req, res) => res.send(big));
    const res = await app.inject('/big');
    expect(res.headers.get('content-length')).toBe(String(big.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  });

  it('sends a thrown error through the error path: the default 500, or the custom handler', async () => {
    const app = server();
    const hooked: string[] = [];
    app.addHook('onError', (err) => {
      hooked.push((err as Error).message);
    });
    app.get('/boom', () => {
      throw new Error('kaboom');
    });
    app.get('/teapot', async () => {
      throw new VeloxError('APP_TEAPOT', 'short and stout', { status: 418 });
    });
    const boom = await app.inject('/boom');
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' });
    const teapot = await app.inject('/teapot');
    expect(teapot.status).toBe(418);
    expect(await teapot.json()).toMatchObject({ statusCode: 418, code: 'APP_TEAPOT', message: 'short and stout' });
    expect(hooked).toEqual(['kaboom', 'short and stout']);

    const custom = server();
    custom.setErrorHandler((err, req, res) => res.status(503).set('x-handled', 'yes').send(`handled: ${(err as Error).message}`));
    custom.get('/boom', () => {
      throw new Error('kaboom');
    });
    const handled = await custom.inject('/boom');
    expect(handled.status).toBe(503);
    expect(handled.headers.get('x-handled')).toBe('yes');
    expect(await handled.text()).toBe('handled: kaboom');
  });

  it('runs onRequest, onSend and onResponse hooks and middlewares, as for any request', async () => {
    const app = server();
    const order: string[] = [];
    app.addHook('onRequest', (req) => {
      order.push(`onRequest ${req.path}`);
    });
    app.addHook('onSend', (req, res) => {
      order.push('onSend');
      res.set('x-sent-by', 'onSend');
    });
    let responded!: () => void;
    const onResponse = new Promise<void>((resolve) => (responded = resolve));
    app.addHook('onResponse', (req, res) => {
      order.push(`onResponse ${res.statusCode}`);
      responded();
    });
    app.use((req, res, next) => {
      order.push('middleware');
      next();
    });
    app.get('/hooked', (req, res) => {
      order.push('handler');
      res.status(202).send('hooked');
    });
    const res = await app.inject('/hooked');
    expect(res.status).toBe(202);
    expect(res.headers.get('x-sent-by')).toBe('onSend');
    expect(await res.text()).toBe('hooked');
    await onResponse;
    expect(order).toEqual(['onRequest /hooked', 'middleware', 'handler', 'onSend', 'onResponse 202']);
  });

  it('keeps every header of the answer (several Set-Cookie apart) and the reason phrase sent', async () => {
    const app = server();
    app.get('/cookies', (req, res) => {
      res.statusMessage = 'Baked Fresh';
      res.cookie('a', '1', { httpOnly: true });
      res.cookie('b', '2, with a comma', { path: '/b' });
      res.append('x-list', 'one');
      res.append('x-list', 'two');
      res.status(201).send('ok');
    });
    const res = await app.inject('/cookies');
    expect(res.status).toBe(201);
    expect(res.statusText).toBe('Baked Fresh');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2%2C%20with%20a%20comma; Path=/b']);
    expect(res.headers.get('x-list')).toBe('one, two');
    expect(res.headers.get('content-length')).toBe('2');
    expect(res.headers.get('date')).toMatch(/GMT$/);
  });

  it('gives a status the Response constructor refuses (an app’s own 799) as it came', async () => {
    const app = server();
    app.get('/odd', (req, res) => res.status(799).send('odd'));
    const res = await app.inject('/odd');
    expect([res.status, res.ok]).toEqual([799, false]);
    expect(await res.text()).toBe('odd');
  });

  it('gives HEAD, 204 and 304 answers a null body', async () => {
    const app = server();
    app.get('/page', (req, res) => res.send('hello'));
    app.get('/none', (req, res) => res.sendStatus(204));
    app.get('/same', (req, res) => res.status(304).end());
    const head = await app.inject('/page', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('5');
    expect(head.body).toBeNull();
    for (const [path, status] of [['/none', 204], ['/same', 304]] as const) {
      const res = await app.inject(path);
      expect(res.status).toBe(status);
      expect(res.body).toBeNull();
    }
  });

  it('sends the URL host as Host (localhost for a path), or the Host given', async () => {
    const app = server();
    app.get('/host', (req, res) => res.json({ host: req.get('host'), hostname: req.hostname }));
    expect(await (await app.inject('/host')).json()).toEqual({ host: 'localhost', hostname: 'localhost' });
    expect(await (await app.inject('http://api.example.com:8080/host')).json()).toEqual({ host: 'api.example.com:8080', hostname: 'api.example.com' });
    expect(await (await app.inject('/host', { headers: { host: 'given.test' } })).json()).toEqual({ host: 'given.test', hostname: 'given.test' });
  });

  it('sends a target as it is given, where the URL would normalise it', async () => {
    const app = server();
    app.get('/*', (req, res) => res.json({ url: req.url, path: req.path }));
    expect(await (await app.inject('/a/../b?x=%41')).json()).toEqual({ url: '/b?x=%41', path: '/b' });
    expect(await (await app.inject('/ignored', { target: '/a/../b?x=%41' })).json()).toEqual({ url: '/a/../b?x=%41', path: '/a/../b' });
  });

  it('does not follow redirects: the answer is the app’s own', async () => {
    const app = server();
    app.get('/old', (req, res) => res.redirect(301, '/new'));
    app.get('/new', (req, res) => res.send('new'));
    const res = await app.inject('/old');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/new');
  });

  it('aborts with the signal: before the answer, and while its body streams', async () => {
    const app = server();
    let closed!: (aborted: boolean) => void;
    const serverSaw = new Promise<boolean>((resolve) => (closed = resolve));
    app.get('/forever', (req, res) => {
      res.on('close', () => closed(res.aborted));
      res.write('start');
    });
    app.get('/never', () => {});
    const before = new AbortController();
    const pending = app.inject('/never', { signal: before.signal });
    before.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await expect(app.inject('/never', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });

    const during = new AbortController();
    const res = await app.inject('/forever', { signal: during.signal });
    const reader = res.body!.getReader();
    expect(text.decode((await reader.read()).value)).toBe('start');
    const next = reader.read();
    during.abort();
    await expect(next).rejects.toMatchObject({ name: 'AbortError' });
    expect(await serverSaw).toBe(true);
  });

  it('closes the connection when the body is cancelled', async () => {
    const app = server();
    let closed!: (aborted: boolean) => void;
    const serverSaw = new Promise<boolean>((resolve) => (closed = resolve));
    app.get('/forever', (req, res) => {
      res.on('close', () => closed(res.aborted));
      res.write('start');
    });
    const res = await app.inject('/forever');
    await res.body!.cancel();
    expect(await serverSaw).toBe(true);
  });

  it('speaks TLS to a TLS server', async () => {
    const dir = await tempDir('velox-inject-cert-');
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], {
      stdio: 'ignore',
    });
    const app = server({ tls: { key, cert } });
    app.post('/secure', async (req, res) => res.json({ protocol: req.protocol, secure: req.secure, body: await req.text() }));
    const res = await app.inject('/secure', { method: 'POST', body: 'over tls' });
    expect(await res.json()).toEqual({ protocol: 'https', secure: true, body: 'over tls' });
  });
});
