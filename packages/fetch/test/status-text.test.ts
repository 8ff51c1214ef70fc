// A Response's statusText on the status line: `new Response(null, { status: 418, statusText:
// 'Short And Stout' })` goes out as `HTTP/1.1 418 Short And Stout` on every road (a LightResponse
// under serve(), a built-in Response, a streamed body, srvx's responses from H3), an empty one as
// the standard phrase, and a text that would break the line never reaches it. Checked on raw bytes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { later, raw, rawConnection } from '@velox/test-utils';
import { H3, toNodeHandler } from 'h3';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { fetchHandler, installLightResponse, LightResponse } from '../src/index.ts';
import { served, veloxServer } from './helpers.ts';

const NativeResponse = globalThis.Response;

/** The status line of the answer to `method path`, read on its own connection. */
async function statusLine(port: number, path: string, method = 'GET'): Promise<string> {
  const client = await rawConnection(port);
  await client.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  const text = await client.until((t) => t.includes('\r\n\r\n'), `the head of ${method} ${path}`);
  client.socket.destroy();
  return text.slice(0, text.indexOf('\r\n'));
}

/** The answers an app gives for the cases below, by path (the Response class is the global one when the app runs). */
const cases = (request: Request): Response => {
  const path = new URL(request.url).pathname;
  switch (path) {
    case '/null':
      return new Response(null, { status: 418, statusText: 'Short And Stout' });
    case '/text':
      return new Response('tea', { status: 418, statusText: 'Short And Stout' });
    case '/bytes':
      return new Response(new Uint8Array([116, 101, 97]), { status: 201, statusText: 'Brewed' });
    case '/stream':
      return new Response(new Blob(['streamed tea']).stream(), { status: 202, statusText: 'Still Brewing' });
    case '/json':
      return Response.json({ tea: true }, { status: 200, statusText: 'Fine Tea' });
    case '/tab':
      return new Response('t', { status: 200, statusText: 'Tab\tHere' });
    case '/number':
      return new Response('n', { status: 299, statusText: 123 as unknown as string });
    case '/empty':
      return new Response('e', { status: 418, statusText: '' });
    case '/standard':
      return new Response('s', { status: 404, statusText: 'Not Found' });
    case '/none':
      return new Response('n', { status: 418 });
    case '/unknown':
      return new Response('u', { status: 599 });
    default:
      return new Response('plain');
  }
};

const EXPECTED: Array<[string, string]> = [
  ['/null', 'HTTP/1.1 418 Short And Stout'],
  ['/text', 'HTTP/1.1 418 Short And Stout'],
  ['/bytes', 'HTTP/1.1 201 Brewed'],
  ['/stream', 'HTTP/1.1 202 Still Brewing'],
  ['/json', 'HTTP/1.1 200 Fine Tea'],
  ['/tab', 'HTTP/1.1 200 Tab\tHere'],
  ['/number', 'HTTP/1.1 299 123'],
  ['/empty', "HTTP/1.1 418 I'm a Teapot"],
  ['/standard', 'HTTP/1.1 404 Not Found'],
  ['/none', "HTTP/1.1 418 I'm a Teapot"],
  ['/unknown', 'HTTP/1.1 599 Unknown'],
  ['/plain', 'HTTP/1.1 200 OK'],
];

async function expectCases(port: number): Promise<void> {
  for (const [path, line] of EXPECTED) {
    expect(await statusLine(port, path), path).toBe(line);
    expect(await statusLine(port, path, 'HEAD'), `HEAD ${path}`).toBe(line);
  }
}

