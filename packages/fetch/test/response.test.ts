import { parseResponses, raw, rawConnection, sleep, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { served } from './helpers.ts';

const GET = (path: string, method = 'GET') => `${method} ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

describe('writing the Response', () => {
  it('sends string, ArrayBuffer, typed array, DataView and Blob bodies with their length', async () => {
    const bodies: Record<string, () => ConstructorParameters<typeof Response>[0]> = {
      string: () => 'héllo',
      arraybuffer: () => new TextEncoder().encode('ab').buffer as ArrayBuffer,
      uint8: () => new Uint8Array([65, 66, 67]),
      u16: () => new Uint16Array([0x4241]),
      dataview: () => new DataView(new Uint8Array([68, 69]).buffer),
      blob: () => new Blob(['blob!'], { type: 'application/x-b' }),
      bigblob: () => new Blob([new Uint8Array(3 << 20).fill(66)]),
      params: () => new URLSearchParams({ a: '1' }),
    };
    const { url } = await served((request) => new Response(bodies[new URL(request.url).pathname.slice(1)]!()));
    const read = async (name: string) => {
      const r = await fetch(`${url}/${name}`);
      const bytes = Buffer.from(await r.arrayBuffer());
      return { length: r.headers.get('content-length'), type: r.headers.get('content-type'), chunked: r.headers.get('transfer-encoding'), bytes };
    };
    expect(await read('string')).toMatchObject({ length: '6', type: 'text/plain;charset=UTF-8', chunked: null });
    expect((await read('string')).bytes.toString()).toBe('héllo');
    expect((await read('arraybuffer')).bytes.toString()).toBe('ab');
    expect((await read('uint8')).bytes.toString()).toBe('ABC');
    expect((await read('u16')).bytes.toString()).toBe('AB');
    expect((await read('dataview')).bytes.toString()).toBe('DE');
    expect(await read('blob')).toMatchObject({ length: '5', type: 'application/x-b' });
    const big = await read('bigblob');
    expect(big.length).toBe(String(3 << 20));
    expect(big.bytes.every((b) => b === 66)).toBe(true);
    expect(await read('params')).toMatchObject({ length: '3', type: 'application/x-www-form-urlencoded;charset=UTF-8' });
  });

  it('keeps several Set-Cookie headers apart, and the status', async () => {
    const { port } = await served(() => {
      const headers = new Headers({ 'x-one': '1' });
      headers.append('set-cookie', 'a=1; Path=/');
      headers.append('set-cookie', 'b=2, c; HttpOnly');
      return new Response('made', { status: 201, headers });
    });
    const { text } = await raw(port, GET('/'));
    expect(text).toMatch(/^HTTP\/1\.1 201 Created/);
    expect(text.match(/^set-cookie: .*$/gim)).toEqual(['set-cookie: a=1; Path=/', 'set-cookie: b=2, c; HttpOnly']);
    expect(text).toMatch(/x-one: 1/);
  });

  it('sends no body for HEAD, 204 and 304', async () => {
    const { port } = await served((request) => {
      const path = new URL(request.url).pathname;
      if (path === '/204') return new Response(null, { status: 204 });
      if (path === '/304') return new Response(null, { status: 304, headers: { etag: '"x"' } });
      if (path === '/stream') return new Response(new Blob(['0123456789']).stream(), { headers: { 'content-length': '10' } });
      return new Response('ten bytes!');
    });
    // One request per connection: a HEAD answer's Content-Length announces no body bytes, which a
    // parser reading by length cannot tell from the next answer.
    const heads: string[] = [];
    for (const [path, method] of [['/', 'HEAD'], ['/204', 'GET'], ['/304', 'GET'], ['/stream', 'HEAD']] as const) {
      heads.push((await raw(port, GET(path, method), { quietMs: 150 })).text);
    }
    for (const head of heads) expect(head.endsWith('\r\n\r\n')).toBe(true); // nothing after the head
    expect(heads.map((h) => Number(h.slice(9, 12)))).toEqual([200, 204, 304, 200]);
    expect(heads[0]).toMatch(/content-length: 10\r\n/i);
    expect(heads[1]).not.toMatch(/content-length/i);
    expect(heads[2]).toMatch(/etag: "x"/);
    expect(heads[3]).toMatch(/content-length: 10\r\n/i);
    const [get] = parseResponses((await raw(port, GET('/'))).text);
    expect(get!.body).toBe('ten bytes!');
  });

  it('streams a ReadableStream chunked, or with the Content-Length it declares', async () => {
    const { port } = await served((request) => {
      const parts = ['a', 'bb', 'ccc'];
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await sleep(2);
          const part = parts.shift();
          if (part === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(part));
        },
      });
      const sized = new URL(request.url).pathname === '/sized';
      return new Response(body, sized ? { headers: { 'content-length': '6' } } : {});
    });
    const [chunked] = parseResponses((await raw(port, GET('/'))).text);
    expect(chunked).toMatchObject({ status: 200, body: 'abbccc' });
    expect(chunked!.headers['transfer-encoding']).toBe('chunked');
    const [sized] = parseResponses((await raw(port, GET('/sized'))).text);
    expect(sized).toMatchObject({ status: 200, body: 'abbccc' });
    expect(sized!.headers['content-length']).toBe('6');
  });

  it('pulls a stream only as fast as the client reads (backpressure)', async () => {
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(120);
    const { port } = await served(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled += chunk.length;
              if (pulled > 256 << 20) controller.close();
              else controller.enqueue(chunk);
            },
          }),
        ),
    );
    const client = await rawConnection(port);
    client.socket.pause(); // a client that reads nothing
    await client.write(GET('/'));
    await sleep(500);
    const stalled = pulled;
    await sleep(300);
    // The server stopped pulling once the socket buffers filled: far below the 256 MB on offer.
    expect(pulled).toBe(stalled);
    expect(pulled).toBeLessThan(32 << 20);
    client.socket.destroy();
  });

  it('answers 500 when the app returns something that is not a Response', async () => {
    const { url } = await served((() => 'just a string') as never);
    expect((await fetch(url)).status).toBe(500);
  });

  it('writes a response the app builds from a Response it received (clone, re-wrap)', async () => {
    const { url } = await served(async (request) => {
      const inner = new Response(await request.text(), { headers: { 'x-inner': '1' } });
      return new Response(inner.body, inner);
    });
    const r = await fetch(url, { method: 'PUT', body: 'wrapped' });
    expect(await r.text()).toBe('wrapped');
    expect(r.headers.get('x-inner')).toBe('1');
  });

  it('answers the next request on the same connection after a streamed one', async () => {
    const { port } = await served((request) =>
      new URL(request.url).pathname === '/s' ? new Response(new Blob(['streamed']).stream()) : new Response('plain'),
    );
    const client = await rawConnection(port);
    await client.write(GET('/s'));
    await client.until((t) => t.includes('0\r\n\r\n'), 'the end of the chunked answer');
    await client.write(GET('/p'));
    await until(() => parseResponses(client.text()).length === 2, 'the second answer');
    expect(parseResponses(client.text()).map((a) => a.body)).toEqual(['streamed', 'plain']);
    client.socket.destroy();
  });
});
