import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { raw, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type AnyExpress, ask, majors, nodeHttp, nodeHttps } from './helpers.ts';

const text = new TextDecoder();

/** The same app for the real Express and for @velox/express. */
function buildApp(ex: AnyExpress) {
  const app = ex();
  app.set('env', 'test');
  app.use(ex.json());
  app.get('/users/:id', (req: any, res: any) => res.json({ id: req.params.id, query: req.query, path: req.path }));
  app.post('/items', (req: any, res: any) => res.status(201).json({ got: req.body }));
  app.get('/cookies', (req: any, res: any) => {
    res.cookie('a', '1', { httpOnly: true });
    res.cookie('b', 'two', { path: '/b', maxAge: 60_000 });
    res.send('baked');
  });
  app.get('/reason', (req: any, res: any) => {
    res.statusMessage = 'Quite Fine';
    res.status(203).send('reason');
  });
  app.get('/old', (req: any, res: any) => res.redirect(301, '/new'));
  app.get('/boom', () => {
    throw new Error('kaboom');
  });
  app.get('/nothing', (req: any, res: any) => res.sendStatus(204));
  app.get('/text', (req: any, res: any) => res.type('text').send('plain words'));
  app.use((err: any, req: any, res: any, next: any) => (req.path === '/boom' ? res.status(500).json({ error: err.message }) : next(err)));
  return app;
}

