import { execFileSync } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { get, rawConnection, sleep, tempDir, until } from '@velox/test-utils';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { fetchHandler, serve } from '../src/index.ts';
import { logged, served, veloxServer } from './helpers.ts';

describe('fetchHandler() inside a Velox server', () => {
  it('answers beside native routes, with the full URL and Velox middlewares around it', async () => {
    const hono = new Hono().basePath('/api');
    hono.get('/hello/:name', (c) => c.json({ hello: c.req.param('name'), url: c.req.url, seen: c.req.header('x-mw') }));
    hono.post('/echo', async (c) => c.text(await c.req.text()));
    const app = veloxServer();
    app.use((req, res, next) => {
      res.set('x-velox', 'yes');
      next();
    });
    app.get('/', (req, res) => res.send('native'));
    app.all('/api/*', fetchHandler(hono.fetch));
    const { port } = await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    expect((await get(`${url}/`)).text).toBe('native');
    const hello = await get(`${url}/api/hello/ann`, { headers: { 'x-mw': '1' } });
    expect(hello.json()).toEqual({ hello: 'ann', url: `${url}/api/hello/ann`, seen: '1' });
    expect(hello.headers.get('x-velox')).toBe('yes');
    expect((await get(`${url}/api/echo`, { method: 'POST', body: 'round trip' })).text).toBe('round trip');
    expect((await get(`${url}/api/none`)).status).toBe(404);
  });

  it("sends a throw through Velox's error handler", async () => {
    const app = veloxServer();
    const seen: string[] = [];
    app.setErrorHandler((err, req, res) => {
      seen.push((err as Error).message);
      res.status(500).json({ handled: 'by velox' });
    });
    app.all('/api/*', fetchHandler(() => Promise.reject(new Error('app failed'))));
    const { port } = await app.listen(0, '127.0.0.1');
    const r = await get(`http://127.0.0.1:${port}/api/x`);
    expect(r.status).toBe(500);
    expect(r.json()).toEqual({ handled: 'by velox' });
    expect(seen).toEqual(['app failed']);
  });

  it('passes the env Hono reads as c.env: incoming (as @hono/node-server) and velox', async () => {
    const hono = new Hono<{ Bindings: import('../src/index.ts').VeloxBindings }>();
    hono.get('/env', (c) =>
      c.json({
        address: c.env.incoming.socket.remoteAddress,
        family: c.env.incoming.socket.remoteFamily,
        url: c.env.incoming.url,
        path: c.env.velox.req.path,
      }),
    );
    const { url } = await served(hono.fetch);
    expect((await get(`${url}/env?a=1`)).json()).toEqual({ address: '127.0.0.1', family: 'IPv4', url: '/env?a=1', path: '/env' });
  });
});

describe('serve() options', () => {
  it('attaches to an existing Velox server: its routes first, the app for the rest', async () => {
    const app = veloxServer();
    app.get('/native', (req, res) => res.send('native'));
    const server = await serve({ server: app, port: 0, hostname: '127.0.0.1', fetch: (request) => new Response(`app:${new URL(request.url).pathname}`) });
    const url = `http://127.0.0.1:${server.port}`;
    expect(server.server).toBe(app);
    expect((await get(`${url}/native`)).text).toBe('native');
    expect((await get(`${url}/other`)).text).toBe('app:/other');
  });

  it('throws at start-up on bad options, saying what to write', async () => {
    await expect(serve({} as never)).rejects.toThrow(/fetch: app.fetch/);
    await expect(serve({ fetch: () => new Response(''), port: -1 })).rejects.toThrow(/port must be/);
    await expect(serve({ fetch: () => new Response(''), timeout: -5 })).rejects.toThrow(/timeout must be/);
    const app = veloxServer();
    await app.listen(0, '127.0.0.1');
    await expect(serve({ fetch: () => new Response(''), server: app })).rejects.toThrow(/does not listen yet/);
    expect(() => fetchHandler('nope' as never)).toThrow(/fetchHandler\(app.fetch\)/);
  });

  it('lets in-flight requests finish on close(), like app.close()', async () => {
    const { url, server } = await served(async () => {
      await sleep(150);
      return new Response('finished');
    });
    const pending = fetch(url).then((r) => r.text());
    await sleep(30);
    await server.close();
    expect(await pending).toBe('finished');
  });

  it('closes on SIGTERM with closeOnSignals', async () => {
    const log = logged();
    const server = await serve({ fetch: () => new Response('x'), port: 0, hostname: '127.0.0.1', closeOnSignals: { uncaught: false }, logger: log.logger });
    const exit = process.exit;
    let exited: number | undefined;
    process.exit = ((code?: number) => {
      exited = code ?? 0;
    }) as never;
    try {
      process.emit('SIGTERM', 'SIGTERM');
      await until(() => exited !== undefined, 'the server to close');
    } finally {
      process.exit = exit;
    }
    expect(server.server.listening).toBe(false);
    const client = await rawConnection(server.port).catch((err: Error) => err);
    expect(client).toBeInstanceOf(Error);
  });

  it('serves HTTPS with tls, and the app sees https URLs', async () => {
    const dir = await tempDir('velox-fetch-tls-');
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', '/CN=localhost', '-days', '1'], { stdio: 'ignore' });
    const { port } = await served((request) => new Response(request.url), { tls: { key, cert } });
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/secure', rejectUnauthorized: false, headers: { host: 'localhost' } }, async (res) => {
        let body = '';
        for await (const chunk of res) body += chunk;
        resolve(body);
      });
      req.on('error', reject);
      req.end();
    });
    expect(text).toBe('https://localhost/secure');
  });
});
