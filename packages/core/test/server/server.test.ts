import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { parseResponses, raw, rawConnection, sleep, start, tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type Plugin, Server, VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

describe('Server routes', () => {
  it('answers each method on its own route', async () => {
    const app = server();
    for (const m of ['get', 'post', 'put', 'patch', 'delete', 'options'] as const) {
      app[m]('/r', (req, res) => res.send(`${m}:${req.method}`));
    }
    app.any('/any', (req, res) => res.send(`any:${req.method}`));
    const { url } = await start(app);
    for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      expect(await (await fetch(`${url}/r`, { method: m })).text()).toBe(`${m.toLowerCase()}:${m}`);
    }
    expect(await (await fetch(`${url}/any`, { method: 'PATCH' })).text()).toBe('any:PATCH');
  });

  it('answers every method on an all() route, as on any()', async () => {
    const app = server();
    app.all('/api/*', (req, res) => res.send(`all:${req.method}:${req.path}`));
    const { url } = await start(app);
    for (const m of ['GET', 'POST', 'PUT', 'DELETE']) {
      expect(await (await fetch(`${url}/api/x`, { method: m })).text()).toBe(`all:${m}:/api/x`);
    }
    expect(app.routes()).toContainEqual({ method: 'ANY', path: '/api/*' });
  });

  it('answers HEAD from the GET route, with the length and no body', async () => {
    const app = server();
    let calls = 0;
    app.get('/page', (req, res) => {
      calls++;
      res.set('x-from', 'get').send('hello world');
    });
    const { port } = await start(app);
    const { text } = await raw(port, 'HEAD /page HTTP/1.1\r\nHost: x\r\n\r\nGET /page HTTP/1.1\r\nHost: x\r\n\r\n');
    const [head, get] = text.split(/(?=HTTP\/1\.1 )/);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(head).toMatch(/content-length: 11/i);
    expect(head).toMatch(/x-from: get/);
    expect(head!.endsWith('\r\n\r\n')).toBe(true);
    expect(get!.endsWith('hello world')).toBe(true);
    expect(calls).toBe(2);
  });

  it('lets an explicit HEAD route win over the GET one', async () => {
    const app = server();
    app.get('/x', (req, res) => res.send('get'));
    app.head('/x', (req, res) => res.set('x-head', 'yes').end());
    const { url } = await start(app);
    expect((await fetch(`${url}/x`, { method: 'HEAD' })).headers.get('x-head')).toBe('yes');
  });

  it('matches /* wildcards and exposes what they matched', async () => {
    const app = server();
    app.get('/files/*', (req, res) => res.send(req.params['*']));
    const { url } = await start(app);
    expect(await (await fetch(`${url}/files/a/b%20c.txt`)).text()).toBe('a/b c.txt');
  });

  it('answers 404 through the not-found handler, after the server middlewares', async () => {
    const app = server();
    app.use((req, res, next) => {
      res.set('x-mw', 'ran');
      next();
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/nothing?q=1`);
    expect(r.status).toBe(404);
    expect(r.headers.get('x-mw')).toBe('ran');
    expect(await r.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /nothing' });

    const custom = server();
    custom.setNotFoundHandler((req, res) => res.status(404).send(`no ${req.path}`));
    const second = await start(custom);
    expect(await (await fetch(`${second.url}/zz`)).text()).toBe('no /zz');
  });

  it('hands a request to the not-found handler when a handler calls next(), or through notFound()', async () => {
    const app = server();
    app.setNotFoundHandler((req, res) => res.status(404).send(`custom ${req.path}`));
    app.get('/pass', (req, res, next) => next());
    app.get('/files/*', (req, res) => (req.params['*'] === 'ok' ? res.send('file') : app.notFound(req, res)));
    const { url } = await start(app);
    const r = await fetch(`${url}/pass`);
    expect([r.status, await r.text()]).toEqual([404, 'custom /pass']);
    expect(await (await fetch(`${url}/files/ok`)).text()).toBe('file');
    expect(await (await fetch(`${url}/files/nope`)).text()).toBe('custom /files/nope');
  });

  it("lets a user's any('/*') be the catch-all, and refuses one after listen", async () => {
    const app = server();
    app.get('/a', (req, res) => res.send('a'));
    app.any('/*', (req, res) => res.status(404).send(`mine ${req.method}`));
    const { url } = await start(app);
    expect(await (await fetch(`${url}/a`)).text()).toBe('a');
    expect(await (await fetch(`${url}/zzz`, { method: 'DELETE' })).text()).toBe('mine DELETE');
    const late = server();
    await start(late);
    expect(() => late.any('/*', (req, res) => res.send('x'))).toThrow(/not-found route/);
  });

  it('runs path-scoped middleware only under its prefix, even for param routes', async () => {
    const app = server();
    app.use('/admin', (req, res, next) => (req.get('x-admin') ? next() : res.status(401).send('no')));
    app.get('/admin/panel', (req, res) => res.send('panel'));
    app.get('/:section/x', (req, res) => res.send(`section ${req.params.section}`));
    app.get('/administrator', (req, res) => res.send('not under /admin'));
    const { url } = await start(app);
    expect((await fetch(`${url}/admin/panel`)).status).toBe(401);
    expect((await fetch(`${url}/admin/x`)).status).toBe(401);
    expect(await (await fetch(`${url}/public/x`)).text()).toBe('section public');
    expect(await (await fetch(`${url}/administrator`)).text()).toBe('not under /admin');
    expect(await (await fetch(`${url}/admin/panel`, { headers: { 'x-admin': '1' } })).text()).toBe('panel');
  });

  it('runs route middlewares in order, sync and async', async () => {
    const app = server();
    const order: string[] = [];
    app.use(async (req, res, next) => {
      order.push('server');
      await sleep(1);
      next();
    });
    app.get(
      '/',
      (req, res, next) => {
        order.push('route1');
        next();
      },
      async (req, res, next) => {
        order.push('route2');
        next();
      },
      (req, res) => {
        order.push('handler');
        res.send(order.join(','));
      },
    );
    const { url } = await start(app);
    expect(await (await fetch(url)).text()).toBe('server,route1,route2,handler');
  });

  it('throws on a duplicate route, a bad pattern, or use() after listen', async () => {
    const app = server();
    app.get('/a', (req, res) => res.send('a'));
    expect(() => app.get('/a', (req, res) => res.send('b'))).toThrow(/already registered/);
    expect(() => app.get('no-slash', (req, res) => res.send('b'))).toThrow(/starting with "\/"/);
    expect(() => app.get('/a/*/b', (req, res) => res.send('b'))).toThrow(/wildcard/);
    await start(app);
    expect(() => app.use((req, res, next) => next())).toThrow(/before listen/);
  });

  it('serves a route added after listen', async () => {
    const app = server();
    const { url } = await start(app);
    app.get('/late', (req, res) => res.send('late'));
    expect(await (await fetch(`${url}/late`)).text()).toBe('late');
  });

  it('lists routes', () => {
    const app = server();
    app.get('/a', (req, res) => res.send('a'));
    app.post('/b/:id', (req, res) => res.send('b'));
    // With strict off (the default), each route's trailing-slash twin is a route of its own.
    expect(app.routes()).toEqual([
      { method: 'GET', path: '/a' },
      { method: 'GET', path: '/a/' },
      { method: 'POST', path: '/b/:id' },
      { method: 'POST', path: '/b/:id/' },
    ]);
  });
});

describe('Server plugins and hooks', () => {
  it('registers sync and async plugins in order before listening', async () => {
    const app = server();
    const order: string[] = [];
    const slow: Plugin<{ path: string }> = async (s, options) => {
      await sleep(20);
      order.push('slow');
      s.get(options.path, (req, res) => res.send('from plugin'));
    };
    const fast: Plugin = () => {
      order.push('fast');
    };
    app.register(slow, { path: '/p' });
    app.register(fast);
    const { url } = await start(app);
    expect(order).toEqual(['slow', 'fast']);
    expect(await (await fetch(`${url}/p`)).text()).toBe('from plugin');
  });

  it('runs lifecycle hooks in order and validates hook names', async () => {
    const app = server();
    const seen: string[] = [];
    app.addHook('onRoute', (route) => seen.push(`route ${route.method} ${route.path}`));
    app.addHook('onRequest', (req) => {
      seen.push(`request ${req.path}`);
    });
    app.addHook('onSend', (req, res) => {
      res.set('x-hooked', 'yes');
      seen.push('send');
    });
    app.addHook('onResponse', (req, res) => seen.push(`response ${res.statusCode} ${req.get('x-id')}`));
    app.addHook('onListen', () => {
      seen.push('listen');
    });
    app.addHook('onClose', () => {
      seen.push('close');
    });
    expect(() => app.addHook('onNope' as 'onSend', () => {})).toThrow(/Unknown hook "onNope"/);
    app.get('/', (req, res) => res.send('x'));
    const { url } = await start(app);
    const r = await fetch(url, { headers: { 'x-id': '7' } });
    expect(r.headers.get('x-hooked')).toBe('yes');
    await app.close();
    expect(seen).toEqual(['route GET /', 'listen', 'request /', 'send', 'response 200 7', 'close']);
  });

  it('emits finish and close on the response', async () => {
    const app = server();
    const events: string[] = [];
    app.get('/', async (req, res) => {
      res.on('finish', () => events.push('finish'));
      res.on('close', () => events.push('close'));
      await sleep(1);
      res.send('x');
    });
    const { url } = await start(app);
    await (await fetch(url)).text();
    expect(events).toEqual(['finish', 'close']);
  });
});

describe('Server listen and close', () => {
  it('listens on port 0 and reports the port', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('Hi'));
    const { port } = await app.listen(0, '127.0.0.1');
    expect(port).toBeGreaterThan(0);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('Hi');
  });

  it('rejects when the port is taken', async () => {
    const a = server();
    const { port } = await start(a);
    const b = server();
    await expect(b.listen(port, '127.0.0.1')).rejects.toMatchObject({ code: 'VELOX_ERR_LISTEN_FAILED' });
  });

  it('listens on a Unix socket', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('over unix'));
    const path = join(await tempDir('velox-'), 's.sock');
    const info = await app.listen(path);
    expect(info.host).toBe(path);
    const body = await new Promise<string>((resolve, reject) => {
      httpRequest({ socketPath: path, path: '/' }, (res) => {
        let data = '';
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve(data));
      })
        .on('error', reject)
        .end();
    });
    expect(body).toBe('over unix');
  });

  it('lets in-flight requests finish on close, with Connection: close, then refuses new connections', async () => {
    const app = server();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    app.get('/slow', async (req, res) => {
      started();
      await sleep(150);
      res.send('done');
    });
    const { url, port } = await start(app);
    const pending = fetch(`${url}/slow`);
    // In flight: the handler runs (a fixed sleep here raced the client's connect on a busy machine).
    await running;
    const closing = app.close({ timeout: 2000 });
    const r = await pending;
    expect(await r.text()).toBe('done');
    expect(r.headers.get('connection')).toBe('close');
    await closing;
    await expect(raw(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('cuts requests still running when the close timeout passes', async () => {
    const app = server();
    app.get('/forever', () => new Promise(() => {}));
    const { url } = await start(app);
    const pending = fetch(`${url}/forever`).then(
      () => 'answered',
      () => 'cut',
    );
    await sleep(30);
    const t0 = Date.now();
    await app.close({ timeout: 100 });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await pending).toBe('cut');
  });

  it('answers requests that reached the server just before close(), with Connection: close', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('x'));
    app.get('/slow', async (req, res) => {
      await sleep(50);
      res.send('done');
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.until((text) => text.endsWith('\r\n\r\nx'), 'the first answer');
    // Handed to the kernel, but uWS reads it only when the event loop polls, after close() began.
    client.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await app.close({ timeout: 2000 });
    await client.closed;
    const answers = parseResponses(client.text());
    expect(answers.map((a) => [a.status, a.body, a.headers.connection])).toEqual([
      [200, 'x', undefined],
      [200, 'done', 'close'],
    ]);
  });

  it('answers a request that arrives while a handler calls close()', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('x'));
    app.get('/slow', async (req, res) => {
      await sleep(50);
      res.send('done');
    });
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.until((text) => text.endsWith('\r\n\r\nx'), 'the first answer');
    let closing: Promise<void> | undefined;
    // A handler runs while uWS handles the readiness it polled: the request written here is seen
    // by a later poll only.
    app.get('/stop', (req, res) => {
      client.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
      closing = app.close({ timeout: 2000 });
      res.send('stopping');
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/stop`)).text()).toBe('stopping');
    await closing;
    await client.closed;
    expect(parseResponses(client.text()).map((a) => [a.body, a.headers.connection])).toEqual([
      ['x', undefined],
      ['done', 'close'],
    ]);
  });

  it('closes idle keep-alive connections on close', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('x'));
    const { port } = await start(app);
    const client = await rawConnection(port);
    await client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.until((text) => text.endsWith('\r\n\r\nx'), 'the answer');
    await app.close();
    const closed = await Promise.race([client.closed.then(() => true), sleep(3000).then(() => false)]);
    expect(closed).toBe(true);
  });
});