describe.each(majors)('http.createServer(app) of @velox/express $major', ({ velox, express }) => {
  it('answers as the real Express does on the same Node server', async () => {
    const theirs = await nodeHttp(buildApp(express));
    const ours = await nodeHttp(buildApp(velox));
    for (const probe of [
      '/users/42?tab=a',
      { method: 'POST', path: '/items', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' },
      { method: 'POST', path: '/items', headers: { 'content-type': 'application/json' }, body: '{bad' },
      '/cookies',
      '/reason',
      '/old',
      '/boom',
      '/nothing',
      '/text',
      { method: 'HEAD', path: '/text' },
      '/missing',
    ]) {
      const [expected, got] = [await ask(theirs.url, probe), await ask(ours.url, probe)];
      // Express's error page quotes the stack, which names the module that threw (so its length differs).
      if (expected.body.includes('<pre>')) {
        for (const answer of [expected, got]) {
          answer.body = answer.body.replace(/<pre>[\s\S]*<\/pre>/, '<pre/>');
          delete answer.headers['content-length'];
        }
      }
      expect(got, JSON.stringify(probe)).toEqual(expected);
    }
  });

  it('keeps every Set-Cookie apart, and the reason phrase the app set', async () => {
    const { url } = await nodeHttp(buildApp(velox));
    const cookies = await fetch(`${url}/cookies`);
    expect(cookies.headers.getSetCookie()).toEqual([
      'a=1; Path=/; HttpOnly',
      expect.stringMatching(/^b=two; Max-Age=60; Path=\/b; Expires=.+ GMT$/),
    ]);
    const reason = await fetch(`${url}/reason`);
    expect([reason.status, reason.statusText]).toEqual([203, 'Quite Fine']);
  });

  it('passes the Host header and the request target on as received; the app sees the loopback peer, over http', async () => {
    const app = velox();
    app.use((req: any, res: any) => res.json({ url: req.url, host: req.get('host'), hostname: req.hostname, ip: req.ip, protocol: req.protocol, secure: req.secure }));
    const { port } = await nodeHttp(app);
    const { text: answer } = await raw(port, 'GET /a/../b?x=%41 HTTP/1.1\r\nHost: shop.example:8080\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      url: '/a/../b?x=%41',
      host: 'shop.example:8080',
      hostname: 'shop.example',
      ip: '127.0.0.1',
      protocol: 'http',
      secure: false,
    });
  });

  it('gives a streamed answer chunk by chunk, before the app ends it', async () => {
    const app = velox();
    let carryOn!: () => void;
    const more = new Promise<void>((resolve) => (carryOn = resolve));
    app.get('/stream', async (req: any, res: any) => {
      res.type('text');
      res.write('first;');
      await more;
      res.end('second');
    });
    const { url } = await nodeHttp(app);
    const res = await fetch(`${url}/stream`);
    const reader = res.body!.getReader();
    expect(text.decode((await reader.read()).value)).toBe('first;');
    carryOn();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += text.decode(chunk.value);
    expect(rest).toBe('second');
  });

  it('streams the request body to the app as it arrives', async () => {
    const app = velox();
    const seen: string[] = [];
    let firstSeen!: () => void;
    const first = new Promise<void>((resolve) => (firstSeen = resolve));
    app.post('/upload', (req: any, res: any) => {
      req.on('data', (chunk: Buffer) => {
        seen.push(chunk.toString());
        firstSeen();
      });
      req.on('end', () => res.send(seen.join('|')));
    });
    const { port } = await nodeHttp(app);
    const client = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/upload', headers: { 'transfer-encoding': 'chunked' } });
    const answered = new Promise<string>((resolve, reject) => {
      client.on('response', (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(body));
      });
      client.on('error', reject);
    });
    client.write('one');
    await first;
    expect(seen).toEqual(['one']);
    client.end('two');
    expect(await answered).toBe('one|two');
  });

  it('holds the app back while the Node client reads slowly (backpressure end to end)', async () => {
    const app = velox();
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'v');
    let written = 0;
    app.get('/big', (req: any, res: any) => {
      res.set('content-type', 'application/octet-stream');
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const { port } = await nodeHttp(app);
    const res = await new Promise<IncomingMessage>((resolve) => httpRequest({ host: '127.0.0.1', port, path: '/big' }, resolve).end());
    res.pause();
    // Let the writes run until something holds them back.
    let last = -1;
    await until(
      async () => {
        const now = written;
        const still = now === last;
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 200));
        return still && now > 0;
      },
      'the app to stop writing',
      10_000,
    );
    expect(written).toBeLessThan(total / 2);
    let received = 0;
    res.on('data', (d: Buffer) => (received += d.length));
    res.resume();
    await new Promise((resolve) => res.on('end', resolve));
    expect(received).toBe(total);
    expect(written).toBe(total);
  });

  it("ends the app's response when the Node client leaves mid-answer", async () => {
    const app = velox();
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    app.get('/forever', (req: any, res: any) => {
      res.on('close', () => closed());
      res.write('start');
    });
    const { port } = await nodeHttp(app);
    const res = await new Promise<IncomingMessage>((resolve) => httpRequest({ host: '127.0.0.1', port, path: '/forever' }, resolve).end());
    await new Promise((resolve) => res.once('data', resolve));
    res.destroy();
    await gone;
  });

  it('answers TRACE, which a WHATWG Request cannot carry, with 405', async () => {
    const app = velox();
    app.all('/x', (req: any, res: any) => res.send(req.method));
    const { port } = await nodeHttp(app);
    const { text: answer } = await raw(port, 'TRACE /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
  });

  it('serves over https.createServer(options, app)', async () => {
    const app = velox();
    app.use(velox.json());
    app.post('/secure', (req: any, res: any) => {
      res.cookie('s', '1');
      res.json({ got: req.body, protocol: req.protocol, socketEncrypted: Boolean(req.socket.encrypted) });
    });
    const { port } = await nodeHttps(app);
    const answer = await new Promise<{ status: number; cookies: string[] | undefined; body: string }>((resolve, reject) => {
      const client = httpsRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/secure', headers: { 'content-type': 'application/json' }, rejectUnauthorized: false },
        (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, cookies: res.headers['set-cookie'], body }));
        },
      );
      client.on('error', reject);
      client.end('{"over":"tls"}');
    });
    expect(answer.status).toBe(200);
    expect(answer.cookies).toEqual(['s=1; Path=/']);
    // The app answers behind a loopback connection of its own, which is plain HTTP (see the README).
    expect(JSON.parse(answer.body)).toEqual({ got: { over: 'tls' }, protocol: 'http', socketEncrypted: false });
  });
});
