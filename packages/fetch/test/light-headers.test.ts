import { inspect } from 'node:util';
import { raw, sleep } from '@velox/test-utils';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchHandler, installLightResponse, LightHeaders, LightResponse } from '../src/index.ts';
import { served, veloxServer } from './helpers.ts';

const BuiltinHeaders = globalThis.Headers;
const BuiltinResponse = globalThis.Response;
afterEach(() => {
  globalThis.Headers = BuiltinHeaders;
  globalThis.Response = BuiltinResponse;
});

type Step = (h: Headers) => unknown;

/** Runs the steps on a Headers made by `make`: what each returns, or the class of what it throws. */
function script(make: () => Headers, steps: Step[]): unknown[] {
  let headers: Headers;
  try {
    headers = make();
  } catch (err) {
    return [`throws ${(err as Error).constructor.name}`];
  }
  return steps.map((step) => {
    try {
      const value = step(headers);
      return value === undefined ? 'undefined' : value;
    } catch (err) {
      return `throws ${(err as Error).constructor.name}`;
    }
  });
}

const READ: Step[] = [
  (h) => [...h],
  (h) => [...h.keys()],
  (h) => [...h.values()],
  (h) => h.getSetCookie(),
  (h) => h.get('set-cookie'),
  (h) => h.get('Content-Type'),
  (h) => h.has('X-A'),
  (h) => {
    const seen: string[] = [];
    h.forEach((value, name, parent) => {
      seen.push(`${name}=${value}:${parent === h}`);
    });
    return seen;
  },
];

