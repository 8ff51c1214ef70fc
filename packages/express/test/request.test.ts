import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { loadUws, type Request } from '@velox/core';
import { server } from './helpers.ts';

/** Reads a request body the way raw-body does: data/end/error listeners on `req` itself. */
function readLikeRawBody(req: Request): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const onEnd = (err?: Error) => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onEnd);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onEnd);
  });
}

describe('req as a Node readable stream', () => {
  it('hands the body to data and end listeners, and sets req.body for the handler', async () => {
    const app = server();
    app.use(async (req, res, next) => {
      if (!req.get('content-type')?.startsWith('application/json')) return next();
      req.body = JSON.parse((await readLikeRawBody(req)).toString());
      next();
    });
    app.post('/echo', (req, res) => res.json({ body: req.body, complete: req.complete, readable: req.readable, ended: req.readableEnded }));
    const { url } = await start(app);
    const r = await fetch(`${url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    expect(await r.json()).toEqual({ body: { a: [1, 2] }, complete: true, readable: false, ended: true });
  });

  it('reads a chunked body of several chunks, in order, with backpressure through pipe()', async () => {
    const app = server();
    app.post('/hash', (req, res) => {
      const hash = createHash('sha256');
      let size = 0;
      const sink = new Writable({
        highWaterMark: 1,
        write(chunk: Buffer, _enc, done) {
          size += chunk.length;
          hash.update(chunk);
          setImmediate(done);
        },
      });
      req.pipe(sink).on('finish', () => res.send(`${size} ${hash.digest('hex')}`));
    });
    const { port } = await start(app);
    const parts = ['a'.repeat(70_000), 'b'.repeat(70_000), 'c'.repeat(10)];
    const chunked = parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join('');
    const { text } = await raw(port, `POST /hash HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}0\r\n\r\n`, { quietMs: 1000 });
    const expected = createHash('sha256').update(parts.join('')).digest('hex');
    expect(text).toContain(`${parts.join('').length} ${expected}`);
  });

  it('keeps custom events off the body: req.emit("timeout") and then req.json() still works', async () => {
    const app = server();
    app.use((req, res, next) => {
      req.on('timeout', (ms: number) => res.set('x-timeout', String(ms)));
      req.emit('timeout', 5);
      next();
    });
    app.post('/json', async (req, res) => res.json({ got: await req.json(), listeners: req.listenerCount('timeout') }));
    const { url } = await start(app);
    const r = await fetch(`${url}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
    expect(r.headers.get('x-timeout')).toBe('5');
    expect(await r.json()).toEqual({ got: { x: 1 }, listeners: 1 });
  });

  it('ends at once for a request without a body, once resumed (finalhandler and on-finished do this)', async () => {
    const app = server();
    app.get('/', (req, res) => {
      const before = { complete: req.complete, readable: req.readable, ended: req.readableEnded };
      req.on('end', () => res.json({ before, after: { complete: req.complete, readable: req.readable, ended: req.readableEnded } }));
      req.resume();
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).json()).toEqual({
      before: { complete: true, readable: true, ended: false },
      after: { complete: true, readable: false, ended: true },
    });
  });

  it('gives an ended, empty stream once the body was read with json()', async () => {
    const app = server();
    app.post('/', async (req, res) => {
      const body = await req.json();
      const late = await readLikeRawBody(req);
      res.json({ body, late: late.length, readable: req.readable });
    });
    const { url } = await start(app);
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' });
    expect(await r.json()).toEqual({ body: [1], late: 0, readable: false });
  });

  it('pauses and resumes, reads in paused mode, and decodes with setEncoding()', async () => {
    const app = server();
    app.post('/', (req, res) => {
      req.setEncoding('utf8');
      req.pause();
      const seen: string[] = [req.isPaused() ? 'paused' : 'flowing'];
      let text = '';
      req.on('readable', () => {
        let chunk: unknown = req.read();
        while (chunk !== null) {
          text += chunk as string;
          chunk = req.read();
        }
      });
      req.on('end', () => res.json({ seen, text, type: typeof text }));
    });
    const { url } = await start(app);
    expect(await (await fetch(url, { method: 'POST', body: 'héllo' })).json()).toEqual({ seen: ['paused'], text: 'héllo', type: 'string' });
  });

  it('unpipes a destination, and emits aborted and a socket close when the client leaves mid-body', async () => {
    const app = server();
    const events: string[] = [];
    let settled!: () => void;
    const done = new Promise<void>((resolve) => {
      settled = resolve;
    });
    app.post('/', (req, res) => {
      const sink = new Writable({ write: (_c, _e, cb) => cb() });
      req.pipe(sink);
      req.unpipe(sink);
      req.on('aborted', () => events.push('aborted'));
      req.socket.on('close', () => {
        events.push('socket close');
        settled();
      });
      req.on('error', () => events.push('error'));
      req.resume();
    });
    const { port } = await start(app);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part');
    await new Promise((r) => setTimeout(r, 100));
    socket.destroy();
    await done;
    expect(events).toEqual(expect.arrayContaining(['aborted', 'socket close']));
  });
});

