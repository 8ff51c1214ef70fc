import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exitCode, run, tempDir } from '@velox/test-utils';
import express4 from 'express4';
import { describe, expect, it } from 'vitest';
import express from '../../src/index.ts';
import { type AnyExpress, both, compare } from './harness.ts';

/** A port nothing listens on now (the kernel's pick, let go at once). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('express() app', () => {
  it('answers the example app of issue 24 exactly as express@4 does', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'public'));
    await writeFile(join(dir, 'public', 'site.css'), 'body { color: red }');
    const users: Record<string, { id: string; name: string }> = { 1: { id: '1', name: 'ana' } };
    const build = (ex: AnyExpress) => {
      const app = ex();
      app.set('env', 'production');
      app.set('view engine', 'ejs');
      app.use(ex.json());
      app.use('/static', ex.static(join(dir, 'public')));
      const api = ex.Router();
      api.param('id', (req: any, _res: any, next: any, id: string) => {
        const user = users[id];
        if (!user) return next(Object.assign(new Error(`no user ${id}`), { status: 404 }));
        req.user = user;
        next();
      });
      api.route('/users/:id')
        .get((req: any, res: any) => res.json(req.user))
        .put((req: any, res: any) => res.json({ ...req.user, ...req.body }));
      app.use('/api', api);
      app.use((err: any, _req: any, res: any, _next: any) => res.status(500).json({ error: err.message }));
      return app;
    };
    const pair = await both(build);
    // serve-static streams the file; Node sends its Content-Length, uWS frames a streamed body chunked.
    const css = await pair.same('/static/site.css', { ignore: ['last-modified', 'etag'] });
    expect(css.body).toBe('body { color: red }');
    for (const probe of [
      '/api/users/1',
      '/api/users/2',
      { method: 'PUT', path: '/api/users/1', headers: { 'content-type': 'application/json' }, body: '{"name":"bea"}' },
      { method: 'PUT', path: '/api/users/1', headers: { 'content-type': 'application/json' }, body: '{bad' },
      { method: 'OPTIONS', path: '/api/users/1' },
      { method: 'DELETE', path: '/api/users/1' },
      '/static/none.css',
      '/static',
    ]) {
      await pair.same(probe);
    }
  });

  it('sends the same head bytes as express@4 for a plain answer (raw socket)', async () => {
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.get('/', (_req: any, res: any) => res.set('X-Custom', 'v').status(201).send('exact'));
      return app;
    });
    const [theirs, ours] = await pair.raw('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const lines = (text: string) => text.split('\r\n').map((l) => l.toLowerCase()).sort();
    expect(lines(ours)).toEqual(lines(theirs));
    expect(ours.startsWith('HTTP/1.1 201 Created\r\n')).toBe(true);
  });

  it('keeps settings: set/get/enable/disable/enabled/disabled, defaults as Express 4 has them, app.path() of mounted apps', () => {
    for (const ex of [express4 as AnyExpress, express as AnyExpress]) {
      const app = ex();
      const blog = ex();
      const admin = ex();
      app.use('/blog', blog);
      blog.use('/admin', admin);
      app.set('shared', 7);
      const seen = {
        etag: app.get('etag'),
        env: app.get('env'),
        qp: app.get('query parser'),
        offset: app.get('subdomain offset'),
        trust: app.get('trust proxy'),
        jsonp: app.get('jsonp callback name'),
        powered: app.enabled('x-powered-by'),
        views: app.get('views'),
        path: [app.path(), blog.path(), admin.path()],
        mountpath: [blog.mountpath, admin.mountpath],
        enabled: app.enable('foo').enabled('foo'),
        disabled: app.disable('foo').disabled('foo'),
        inherited: blog.get('shared'),
        locals: app.locals.settings === app.settings,
      };
      expect(seen).toEqual({
        etag: 'weak',
        env: process.env.NODE_ENV || 'development',
        qp: 'extended',
        offset: 2,
        trust: false,
        jsonp: 'callback',
        powered: true,
        views: join(process.cwd(), 'views'),
        path: ['', '/blog', '/blog/admin'],
        mountpath: ['/blog', '/admin'],
        enabled: true,
        disabled: true,
        inherited: 7,
        locals: true,
      });
    }
  });

  it('inherits the parent app prototypes in a sub-app: express.request/response additions and trust proxy', async () => {
    await compare(
      (ex: AnyExpress) => {
        const app = ex();
        app.set('trust proxy', true);
        app.response.hello = function (this: any) {
          return this.send('hello from proto');
        };
        const sub = ex();
        sub.get('/', (req: any, res: any) => (req.query.ip ? res.send(req.ip) : res.hello()));
        app.use('/sub', sub);
        return app;
      },
      ['/sub', { path: '/sub?ip=1', headers: { 'x-forwarded-for': '1.2.3.4' } }],
    );
  });

  it('listens with a callback and returns a server with address() and close()', async () => {
    const app = express();
    app.get('/', (_req: any, res: any) => res.send('up'));
    let called = false;
    const server = app.listen(0, '127.0.0.1', () => {
      called = true;
    });
    expect(server.address()).toBeNull();
    await once(server, 'listening');
    expect(called).toBe(true);
    const address = server.address()!;
    expect(address).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
    expect(await (await fetch(`http://127.0.0.1:${address.port}/`)).text()).toBe('up');
    await new Promise<void>((resolve, reject) => server.close((err?: Error) => (err ? reject(err) : resolve())));
    expect(server.listening).toBe(false);
    const again = await new Promise<Error | undefined>((resolve) => server.close(resolve));
    expect((again as NodeJS.ErrnoException).code).toBe('ERR_SERVER_NOT_RUNNING');
  });

  it("emits Node's listen error when the port is taken (EADDRINUSE, with Node's message), as express@4 does", async () => {
    const first = express().listen(0, '127.0.0.1');
    await once(first, 'listening');
    const port = first.address()!.port;
    const errors: unknown[] = [];
    for (const ex of [express4 as AnyExpress, express as AnyExpress]) {
      const second = ex().listen(port, '127.0.0.1');
      const [err] = await once(second, 'error');
      const { code, syscall, address, message } = err as NodeJS.ErrnoException & { address: string };
      errors.push({ code, syscall, address, port: (err as { port: number }).port, message, listening: second.listening, after: second.address() });
    }
    expect(errors[1]).toEqual(errors[0]);
    expect(errors[0]).toEqual({
      code: 'EADDRINUSE',
      syscall: 'listen',
      address: '127.0.0.1',
      port,
      message: `listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
      listening: false,
      after: null,
    });
    await new Promise((resolve) => first.close(resolve));
  });

  it('answers server.address() right after listen(port) as express@4 does: the address without a host, null with one (Node looks it up first)', async () => {
    const answers: unknown[] = [];
    for (const ex of [express4 as AnyExpress, express as AnyExpress]) {
      for (const host of [undefined, '127.0.0.1']) {
        const port = await freePort();
        const server = host === undefined ? ex().listen(port) : ex().listen(port, host);
        const right = server.address();
        await once(server, 'listening');
        const after = server.address();
        answers.push({ host, right: right && { ...right, port: right.port === port }, after: { ...after, port: after.port === port } });
        await new Promise((resolve) => server.close(resolve));
      }
    }
    expect(answers.slice(2)).toEqual(answers.slice(0, 2));
    expect(answers.slice(0, 2)).toEqual([
      { host: undefined, right: { address: '::', family: 'IPv6', port: true }, after: { address: '::', family: 'IPv6', port: true } },
      { host: '127.0.0.1', right: null, after: { address: '127.0.0.1', family: 'IPv4', port: true } },
    ]);
  });

  it('lets the workers of a cluster listen on one port, as Node does', async () => {
    const port = await freePort();
    const child = run(new URL('./fixtures/cluster-app.ts', import.meta.url), { PORT: String(port) });
    expect(await exitCode(child, 20_000)).toBe(0);
    const lines = child.output().trim().split('\n').sort();
    expect(lines).toEqual(['listening true', 'listening true', 'worker exited 0', 'worker exited 0']);
  });

  it('runs on Node http too (http.createServer(app)): test/node-listener/ holds the rest', async () => {
    const app = express();
    app.get('/', (_req: any, res: any) => res.send('on node'));
    const http = createServer(app as any);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as AddressInfo).port;
    const body = await new Promise<string>((resolve) =>
      request({ port, host: '127.0.0.1', agent: false }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(text));
      }).end(),
    );
    await new Promise((resolve) => http.close(resolve));
    expect(body).toBe('on node');
  });

  it('listens on every address without a host, as Node does: address() says ::, IPv4 peers read ::ffff:', async () => {
    const answers: unknown[] = [];
    for (const ex of [express4 as AnyExpress, express as AnyExpress]) {
      const app = ex();
      app.get('/ip', (req: any, res: any) => res.json({ ip: req.ip, ips: req.ips, socket: req.socket.remoteAddress, connection: req.connection.remoteAddress }));
      const server = app.listen(0);
      await once(server, 'listening');
      const { address, family, port } = server.address();
      const body = await (await fetch(`http://127.0.0.1:${port}/ip`)).json();
      const v6 = await (await fetch(`http://[::1]:${port}/ip`)).json();
      answers.push({ address, family, body, v6 });
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(answers[1]).toEqual(answers[0]);
    const v4 = '::ffff:127.0.0.1';
    expect(answers[0]).toEqual({
      address: '::',
      family: 'IPv6',
      body: { ip: v4, ips: [], socket: v4, connection: v4 },
      v6: { ip: '::1', ips: [], socket: '::1', connection: '::1' },
    });
  });

  it('runs as a middleware of a Velox server, and hands back what it does not answer', async () => {
    const { Server } = await import('@velox/core');
    const { nodeCompat } = await import('../../src/index.ts');
    const { closeAfter } = await import('@velox/test-utils');
    const server = closeAfter(new Server({ logger: false }), { timeout: 1000 });
    await server.register(nodeCompat);
    const legacy = express();
    legacy.get('/old/:id', (req: any, res: any) => res.json({ id: req.params.id, q: req.query, baseUrl: req.baseUrl }));
    server.use('/legacy', legacy as any);
    server.get('/legacy/new', (req, res) => res.send(`native ${JSON.stringify(req.query)} ${typeof (req.app as any).server}`));
    const { port } = await server.listen(0, '127.0.0.1');
    const old = await fetch(`http://127.0.0.1:${port}/legacy/old/7?a[b]=1`);
    expect(await old.json()).toEqual({ id: '7', q: { a: { b: '1' } }, baseUrl: '/legacy' });
    expect(old.headers.get('x-powered-by')).toBe('Express');
    // Velox's own request again: its simple query parser, nodeCompat's req.app.
    const native = await fetch(`http://127.0.0.1:${port}/legacy/new?a[b]=1`);
    expect(await native.text()).toBe('native {"a[b]":"1"} object');
  });

  it('writes IPv6 peers in the compressed form Node gives', async () => {
    const { compressIPv6 } = await import('../../src/app/request.ts');
    expect(compressIPv6('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('::1');
    expect(compressIPv6('2001:0DB8:0000:0000:0001:0000:0000:0001')).toBe('2001:db8::1:0:0:1');
    expect(compressIPv6('2001:0db8:0000:0001:0001:0001:0001:0001')).toBe('2001:db8:0:1:1:1:1:1');
    expect(compressIPv6('fe80:0000:0000:0000:0204:61ff:fe9d:f156')).toBe('fe80::204:61ff:fe9d:f156');
    expect(compressIPv6('0000:0000:0000:0000:0000:0000:0000:0000')).toBe('::');
    expect(compressIPv6('127.0.0.1')).toBe('127.0.0.1');
  });
});