describe('LightHeaders', () => {
  it('answers as the built-in Headers for every init, change and read', () => {
    const inits: unknown[] = [
      undefined,
      { 'X-A': ' 1 ', 'Content-Type': 'text/plain', 'set-cookie': 'a=1' },
      [['Set-Cookie', 'a=1'], ['set-cookie', 'b=2'], ['B', '1'], ['a', '2'], ['b', '\t3\r\n']],
      new BuiltinHeaders([['vary', 'a'], ['Vary', 'b'], ['set-cookie', 'c=3']]),
      new Map([['x-map', 'm']]),
      [['only-one']],
      { 'bad name': '1' },
      { 'x-a': 'line\r\nbreak' },
      { 'x-a': 'wide \u0100' },
      null,
      'x-a: 1',
    ];
    const changes: Step[] = [
      (h) => h.append('Vary', 'Accept'),
      (h) => h.append('vary', ' Origin '),
      (h) => h.append('Set-Cookie', 'z=9'),
      (h) => h.set('X-A', 'replaced'),
      (h) => h.delete('b'),
      (h) => h.set('set-cookie', 'only=1'),
      (h) => h.append('bad name', 'x'),
      (h) => h.set('x-ok', 'a\0b'),
      (h) => h.get('(bad)'),
      (h) => (h.get as (...args: unknown[]) => unknown)(),
      (h) => (h.append as (...args: unknown[]) => unknown)('x-one'),
      (h) => h.forEach(1 as unknown as () => void),
      ...READ,
      (h) => h.delete('Set-Cookie'),
      ...READ,
    ];
    for (const init of inits) {
      const light = script(() => new LightHeaders(init as ConstructorParameters<typeof Headers>[0]) as unknown as Headers, [...READ, ...changes]);
      const builtin = script(() => new BuiltinHeaders(init as ConstructorParameters<typeof Headers>[0]), [...READ, ...changes]);
      expect(light, `init ${inspect(init)}`).toEqual(builtin);
    }
    // Copies are independent of what they were made from.
    const source = new LightHeaders({ a: '1', 'set-cookie': 'x=1' });
    const copy = new LightHeaders(source as unknown as Headers);
    source.append('set-cookie', 'y=2');
    source.set('a', '2');
    expect([...copy]).toEqual([['a', '1'], ['set-cookie', 'x=1']]);
  });

  it('passes instanceof Headers, is taken by the built-in Response and Headers, and prints as one', () => {
    const light = new LightHeaders({ 'x-a': '1' });
    light.append('set-cookie', 'a=1');
    light.append('set-cookie', 'b=2');
    expect(light instanceof BuiltinHeaders).toBe(true);
    expect(Object.prototype.toString.call(light)).toBe('[object Headers]');
    const response = new BuiltinResponse(null, { headers: light as unknown as Headers });
    expect([...response.headers]).toEqual([...light]);
    expect(new BuiltinHeaders(light as unknown as Headers).getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(inspect(light)).toContain('x-a');
    const uninstall = installLightResponse();
    expect(globalThis.Headers).toBe(LightHeaders);
    expect(new BuiltinHeaders() instanceof Headers).toBe(true);
    expect(Object.getPrototypeOf(new Headers())).toBe(LightHeaders.prototype);
    uninstall();
    expect(globalThis.Headers).toBe(BuiltinHeaders);
  });

  it('is what serve() apps write from: repeated values joined, Set-Cookie lines apart, names lower-case', async () => {
    const hono = new Hono()
      .get('/hono', (c) => {
        c.header('X-Custom-Case', ' padded ');
        c.header('Vary', 'Accept', { append: true });
        c.header('Vary', 'Origin', { append: true });
        c.header('Set-Cookie', 'a=1; Path=/', { append: true });
        c.header('Set-Cookie', 'b=2', { append: true });
        return c.json({ ok: true });
      })
      .get('/own', () => {
        const headers = new Headers([['X-Own', '1'], ['set-cookie', 'c=3']]);
        headers.append('x-own', '2');
        return new Response('own', { headers });
      })
      .get('/typed', () => new Response('<b>', { headers: new Headers({ 'Content-Type': 'text/html' }) }))
      .get('/stream', () => new Response(new Blob(['streamed']).stream(), { headers: new Headers({ 'x-s': '1' }) }))
      .get('/kind', () => new Response(`${Object.getPrototypeOf(new Headers()) === LightHeaders.prototype} ${Object.getPrototypeOf(new Response('')) === LightResponse.prototype}`));
    const { port, server } = await served(hono.fetch);
    expect(globalThis.Headers).toBe(LightHeaders);
    const wire = async (path: string) => (await raw(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)).text;

    const honoText = await wire('/hono');
    expect(honoText).toMatch(/\r\nx-custom-case: padded\r\n/);
    expect(honoText).toMatch(/\r\nvary: Accept, Origin\r\n/);
    expect(honoText.match(/^set-cookie: .*$/gim)).toEqual(['set-cookie: a=1; Path=/', 'set-cookie: b=2']);
    expect(honoText).toMatch(/\r\ncontent-type: application\/json\r\n/);
    expect(honoText.endsWith('\r\n\r\n{"ok":true}')).toBe(true);

    const ownText = await wire('/own');
    expect(ownText).toMatch(/\r\nx-own: 1, 2\r\n/);
    expect(ownText.match(/^set-cookie: .*$/gim)).toEqual(['set-cookie: c=3']);
    expect(ownText).toMatch(/\r\ncontent-type: text\/plain;charset=UTF-8\r\n/);
    expect(await wire('/typed')).toMatch(/\r\ncontent-type: text\/html\r\n[\s\S]*\r\n\r\n<b>$/);
    const streamText = await wire('/stream');
    expect(streamText).toMatch(/\r\nx-s: 1\r\n/);
    expect(streamText).toContain('streamed');
    expect((await wire('/kind')).endsWith('\r\n\r\ntrue true')).toBe(true);

    await server.close();
    expect(globalThis.Headers).toBe(BuiltinHeaders);
  });

  it('writes what a middleware sets on c.res.headers after the app answered', async () => {
    const hono = new Hono();
    hono.use(async (c, next) => {
      await next();
      c.res.headers.set('X-After', 'yes');
      c.res.headers.append('Set-Cookie', 'late=1');
    });
    hono.get('/', (c) => {
      c.header('set-cookie', 'early=1');
      return c.text(`${Object.getPrototypeOf(new Response('').headers) === LightHeaders.prototype}`);
    });
    const { port } = await served(hono.fetch);
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/\r\nx-after: yes\r\n/);
    expect(text).toMatch(/\r\ncontent-type: text\/plain; charset=UTF-8\r\n/i);
    expect(text.match(/^set-cookie: .*$/gim)).toEqual(['set-cookie: early=1', 'set-cookie: late=1']);
    expect(text.endsWith('\r\n\r\ntrue')).toBe(true);
  });

  it('writes each content type once, the common ones (checked once) as exactly as the rest, and the Response\'s status over a middleware\'s', async () => {
    const hono = new Hono()
      .get('/json', (c) => c.json({ a: 1 }))
      .get('/text', (c) => c.text('t', 200, { 'x-t': '1' }))
      .get('/html', (c) => c.html('<i>'))
      .get('/plain', () => new Response('p'))
      .get('/upper', () => new Response('u', { headers: { 'Content-Type': 'Application/JSON ' } }))
      .get('/lower', () => new Response('l', { headers: { 'content-type': 'application/json' } }))
      .get('/created', (c) => c.json({ made: true }, 201));
    const app = veloxServer();
    // A Velox middleware's status: the app's Response decides the status that goes out.
    app.use((req, res, next) => {
      res.status(418);
      next();
    });
    app.all('/*', fetchHandler(hono.fetch));
    const { port } = await app.listen(0, '127.0.0.1');
    const wire = async (path: string) => {
      const { text } = await raw(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      return { status: text.slice(9, 12), types: text.match(/^content-type: .*$/gim), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
    };
    expect(await wire('/json')).toEqual({ status: '200', types: ['content-type: application/json'], body: '{"a":1}' });
    expect(await wire('/text')).toEqual({ status: '200', types: ['content-type: text/plain; charset=UTF-8'], body: 't' });
    expect(await wire('/html')).toEqual({ status: '200', types: ['content-type: text/html; charset=UTF-8'], body: '<i>' });
    expect(await wire('/plain')).toEqual({ status: '200', types: ['content-type: text/plain;charset=UTF-8'], body: 'p' });
    expect(await wire('/upper')).toEqual({ status: '200', types: ['content-type: Application/JSON'], body: 'u' });
    expect(await wire('/lower')).toEqual({ status: '200', types: ['content-type: application/json'], body: 'l' });
    expect(await wire('/created')).toEqual({ status: '201', types: ['content-type: application/json'], body: '{"made":true}' });
  });

  it("writes the app's headers over those a Velox middleware set, keeps the middleware's others and its reason phrase, on repeated answers alike", async () => {
    const hono = new Hono()
      .get('/json/*', (c) => {
        c.header('x-powered', 'velox');
        return c.json({ a: 1 });
      })
      .get('/typed/*', (c) => c.json({ b: 2 }))
      .get('/text/*', () => new Response('t'));
    const app = veloxServer();
    app.use((req, res, next) => {
      if (req.path.endsWith('/type')) res.set('content-type', 'text/html');
      if (req.path.endsWith('/powered')) res.set('x-powered', 'middleware');
      if (req.path.endsWith('/other')) res.set('x-other', '1');
      if (req.path.endsWith('/status')) res.status(203);
      if (req.path.endsWith('/reason')) res.statusMessage = 'Fine';
      next();
    });
    app.all('/*', fetchHandler(hono.fetch));
    const { port } = await app.listen(0, '127.0.0.1');
    const wire = async (path: string) => {
      const { text } = await raw(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      const lines = head.split('\r\n').filter((line) => /^(content-type|x-powered|x-other):/i.test(line));
      return { status: head.slice(9, head.indexOf('\r\n')), lines, body: text.slice(text.indexOf('\r\n\r\n') + 4) };
    };
    const json = { status: '200 OK', lines: ['content-type: application/json', 'x-powered: velox'], body: '{"a":1}' };
    for (let i = 0; i < 3; i++) expect(await wire('/json/a')).toEqual(json);
    for (const route of ['/json', '/typed', '/text']) {
      const plain = await wire(`${route}/a`);
      expect(await wire(`${route}/a`)).toEqual(plain);
      // The app's headers replace the middleware's; the middleware's others stay; its status is replaced, its reason kept.
      const type = plain.lines.find((line) => line.startsWith('content-type'));
      expect((await wire(`${route}/type`)).lines.sort()).toEqual(plain.lines.slice().sort());
      expect((await wire(`${route}/powered`)).lines.sort()).toEqual(route === '/json' ? plain.lines.slice().sort() : [type, 'x-powered: middleware']);
      expect((await wire(`${route}/other`)).lines).toEqual(['x-other: 1', ...plain.lines]);
      expect(await wire(`${route}/status`)).toEqual(plain);
      expect(await wire(`${route}/reason`)).toEqual({ ...plain, status: '200 Fine' });
      expect(await wire(`${route}/a`)).toEqual(plain);
    }
  });

  it('leaves the built-in Headers in place with lightResponse: false', async () => {
    const { url } = await served(() => new Response(`${Object.getPrototypeOf(new Headers()) === LightHeaders.prototype}`), { lightResponse: false });
    expect(globalThis.Headers).toBe(BuiltinHeaders);
    expect(await (await fetch(url)).text()).toBe('false');
  });
});

describe('the request behind serve() apps', () => {
  it('builds each request URL from its own Host, and normalizes the targets that need it', async () => {
    const urls: string[] = [];
    const { port } = await served((request) => {
      urls.push(request.url);
      return new Response('ok');
    });
    for (const [host, target] of [
      ['a.example', '/x?y=1'],
      ['b.example:8080', '/x?y=1'],
      ['b.example:8080', '/a/./b/../c'],
      ['b.example:8080', '/%2e%2e/d'],
      ['b.example:8080', '/.well-known/x'],
      ['a.example', '/%41?q=%2e'],
    ]) {
      await raw(port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    }
    expect(urls).toEqual([
      'http://a.example/x?y=1',
      'http://b.example:8080/x?y=1',
      'http://b.example:8080/a/c',
      'http://b.example:8080/d',
      'http://b.example:8080/.well-known/x',
      'http://a.example/%41?q=%2e',
    ]);
  });

  it('keeps the request headers readable after the app awaits, joined as Fetch joins them', async () => {
    const { port } = await served(async (request) => {
      await sleep(20);
      const names = [...request.headers.keys()].filter((name) => name.startsWith('x-'));
      return new Response(`${request.headers.get('X-Multi')}|${request.headers.has('x-none')}|${names.join(',')}`);
    });
    const { text } = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nX-Multi: a\r\nX-Multi: b\r\nX-Other: c\r\n\r\n');
    expect(text.endsWith('\r\n\r\na, b|false|x-multi,x-other')).toBe(true);
  });

  it('reads json() once: a second read, or json() of a GET, rejects as Fetch says', async () => {
    const { url } = await served(async (request) => {
      const outcome = (p: Promise<unknown>) =>
        p.then(
          (value) => JSON.stringify(value),
          (err: Error) => err.name,
        );
      if (request.method === 'GET') return new Response(await outcome(request.json()));
      return new Response(`${await outcome(request.json())} ${await outcome(request.json())} ${await outcome(request.text())}`);
    });
    expect(await (await fetch(url, { method: 'POST', body: '{"a":[1]}' })).text()).toBe('{"a":[1]} TypeError TypeError');
    expect(await (await fetch(url)).text()).toBe('SyntaxError');
  });
});