describe('Small API surface', () => {
  it('covers the alias members', async () => {
    const app = server();
    expect(app.listening).toBe(false);
    expect(typeof app.uws.publish).toBe('function');
    app.use((req, res, next) => {
      req.locals.user = 'ann';
      next();
    });
    app.get('/', (req, res) => {
      res.status(203).set({ 'x-a': '1', 'x-n': 2 });
      res.json({
        headers: res.getHeaders(),
        alias: req.header('X-Test'),
        referrer: req.get('referrer'),
        secure: req.secure,
        hostname: req.hostname,
        user: req.locals.user,
      });
    });
    const { port } = await start(app);
    expect(app.listening).toBe(true);
    const r = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'x-test': 't', referer: 'https://ref.example/' } });
    expect(r.status).toBe(203);
    expect(await r.json()).toEqual({
      headers: { 'x-a': '1', 'x-n': '2' },
      alias: 't',
      referrer: 'https://ref.example/',
      secure: false,
      hostname: '127.0.0.1',
      user: 'ann',
    });
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n');
    expect(text).toContain('"hostname":"[::1]"');
    await app.close();
    expect(app.listening).toBe(false);
  });
});

describe('Server options', () => {
  it('throws at start-up on bad options, saying what to write', () => {
    expect(() => new Server({ maxBodyLength: -1 })).toThrow(/maxBodyLength must be a whole number/);
    expect(() => new Server({ cookieSecret: '' })).toThrow(/cookieSecret/);
    expect(() => new Server({ trustProxy: 'not an address' })).toThrow(/trustProxy/);
  });

  it('is a VeloxError with a code for every start-up mistake', () => {
    try {
      new Server({ maxBodyLength: 1.5 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(VeloxError);
      expect((err as VeloxError).code).toBe('VELOX_ERR_INVALID_OPTION');
    }
  });
});