describe('req: a client that leaves mid-body', () => {
  it('does not crash the process when the reader stopped listening for errors on aborted (raw-body does)', async () => {
    const app = server();
    let settled!: (what: string) => void;
    const outcome = new Promise<string>((resolve) => {
      settled = resolve;
    });
    app.post('/', (req, res) => {
      const onError = () => settled('error listener called');
      req.on('data', () => {});
      req.on('error', onError);
      req.on('aborted', () => {
        req.removeListener('error', onError);
        setTimeout(() => settled(`aborted, error listeners left: ${req.listenerCount('error')}`), 50);
      });
    });
    const { port } = await start(app);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.on('connect', resolve));
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nsome');
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    expect(await outcome).toBe('aborted, error listeners left: 0');
  });
});

describe("req.on('close')", () => {
  it('fires when the client leaves a long answer (an SSE handler stops its timer), and after a normal answer', async () => {
    const app = server();
    const events: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    app.get('/events', (req, res) => {
      res.write('data: hello\n\n');
      timer = setInterval(() => res.write(': ping\n\n'), 20);
      req.on('close', () => {
        clearInterval(timer);
        events.push(`events closed, aborted=${req.aborted}`);
      });
    });
    app.get('/plain', (req, res) => {
      req.on('close', () => events.push('plain closed'));
      res.send('ok');
    });
    const { url, port } = await start(app);
    expect(await (await fetch(`${url}/plain`)).text()).toBe('ok');
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.write('GET /events HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => received).toContain('hello');
    socket.destroy();
    await expect.poll(() => events).toEqual(['plain closed', 'events closed, aborted=true']);
  });
});

describe('req: the Node and Express properties middlewares read', () => {
  it('reports req.socket.remotePort as undefined: uWS v20.51 cannot tell the peer\'s port', async () => {
    const app = server();
    app.get('/', (req, res) => res.json({ port: req.socket.remotePort ?? null, address: req.socket.remoteAddress }));
    const { url } = await start(app);
    expect(await (await fetch(url)).json()).toEqual({ port: null, address: '127.0.0.1' });
    // Its HttpResponse has the address getters and no getRemotePort. A uWS that adds one (upstream
    // added it after v20.51) makes this fail: then wire remotePort to it.
    const uws = loadUws();
    const members = await new Promise<string[]>((resolve) => {
      const bare = uws.App().get('/*', (ures) => {
        const names = Object.getOwnPropertyNames(Object.getPrototypeOf(ures)).filter((n) => /remote/i.test(n));
        ures.end('x');
        resolve(names.sort());
      });
      bare.listen('127.0.0.1', 0, (token) => {
        void fetch(`http://127.0.0.1:${uws.us_socket_local_port(token)}/`).then(async (r) => {
          await r.text();
          uws.us_listen_socket_close(token);
          bare.close();
        });
      });
    });
    expect(members).toEqual(['getProxiedRemoteAddress', 'getProxiedRemoteAddressAsText', 'getRemoteAddress', 'getRemoteAddressAsText']);
  });

  it('has httpVersion, socket, connection, rawHeaders, res and app', async () => {
    const app = server({ trustProxy: 'loopback' });
    app.get('/', (req, res) =>
      res.json({
        version: [req.httpVersion, req.httpVersionMajor, req.httpVersionMinor],
        remote: req.socket.remoteAddress,
        family: req.socket.remoteFamily,
        encrypted: req.connection.encrypted ?? null,
        same: req.connection === req.socket && res.socket === req.socket,
        readable: [req.socket.readable, req.socket.writable, req.socket.destroyed],
        raw: req.rawHeaders.slice(req.rawHeaders.indexOf('x-one'), req.rawHeaders.indexOf('x-one') + 2),
        pair: req.res === res && res.req === req,
        trust: req.app.get('trust proxy'),
        sameApp: req.app === res.app,
      }),
    );
    const { url } = await start(app);
    expect(await (await fetch(url, { headers: { 'x-one': '1' } })).json()).toEqual({
      version: ['1.1', 1, 1],
      remote: '127.0.0.1',
      family: 'IPv4',
      encrypted: null,
      same: true,
      readable: [true, true, false],
      raw: ['x-one', '1'],
      pair: true,
      trust: 'loopback',
      sameApp: true,
    });
  });

  it("answers req.app.get() for Express's settings, stores others, and refuses to change fixed ones", async () => {
    const app = server();
    let thrown = '';
    app.get('/', (req, res) => {
      req.app.set('answer', 42).enable('feature');
      try {
        req.app.set('trust proxy', true);
      } catch (err) {
        thrown = (err as Error).message;
      }
      res.json({
        trust: req.app.get('trust proxy'),
        trustFn: (req.app.get('trust proxy fn') as (a: string, i: number) => boolean)('127.0.0.1', 0),
        etag: req.app.enabled('etag'),
        env: req.app.get('env'),
        answer: req.app.get('answer'),
        feature: req.app.enabled('feature'),
        disabled: req.app.disabled('x-powered-by'),
        settings: Object.keys(req.app.settings).includes('answer'),
      });
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).json()).toEqual({
      trust: false,
      trustFn: false,
      etag: false,
      env: process.env.NODE_ENV || 'development',
      answer: 42,
      feature: true,
      disabled: true,
      settings: true,
    });
    expect(thrown).toMatch(/new Server\(\{ trustProxy \}\)/);
  });
});
