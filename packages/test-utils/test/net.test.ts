import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { accepts, freePort, get, type Listener, later, listen, parseResponses, raw, rawConnection, start } from '../src/index.ts';

/** A node:net server on 127.0.0.1 that hands each connection to `onConnection`; closed after the test. */
async function tcpServer(onConnection: (socket: Socket) => void): Promise<number> {
  const server: Server = createServer((socket) => {
    socket.on('error', () => {});
    onConnection(socket);
    socket.resume(); // read to the end, so the close of the other side is seen
  });
  later(() => new Promise((resolve) => server.close(resolve)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('freePort() and accepts()', () => {
  it('gives a port nothing listens on, which accepts() tells from one that listens', async () => {
    const port = await freePort();
    expect(await accepts(port)).toBe(false);
    const listening = await tcpServer(() => {});
    expect(await accepts(listening)).toBe(true);
  });
});

describe('raw()', () => {
  it('sends the bytes, parts in order, and resolves with what came back and that the server closed', async () => {
    const port = await tcpServer((socket) => {
      let got = '';
      socket.on('data', (d) => {
        got += d;
        if (got.endsWith('\r\n\r\n')) socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${got.length}\r\n\r\n${got}`);
      });
    });
    const { text, closed } = await raw(port, ['GET / HTTP/1.1\r\n', 'Host: x\r\n\r\n'], { gapMs: 10 });
    expect(closed).toBe(true);
    expect(parseResponses(text)).toEqual([{ status: 200, headers: { 'content-length': '27' }, body: 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' }]);
  });

  it('resolves with closed false once the server goes quiet, and takes a base URL', async () => {
    const port = await tcpServer((socket) => socket.write('hello'));
    expect(await raw(`http://127.0.0.1:${port}`, 'x', { quietMs: 100 })).toEqual({ text: 'hello', closed: false });
  });
});

describe('rawConnection()', () => {
  it('writes, reads what comes back, and notes the close', async () => {
    const port = await tcpServer((socket) => socket.on('data', (d) => socket.end(`echo ${d}`)));
    const client = await rawConnection(port);
    await client.write('one');
    expect(await client.until((text) => text === 'echo one', 'the echo')).toBe('echo one');
    await client.closed;
    expect(client.socket.destroyed).toBe(true);
  });

  it('rejects until() when the connection closes before the text comes', async () => {
    const port = await tcpServer((socket) => socket.end('bye'));
    const client = await rawConnection(port);
    await expect(client.until((text) => text.includes('never'), 'a word never sent')).rejects.toThrow('connection closed before a word never sent; got "bye"');
  });
});

describe('parseResponses()', () => {
  const head = (status: number, headers: string) => `HTTP/1.1 ${status} X\r\n${headers}\r\n`;

  it('splits pipelined responses by Content-Length and by chunks', () => {
    const text = `${head(200, 'Content-Length: 2\r\n')}ok${head(404, 'Transfer-Encoding: chunked\r\n')}3\r\nnot\r\n6\r\n found\r\n0\r\n\r\n${head(204, '')}`;
    expect(parseResponses(text)).toEqual([
      { status: 200, headers: { 'content-length': '2' }, body: 'ok' },
      { status: 404, headers: { 'transfer-encoding': 'chunked' }, body: 'not found' },
      { status: 204, headers: {}, body: '' },
    ]);
  });

  it('leaves out a chunked response not ended yet, unless asked for it with partial', () => {
    const text = `${head(200, 'Content-Length: 0\r\n')}${head(413, 'Transfer-Encoding: chunked\r\n')}4\r\ntoo `;
    expect(parseResponses(text).map((r) => r.status)).toEqual([200]);
    expect(parseResponses(text, { partial: true })).toEqual([
      { status: 200, headers: { 'content-length': '0' }, body: '' },
      { status: 413, headers: { 'transfer-encoding': 'chunked' }, body: 'too ' },
    ]);
  });

  it('reads nothing from a stream that does not start with a status line, or whose head is cut', () => {
    expect(parseResponses('garbage')).toEqual([]);
    expect(parseResponses('HTTP/1.1 200 OK\r\nContent-Le')).toEqual([]);
  });
});

/** A node:http server behind the `listen(port, host)` that start() and listen() call; closed after the test. */
function httpApp(handler: RequestListener): Listener {
  const http = createHttpServer(handler);
  later(() => new Promise((resolve) => http.close(resolve)));
  return { listen: (port, host) => new Promise((resolve) => http.listen(port, host, () => resolve(http.address() as { port: number }))) };
}

describe('start(), listen() and get()', () => {
  it('start() listens on 127.0.0.1, port 0, and gives the http:// or ws:// base URL and the port', async () => {
    const { url, port } = await start(httpApp((req, res) => res.end()));
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(await accepts(port)).toBe(true);
    expect((await start(httpApp((req, res) => res.end()), 'ws')).url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
  });

  it('listen() gives the base URL; get() reads the answer and does not follow a redirect', async () => {
    const url = await listen(
      httpApp((req, res) => {
        if (req.url === '/moved') res.writeHead(302, { location: '/' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }),
    );
    const ok = await get(`${url}/`);
    expect([ok.status, ok.text, ok.json()]).toEqual([200, '{"ok":true}', { ok: true }]);
    const moved = await get(`${url}/moved`);
    expect([moved.status, moved.headers.get('location')]).toEqual([302, '/']);
  });
});