describe('statusText', () => {
  it('goes out on the status line under serve() (LightResponse), an empty one as the standard phrase', async () => {
    const classes = new Set<unknown>();
    const { port } = await served((request) => {
      const response = cases(request);
      classes.add(response.constructor);
      return response;
    });
    await expectCases(port);
    expect(classes.has(LightResponse)).toBe(true);
  });

  it('goes out on the status line under serve({ lightResponse: false }) (built-in Responses)', async () => {
    const classes = new Set<unknown>();
    const { port } = await served(
      (request) => {
        const response = cases(request);
        classes.add(response.constructor);
        return response;
      },
      { lightResponse: false },
    );
    await expectCases(port);
    expect([...classes]).toEqual([NativeResponse]);
  });

  it('goes out on the status line through fetchHandler(app.fetch) on a Velox route, with and without installLightResponse()', async () => {
    const classes = new Set<unknown>();
    const app = veloxServer();
    app.all(
      '/*',
      fetchHandler((request) => {
        const response = cases(request);
        classes.add(response.constructor);
        return response;
      }),
    );
    const { port } = await app.listen(0, '127.0.0.1');
    for (const [path, line] of EXPECTED) expect(await statusLine(port, path), path).toBe(line);
    expect([...classes]).toEqual([NativeResponse]);

    classes.clear();
    later(installLightResponse());
    for (const [path, line] of EXPECTED) expect(await statusLine(port, path), path).toBe(line);
    expect([...classes]).toContain(LightResponse);
  });

  it('does not stay on the route: the next answer with the same status has the standard phrase again', async () => {
    const { port } = await served((request) =>
      new URL(request.url).pathname === '/stout' ? new Response('a', { status: 418, statusText: 'Short And Stout' }) : new Response('b', { status: 418 }),
    );
    const client = await rawConnection(port);
    await client.write('GET /stout HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.until((t) => t.endsWith('\r\n\r\na'), 'the first answer');
    await client.write('GET /plain HTTP/1.1\r\nHost: x\r\n\r\n');
    await client.write('GET /stout HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await client.until((t) => (t.match(/HTTP\/1\.1 /g) ?? []).length === 3 && t.endsWith('\r\n\r\na'), 'three answers');
    client.socket.destroy();
    expect(text.match(/HTTP\/1\.1 [^\r]*/g)).toEqual(['HTTP/1.1 418 Short And Stout', "HTTP/1.1 418 I'm a Teapot", 'HTTP/1.1 418 Short And Stout']);
  });

  it('sends text with bytes 0x80-0xFF as its UTF-8 bytes, and the head stays well-formed', async () => {
    const { port } = await served(() => new Response('c', { status: 200, statusText: 'Café' }));
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { quietMs: 100 });
    expect(text.startsWith(`HTTP/1.1 200 ${Buffer.from('Café').toString('latin1')}\r\n`)).toBe(true);
    expect(text.endsWith('\r\n\r\nc')).toBe(true);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect([res.status, res.statusText, await res.text()]).toEqual([200, 'Café', 'c']);
  });
});

describe('a statusText that would break the status line', () => {
  const BAD: Array<[string, string]> = [
    ['CR LF', 'Short\r\nX-Injected: yes'],
    ['LF', 'a\nb'],
    ['NUL', 'a\0b'],
    ['DEL', 'a\x7fb'],
    ['above 0xFF', 'Teapot \u2615'],
  ];

  it('is refused by LightResponse as the built-in Response refuses it: the same TypeError', () => {
    for (const [label, text] of BAD) {
      let native: unknown;
      let light: unknown;
      try {
        new NativeResponse('x', { status: 200, statusText: text });
      } catch (err) {
        native = err;
      }
      try {
        new LightResponse('x', { status: 200, statusText: text });
      } catch (err) {
        light = err;
      }
      expect(native, label).toBeInstanceOf(TypeError);
      expect(light, label).toBeInstanceOf(TypeError);
      expect((light as Error).message, label).toBe((native as Error).message);
    }
    expect(new LightResponse('x', { statusText: 'Fine' }).statusText).toBe('Fine');
    expect(new LightResponse('x').statusText).toBe('');
    expect(new LightResponse('x', { statusText: null as unknown as string }).statusText).toBe(new NativeResponse('x', { statusText: null as unknown as string }).statusText);
  });

  it('reaches the handler as the app\'s error (500 from the error path), whichever Response class the app uses, and the connection goes on', async () => {
    for (const lightResponse of [true, false]) {
      const { port } = await served(
        (request) => {
          const path = new URL(request.url).pathname;
          if (path === '/ok') return new Response('ok');
          return new Response('x', { status: 200, statusText: BAD[Number(path.slice(1))]![1] });
        },
        { lightResponse },
      );
      for (let i = 0; i < BAD.length; i++) {
        const client = await rawConnection(port);
        await client.write(`GET /${i} HTTP/1.1\r\nHost: x\r\n\r\n`);
        await client.until((t) => t.includes('\r\n\r\n') && /content-length: (\d+)\r\n\r\n[\s\S]*$/i.test(t), 'the 500');
        await client.write('GET /ok HTTP/1.1\r\nHost: x\r\n\r\n');
        const text = await client.until((t) => t.endsWith('ok'), 'the next answer');
        client.socket.destroy();
        const lines = text.match(/HTTP\/1\.1 [^\r]*/g);
        expect(lines, `${BAD[i]![0]} (light: ${lightResponse})`).toEqual(['HTTP/1.1 500 Internal Server Error', 'HTTP/1.1 200 OK']);
        expect(text).not.toMatch(/X-Injected/i);
      }
    }
  });

  it("loses what a reason phrase cannot hold when it comes from srvx's NodeResponse (which checks nothing), as srvx's Node adapter does", async () => {
    // The class H3 answers with on Node: taken from a real answer.
    const NodeResponse = (await new H3().get('/', () => 'x').fetch(new Request('http://x/'))).constructor as typeof Response;
    const { port } = await served((request) => {
      const path = new URL(request.url).pathname;
      if (path === '/crlf') return new NodeResponse('x', { status: 418, statusText: 'Short\r\nX-Injected: yes' });
      if (path === '/wide') return new NodeResponse('x', { status: 418, statusText: '\u2615\u2615' });
      return new NodeResponse('x', { status: 418, statusText: 'Short And Stout' });
    });
    expect(await statusLine(port, '/crlf')).toBe('HTTP/1.1 418 ShortX-Injected: yes');
    expect(await statusLine(port, '/wide')).toBe("HTTP/1.1 418 I'm a Teapot");
    expect(await statusLine(port, '/fine')).toBe('HTTP/1.1 418 Short And Stout');
    const { text } = await raw(port, 'GET /crlf HTTP/1.1\r\nHost: x\r\n\r\n', { quietMs: 100 });
    expect(text.match(/^x-injected/gim)).toBeNull();
  });
});

describe('statusText from frameworks', () => {
  function hono(): Hono {
    const app = new Hono();
    app.get('/teapot', (c) => c.text('x', 418));
    app.get('/stout', () => new Response('x', { status: 418, statusText: 'Short And Stout' }));
    app.get('/json', (c) => c.json({ a: 1 }, 418));
    // A middleware that wraps the answer again keeps the text (the Response is the init).
    app.use('/wrapped/*', async (c, next) => {
      await next();
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set('x-wrapped', '1');
    });
    app.get('/wrapped/stout', () => new Response('x', { status: 418, statusText: 'Short And Stout' }));
    return app;
  }

  const HONO: Array<[string, string]> = [
    ['/teapot', "HTTP/1.1 418 I'm a Teapot"],
    ['/stout', 'HTTP/1.1 418 Short And Stout'],
    ['/json', "HTTP/1.1 418 I'm a Teapot"],
    ['/wrapped/stout', 'HTTP/1.1 418 Short And Stout'],
  ];

  it('sends Hono\'s c.text(…, 418) with the standard phrase and its new Response(…, { statusText }) with the text, under serve()', async () => {
    const { port } = await served(hono().fetch);
    for (const [path, line] of HONO) expect(await statusLine(port, path), path).toBe(line);
  });

  it('does the same through fetchHandler(app.fetch) on a Velox route', async () => {
    const app = veloxServer();
    app.all('/*', fetchHandler(hono().fetch));
    const { port } = await app.listen(0, '127.0.0.1');
    for (const [path, line] of HONO) expect(await statusLine(port, path), path).toBe(line);
  });

  it("sends H3's event.res.statusText as srvx's own Node adapter (h3's toNodeHandler on node:http) sends it", async () => {
    const h3 = () =>
      new H3()
        .get('/stout', (event) => {
          event.res.status = 418;
          event.res.statusText = 'Short And Stout';
          return 'x';
        })
        .get('/stream', (event) => {
          event.res.status = 202;
          event.res.statusText = 'Still Brewing';
          return new Blob(['streamed']).stream();
        })
        .get('/empty', (event) => {
          event.res.status = 418;
          return 'x';
        })
        .get('/odd', (event) => {
          event.res.status = 418;
          event.res.statusText = 'Odd\r\nText';
          return 'x';
        });
    const { port } = await served((request) => h3().fetch(request));
    const node = createServer(toNodeHandler(h3()));
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    later(() => new Promise<void>((resolve) => node.close(() => resolve())));
    const nodePort = (node.address() as AddressInfo).port;
    for (const path of ['/stout', '/stream', '/odd']) {
      const theirs = await statusLine(nodePort, path);
      expect(await statusLine(port, path), path).toBe(theirs);
    }
    expect(await statusLine(port, '/stout')).toBe('HTTP/1.1 418 Short And Stout');
    // No text: srvx hands Node an empty reason (`HTTP/1.1 418 `); Velox sends the standard phrase, as for any empty statusText.
    expect(await statusLine(nodePort, '/empty')).toBe('HTTP/1.1 418 ');
    expect(await statusLine(port, '/empty')).toBe("HTTP/1.1 418 I'm a Teapot");
  });
});
