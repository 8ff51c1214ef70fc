import { get, raw } from '@velox/test-utils';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { installLightResponse, LightHeaders, LightResponse } from '../src/index.ts';
import { served } from './helpers.ts';

const Builtin = globalThis.Response;
afterEach(() => {
  globalThis.Response = Builtin;
});

describe('LightResponse', () => {
  it('is installed by serve() while it runs, counted across servers, and left alone with lightResponse: false', async () => {
    const native = await served(() => new Response('x'), { lightResponse: false });
    expect(globalThis.Response).toBe(Builtin);
    expect((await get(`${native.url}/`)).text).toBe('x');
    const first = await served(() => new Response(`light ${new Response('') instanceof LightResponse}`));
    const second = await served(() => new Response('second'));
    expect(globalThis.Response).toBe(LightResponse);
    expect((await get(`${first.url}/`)).text).toBe('light true');
    // The first server closing leaves it in place for the second, which still runs.
    await first.server.close();
    expect(globalThis.Response).toBe(LightResponse);
    expect((await get(`${second.url}/`)).text).toBe('second');
    await second.server.close();
    expect(globalThis.Response).toBe(Builtin);
    // Taking an install back twice counts once; a class put there by someone else is never replaced.
    const undo = installLightResponse();
    undo();
    undo();
    expect(globalThis.Response).toBe(Builtin);
    const keep = installLightResponse();
    const other = class extends Builtin {};
    globalThis.Response = other;
    keep();
    expect(globalThis.Response).toBe(other);
  });

  it('passes instanceof Response, and built-in Responses still do once installed', () => {
    const light = new LightResponse('hi', { status: 201, headers: { 'x-a': '1' } });
    expect(light instanceof Builtin).toBe(true);
    const uninstall = installLightResponse();
    expect(new Builtin('x') instanceof Response).toBe(true);
    expect(new Response('x') instanceof LightResponse).toBe(true);
    uninstall();
    expect(globalThis.Response).toBe(Builtin);
  });

  it('is no thenable: a promise resolved with one settles with the response itself', async () => {
    const light = new LightResponse('hi');
    expect(light.then).toBeUndefined();
    expect(await Promise.resolve(light)).toBe(light);
    expect(await (async () => light)()).toBe(light);
    // Its one own key; everything else is private or on the prototypes.
    expect(Object.keys(light)).toEqual(['then']);
  });

  it('behaves as a Response when read: status, headers, text(), clone(), body', async () => {
    const light = new LightResponse('hé', { status: 201, headers: { 'x-a': '1' } });
    expect(light.status).toBe(201);
    expect(light.ok).toBe(true);
    expect(light.headers.get('content-type')).toBe('text/plain;charset=UTF-8');
    expect(light.headers.get('x-a')).toBe('1');
    expect(await light.clone().text()).toBe('hé');
    expect(light.bodyUsed).toBe(false);
    expect(await new Response(light.body).text()).toBe('hé');
    expect(light.bodyUsed).toBe(true);
    const json = LightResponse.json({ a: 1 }, { status: 202 });
    expect([json.status, json.headers.get('content-type'), await json.json()]).toEqual([202, 'application/json', { a: 1 }]);
    expect(() => new LightResponse('body', { status: 204 })).toThrow(TypeError);
    expect(() => new LightResponse('x', { status: 99 })).toThrow(RangeError);
  });

  it('serves Hono with serve({ lightResponse: true }): same answers, Set-Cookie apart, global restored on close', async () => {
    const hono = new Hono()
      .get('/', (c) => c.text('Hi'))
      .get('/id/:id', (c) => {
        c.header('x-powered', 'velox');
        return c.json({ id: c.req.param('id') });
      })
      .get('/cookies', (c) => {
        c.header('set-cookie', 'a=1', { append: true });
        c.header('set-cookie', 'b=2', { append: true });
        return c.body(new Uint8Array([104, 105]));
      })
      .get('/stream', () => new Response(new Blob(['streamed']).stream()))
      .get('/empty', (c) => c.body(null, 204));
    const { url, port, server } = await served(hono.fetch, { lightResponse: true });
    expect(globalThis.Response).toBe(LightResponse);
    const ping = await get(`${url}/`);
    expect([ping.text, ping.headers.get('content-type'), ping.headers.get('content-length')]).toEqual(['Hi', 'text/plain;charset=UTF-8', '2']);
    const query = await get(`${url}/id/9`);
    expect(query.json()).toEqual({ id: '9' });
    expect(query.headers.get('x-powered')).toBe('velox');
    expect(query.headers.get('content-type')).toMatch(/^application\/json/);
    const { text } = await raw(port, 'GET /cookies HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text.match(/^set-cookie: .*$/gim)).toEqual(['set-cookie: a=1', 'set-cookie: b=2']);
    expect(text.endsWith('\r\n\r\nhi')).toBe(true);
    expect((await get(`${url}/stream`)).text).toBe('streamed');
    expect((await get(`${url}/empty`)).status).toBe(204);
    await server.close();
    expect(globalThis.Response).toBe(Builtin);
  });

  it('writes a subclass through its own members, and a repeated header as set each time', async () => {
    class Teapot extends LightResponse {
      override get status(): number {
        return 418;
      }
    }
    let n = 0;
    const values = ['a', 'a', 'a', 'b', 'b', 'bad\u0001'];
    const { url } = await served(async (request) => {
      if (new URL(request.url).pathname === '/teapot') return new Teapot('short and stout') as unknown as Response;
      const headers = new LightHeaders({ 'x-v': values[n++]! });
      return new LightResponse('ok', { headers: headers as unknown as Headers }) as unknown as Response;
    });
    const teapot = await get(`${url}/teapot`);
    expect([teapot.status, teapot.text]).toEqual([418, 'short and stout']);
    const seen: unknown[] = [];
    for (let i = 0; i < values.length; i++) {
      const answer = await get(`${url}/`);
      seen.push(answer.status === 200 ? answer.headers.get('x-v') : answer.status);
    }
    // A value core refuses (a control character) is refused every time, prepared or not.
    expect(seen).toEqual(['a', 'a', 'a', 'b', 'b', 500]);
  });

  it('writes the headers of its init whatever their kind: records of any prototype, lists of pairs, Headers', async () => {
    const noProto = Object.assign(Object.create(null) as Record<string, string>, { 'X-Kind': 'null-prototype' });
    const inherited = Object.assign(Object.create({ 'x-inherited': 'yes' }) as Record<string, string>, { 'X-Kind': 'inherited' });
    const inits: Record<string, ConstructorParameters<typeof Headers>[0]> = {
      record: { 'Content-Type': 'application/json', 'X-Kind': ' record ' },
      noProto,
      inherited,
      pairs: [['X-Kind', 'pairs'], ['Content-Type', 'text/html; charset=UTF-8']],
      light: new LightHeaders({ 'x-kind': 'light' }) as unknown as Headers,
      native: new Builtin('', { headers: { 'x-kind': 'native' } }).headers,
    };
    const { url } = await served((request) => {
      const init = inits[new URL(request.url).pathname.slice(1)];
      return new LightResponse('body', { headers: init }) as unknown as Response;
    });
    const seen: Record<string, unknown> = {};
    for (const kind of Object.keys(inits)) {
      const answer = await get(`${url}/${kind}`);
      seen[kind] = [answer.status, answer.headers.get('x-kind'), answer.headers.get('content-type'), answer.headers.get('x-inherited')];
    }
    expect(seen).toEqual({
      record: [200, 'record', 'application/json', null],
      noProto: [200, 'null-prototype', 'text/plain;charset=UTF-8', null],
      // Written as before: a for-in over the record, inherited names too.
      inherited: [200, 'inherited', 'text/plain;charset=UTF-8', 'yes'],
      pairs: [200, 'pairs', 'text/html; charset=UTF-8', null],
      light: [200, 'light', 'text/plain;charset=UTF-8', null],
      native: [200, 'native', 'text/plain;charset=UTF-8', null],
    });
  });
});
