/**
 * uWS wants every write made outside its own callbacks to be corked, and says so on stderr
 * ("uWS.HttpResponse writes must be made from within a corked callback"). Core skips the
 * cork() call when it knows uWS has corked the socket (inside the route callback, and in the
 * microtasks that run right after the body's last chunk arrived). These tests run a server in a
 * child process, answer in every way core knows, and read the child's stderr: one wrong guess
 * shows up there as uWS's warning. A last test counts the cork() calls themselves, to show the
 * skip really happens.
 */
import { fileURLToPath } from 'node:url';
import { raw, runServer, sleep, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from '../helpers.ts';

const WARNING = 'must be made from within a corked callback';
const cwd = fileURLToPath(new URL('../..', import.meta.url));

/** Starts `script` (an ES module) in a child; resolves once it prints its port. */
const child = (script: string) => runServer({ script }, {}, { cwd });

const entry = JSON.stringify(fileURLToPath(new URL('../../src/index.ts', import.meta.url)));

describe('corking', () => {
  it('the check can fail: uWS warns about a write made outside a cork', async () => {
    const { port, stderr } = await child(`
      import { createRequire } from 'node:module';
      const uWS = createRequire(${JSON.stringify(`${cwd}/package.json`)})('@based/uws');
      const app = uWS.App();
      app.get('/', (res) => {
        res.onAborted(() => {});
        setTimeout(() => res.end('late'), 1);
      });
      app.listen('127.0.0.1', 0, (t) => console.log('PORT ' + uWS.us_socket_local_port(t)));
    `);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('late');
    await new Promise((r) => setTimeout(r, 100));
    expect(stderr()).toContain(WARNING);
  });

  it('every way of answering writes inside a cork, whether or not the body arrived in the same callback', async () => {
    const { port, stderr } = await child(`
      import { Server } from ${entry};
      const app = new Server({ logger: false });
      const tick = () => new Promise((r) => setTimeout(r, 2));
      app.post('/echo', async (req, res) => res.json(await req.json()));
      app.post('/later', async (req, res) => {
        const body = await req.json();
        await tick();
        res.json(body);
      });
      app.post('/then', (req, res) => {
        req.text().then((t) => Promise.resolve(t)).then((t) => res.send(t));
      });
      app.post('/chunks', async (req, res) => {
        const text = await req.text();
        res.write('<');
        res.write(text);
        res.end('>');
      });
      app.post('/stream', async (req, res) => {
        let size = 0;
        for await (const chunk of req) size += chunk.length;
        res.json({ size });
      });
      app.post('/fail', async (req) => {
        await req.json();
        throw new Error('boom');
      });
      app.get('/sync', (req, res) => res.set('x-a', '1').send('sync'));
      const { port } = await app.listen(0, '127.0.0.1');
      console.log('PORT ' + port);
    `);
    const url = `http://127.0.0.1:${port}`;
    const post = (path: string, body: string) => fetch(url + path, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const big = JSON.stringify({ data: 'x'.repeat(300_000) }); // arrives over many data callbacks
    for (let i = 0; i < 3; i++) {
      expect(await (await post('/echo', '{"a":1}')).json()).toEqual({ a: 1 });
      expect(((await (await post('/echo', big)).json()) as { data: string }).data).toHaveLength(300_000);
      expect(await (await post('/later', '{"b":2}')).json()).toEqual({ b: 2 });
      expect(await (await post('/then', 'plain')).text()).toBe('plain');
      expect(await (await post('/chunks', 'mid')).text()).toBe('<mid>');
      expect(await (await post('/stream', big)).json()).toEqual({ size: big.length });
      expect((await post('/fail', '{}')).status).toBe(500);
      expect((await post('/echo', '{oops')).status).toBe(400);
      expect(await (await fetch(`${url}/sync`)).text()).toBe('sync');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(stderr()).not.toContain(WARNING);
  });

  it('answers an awaited body without a cork() call of its own, and corks when it answers later', async () => {
    const app = server();
    // uWS's responses share one prototype: take it from a raw route, then count cork() calls.
    let proto: { cork: (...args: unknown[]) => unknown } | undefined;
    app.uws.get('/probe', (res) => {
      proto = Object.getPrototypeOf(res);
      res.end('p');
    });
    app.post('/echo', async (req, res) => res.json(await req.json()));
    app.post('/later', async (req, res) => {
      const body = await req.json();
      await sleep(2);
      res.json(body);
    });
    app.post('/bad', async (req, res) => res.json(await req.json()));
    const { port, url } = await start(app);
    await fetch(`${url}/probe`);
    const original = proto!.cork;
    let corks = 0;
    proto!.cork = function (this: unknown, ...args: unknown[]) {
      corks++;
      return original.apply(this, args);
    };
    try {
      const send = async (path: string, body: string, split = false) => {
        corks = 0;
        const request = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
        const at = request.length - 3;
        const { text } = await raw(port, split ? [request.slice(0, at), request.slice(at)] : request, { gapMs: split ? 30 : 0, quietMs: 150 });
        return { text, corks };
      };
      const same = await send('/echo', '{"a":1}');
      expect(same.text).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n\{"a":1\}$/);
      expect(same.corks).toBe(0);
      const split = await send('/echo', '{"a":2}', true); // the last chunk comes in a later packet
      expect(split.text.endsWith('{"a":2}')).toBe(true);
      expect(split.corks).toBe(0);
      const later = await send('/later', '{"a":3}');
      expect(later.text.endsWith('{"a":3}')).toBe(true);
      expect(later.corks).toBe(1);
      const bad = await send('/bad', '{oops');
      expect(bad.text).toMatch(/^HTTP\/1\.1 400 /);
    } finally {
      proto!.cork = original;
    }
  });
});
