import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { sleep, start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, type Response } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** A raw connection that keeps the bytes it received (as bytes: bodies here are binary). */
interface RawClient {
  socket: Socket;
  received(): Buffer;
  closed: Promise<void>;
  isClosed(): boolean;
}

function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let isClosed = false;
    const closed = new Promise<void>((done) =>
      socket.on('close', () => {
        isClosed = true;
        done();
      }),
    );
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {}); // a reset shows as 'close'
    socket.once('connect', () => resolve({ socket, received: () => Buffer.concat(chunks), closed, isClosed: () => isClosed }));
    socket.once('error', reject);
  });
}

interface RawAnswer {
  /** The status line and the header lines, as sent. */
  lines: string[];
  body: Buffer;
}

/** The answers in `bytes` that arrived whole, framed by Content-Length (these tests send none chunked). */
function answersIn(bytes: Buffer): RawAnswer[] {
  const out: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) return out;
    const lines = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const length = Number(lines.find((l) => /^content-length:/i.test(l))?.split(':')[1] ?? 0);
    if (bytes.length < end + 4 + length) return out;
    out.push({ lines, body: bytes.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
}

/** How many header lines `answer` has named `name` (any case). */
function count(answer: RawAnswer, name: string): number {
  return answer.lines.filter((l) => l.toLowerCase().startsWith(`${name}:`)).length;
}

/** `size` bytes that differ from one position to the next, so a lost or repeated piece shows. */
function pattern(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 12)) & 255;
  return bytes;
}

const get = (path: string, method = 'GET') => `${method} ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

/** Sends `requests` on one connection and resolves once `n` whole answers came back. */
async function exchange(port: number, requests: string, n: number): Promise<RawAnswer[]> {
  const client = await rawClient(port);
  try {
    client.socket.write(requests);
    await until(() => answersIn(client.received()).length >= n, `${n} whole answer(s)`);
    return answersIn(client.received());
  } finally {
    client.socket.destroy();
  }
}

/** A server whose logged errors are kept. */
function loggingServer() {
  const logged: Array<{ code?: string; message: string }> = [];
  const app = server({ logger: { error: (err: any) => logged.push(err), warn: () => {} } });
  return { app, logged };
}

describe('res.write() with a declared Content-Length', () => {
  it('sends the pieces with that Content-Length, written once, and no chunked framing', async () => {
    const app = server();
    app.get('/', (req, res) => {
      res.set('content-length', '15').type('text');
      expect(res.write('hello ')).toBe(true);
      expect(res.headersSent).toBe(true);
      res.write(Buffer.from('big '));
      res.end('world');
    });
    const { port } = await start(app);
    const [answer] = await exchange(port, get('/'), 1);
    expect(answer!.lines[0]).toBe('HTTP/1.1 200 OK');
    expect(answer!.lines).toContain('Content-Length: 15');
    expect(count(answer!, 'content-length')).toBe(1);
    expect(count(answer!, 'transfer-encoding')).toBe(0);
    expect(answer!.body.toString()).toBe('hello big world');
  });

  it('keeps chunked framing for writes without a declared length, and the real length for end(body) alone', async () => {
    const app = server();
    app.get('/chunked', (req, res) => {
      res.write('a');
      res.end('b');
    });
    app.get('/whole', (req, res) => {
      res.set('content-length', '99').end('abc');
    });
    const { port } = await start(app);
    const client = await rawClient(port);
    client.socket.write(get('/chunked') + get('/whole'));
    await until(() => client.received().toString().endsWith('\r\n\r\nabc'), 'both answers');
    const text = client.received().toString();
    client.socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Transfer-Encoding: chunked\r\n/);
    expect(text).toContain('\r\n\r\n1\r\na\r\n1\r\nb\r\n0\r\n\r\n');
    expect(text.slice(text.lastIndexOf('HTTP/1.1'))).toMatch(/Content-Length: 3\r\n\r\nabc$/);
  });

  it('sends more than 4 MiB to a client that stops reading: write() returns false, then drain, and every byte arrives', async () => {
    const app = server();
    const body = pattern(6 * 1024 * 1024 + 7);
    const seen = { refused: 0, drains: 0, finish: 0, finishedAt: -1 };
    app.get('/big', (req, res) => {
      res.set('content-length', String(body.length));
      res.on('drain', () => seen.drains++);
      res.on('finish', () => {
        seen.finish++;
        seen.finishedAt = Date.now();
      });
      let at = 0;
      const pump = () => {
        while (at < body.length) {
          const piece = body.subarray(at, at + 65536);
          at += piece.length;
          if (at >= body.length) return void res.end(piece);
          if (!res.write(piece)) {
            seen.refused++;
            return void res.once('drain', pump);
          }
        }
      };
      pump();
    });
    const { port } = await start(app);
    const client = await rawClient(port);
    client.socket.pause();
    client.socket.write(get('/big'));
    await until(() => seen.refused > 0, 'write() to report backpressure');
    expect(seen.finish).toBe(0);
    client.socket.resume();
    await until(() => answersIn(client.received()).length === 1, 'the whole body');
    const [answer] = answersIn(client.received());
    expect(answer!.lines).toContain(`Content-Length: ${body.length}`);
    expect(count(answer!, 'transfer-encoding')).toBe(0);
    expect(answer!.body.equals(body)).toBe(true);
    await until(() => seen.finish === 1, "'finish'");
    expect(seen.drains).toBeGreaterThanOrEqual(seen.refused);
    // The connection is still good for another request.
    client.socket.write(get('/big'));
    await until(() => answersIn(client.received()).length === 2, 'the second answer');
    expect(answersIn(client.received())[1]!.body.equals(body)).toBe(true);
    client.socket.destroy();
  });

  it('keeps what one large write() could not send, and sends it from onWritable (a piped Readable as well)', async () => {
    const app = server();
    const body = pattern(5 * 1024 * 1024 + 3);
    const results: boolean[] = [];
    app.get('/one', (req, res) => {
      res.set('content-length', String(body.length));
      results.push(res.write(body));
      res.end();
    });
    app.get('/pipe', (req, res) => {
      res.set('content-length', String(body.length));
      const pieces = Array.from({ length: Math.ceil(body.length / 100_000) }, (_, i) => body.subarray(i * 100_000, (i + 1) * 100_000));
      Readable.from(pieces).pipe(res);
    });
    const { port } = await start(app);
    for (const path of ['/one', '/pipe']) {
      const client = await rawClient(port);
      client.socket.pause();
      client.socket.write(get(path));
      await sleep(50);
      client.socket.resume();
      await until(() => answersIn(client.received()).length === 1, `the body of ${path}`);
      const [answer] = answersIn(client.received());
      expect(answer!.lines).toContain(`Content-Length: ${body.length}`);
      expect(count(answer!, 'transfer-encoding')).toBe(0);
      expect(answer!.body.equals(body)).toBe(true);
      client.socket.destroy();
    }
    expect(results).toEqual([false]);
  });

  it('answers a pipelined request after a declared-length body on the same connection', async () => {
    const app = server();
    app.get('/a', (req, res) => {
      res.set('content-length', '6');
      res.write('abc');
      res.write('def');
      res.end();
    });
    app.get('/b', (req, res) => res.send('B'));
    const { port } = await start(app);
    const answers = await exchange(port, get('/a') + get('/b') + get('/a'), 3);
    expect(answers.map((a) => a.body.toString())).toEqual(['abcdef', 'B', 'abcdef']);
  });

  it('keeps the last byte until end(), which completes the answer; the connection goes on', async () => {
    const { app, logged } = loggingServer();
    const events: string[] = [];
    let release: (() => void) | undefined;
    let ip = '';
    app.get('/a', (req, res) => {
      res.set('content-length', '3');
      res.on('finish', () => events.push('finish'));
      expect(res.write('abc')).toBe(true);
      release = () => {
        ip = req.ip;
        res.end();
      };
    });
    app.get('/b', (req, res) => res.send('B'));
    const { port } = await start(app);
    const client = await rawClient(port);
    client.socket.write(get('/a'));
    await until(() => client.received().toString().endsWith('\r\n\r\nab'), 'all but the last byte');
    await sleep(50);
    expect(client.received().toString().endsWith('\r\n\r\nab')).toBe(true);
    expect(events).toEqual([]);
    release!();
    await until(() => answersIn(client.received()).length === 1, 'the whole answer');
    expect(events).toEqual(['finish']);
    client.socket.write(get('/b'));
    await until(() => answersIn(client.received()).length === 2, 'the second answer');
    expect(answersIn(client.received()).map((a) => a.body.toString())).toEqual(['abc', 'B']);
    expect(ip).toBe('127.0.0.1');
    expect(logged).toEqual([]);
    client.socket.destroy();
  });

  it('drops the bytes beyond the declared length, logs it once, and keeps the connection usable', async () => {
    const { app, logged } = loggingServer();
    app.get('/long', (req, res) => {
      res.set('content-length', '6');
      expect(res.write('abcd')).toBe(true);
      expect(res.write('efgh')).toBe(true);
      res.write('ijkl');
      res.end('mnop');
    });
    app.get('/zero', (req, res) => {
      res.set('content-length', '0');
      res.write('nothing of this');
      res.end();
    });
    app.get('/b', (req, res) => res.send('B'));
    const { port } = await start(app);
    const answers = await exchange(port, get('/long') + get('/b') + get('/zero') + get('/b'), 4);
    expect(answers.map((a) => a.body.toString())).toEqual(['abcdef', 'B', '', 'B']);
    expect(answers[0]!.lines).toContain('Content-Length: 6');
    expect(answers[2]!.lines).toContain('Content-Length: 0');
    expect(logged.map((e) => e.code)).toEqual([ErrorCodes.CONTENT_LENGTH_MISMATCH, ErrorCodes.CONTENT_LENGTH_MISMATCH]);
    expect(logged[0]!.message).toMatch(/past the 6 bytes/);
  });

  it('closes the connection when end() comes short of the declared length, so the client does not wait', async () => {
    const { app, logged } = loggingServer();
    const events: string[] = [];
    app.get('/short', (req, res) => {
      res.set('content-length', '10');
      res.on('finish', () => events.push('finish'));
      res.on('close', () => events.push(`close aborted=${res.aborted}`));
      res.write('abcd');
      setTimeout(() => res.end(() => events.push('end callback')), 20);
    });
    app.get('/ok', (req, res) => res.send('ok'));
    const { port, url } = await start(app);
    const client = await rawClient(port);
    client.socket.write(get('/short'));
    await client.closed;
    const text = client.received().toString();
    expect(text).toMatch(/Content-Length: 10\r\n\r\nabcd$/);
    await until(() => events.length === 2, "'close' and the end callback");
    expect(events).toEqual(['close aborted=true', 'end callback']);
    expect(logged.map((e) => e.code)).toEqual([ErrorCodes.CONTENT_LENGTH_MISMATCH]);
    expect(logged[0]!.message).toMatch(/4 of the 10 bytes/);
    expect(await (await fetch(`${url}/ok`)).text()).toBe('ok');
  });

  it('lets go when the client leaves mid-body: no throw, close, writes refused, the server keeps serving', async () => {
    const { app, logged } = loggingServer();
    const body = pattern(8 * 1024 * 1024);
    const seen = { refused: 0, closed: 0, writesAfter: [] as boolean[], thrown: [] as unknown[] };
    let response: Response | undefined;
    app.get('/big', (req, res) => {
      response = res;
      res.set('content-length', String(body.length));
      res.on('close', () => seen.closed++);
      let at = 0;
      const pump = () => {
        while (at < body.length) {
          const piece = body.subarray(at, at + 65536);
          at += piece.length;
          if (!res.write(piece)) {
            seen.refused++;
            return void res.once('drain', pump);
          }
        }
        res.end();
      };
      pump();
    });
    app.get('/ok', (req, res) => res.send('ok'));
    const { port, url } = await start(app);
    const client = await rawClient(port);
    client.socket.pause();
    client.socket.write(get('/big'));
    await until(() => seen.refused > 0, 'backpressure');
    client.socket.destroy();
    await until(() => seen.closed === 1, "'close'");
    expect(response!.aborted).toBe(true);
    try {
      seen.writesAfter.push(response!.write('more'));
      response!.end('last');
    } catch (err) {
      seen.thrown.push(err);
    }
    expect(seen.writesAfter).toEqual([false]);
    expect(seen.thrown).toEqual([]);
    expect(await (await fetch(`${url}/ok`)).text()).toBe('ok');
    expect(logged).toEqual([]);
  });

  it('sends no body for HEAD: the declared Content-Length, and the connection stays usable', async () => {
    const app = server();
    app.get('/file', (req, res) => {
      res.set('content-length', '11');
      res.write('hello ');
      res.end('world');
    });
    app.get('/b', (req, res) => res.send('B'));
    const { port } = await start(app);
    const client = await rawClient(port);
    client.socket.write(get('/file', 'HEAD') + get('/b'));
    await until(() => client.received().toString().endsWith('\r\n\r\nB'), 'both answers');
    const text = client.received().toString();
    client.socket.destroy();
    const [head, rest] = text.split('HTTP/1.1 200 OK').filter(Boolean);
    expect(head).toContain('\r\nContent-Length: 11\r\n');
    expect(head!.endsWith('\r\n\r\n')).toBe(true);
    expect(head).not.toMatch(/hello|transfer-encoding/i);
    expect(rest).toMatch(/Content-Length: 1\r\n\r\nB$/);
  });

  it('sends no body with 204 or 304, written or not, and the next answer is framed right', async () => {
    const app = server();
    app.get('/:status', (req, res) => {
      res.status(Number(req.params.status)).set('content-length', '5');
      expect(res.write('hello')).toBe(true);
      res.end();
    });
    app.get('/b/x', (req, res) => res.send('B'));
    const { port } = await start(app);
    const client = await rawClient(port);
    client.socket.write(get('/204') + get('/b/x') + get('/304') + get('/b/x'));
    await until(() => client.received().toString().split('\r\n\r\nB').length === 3, 'four answers');
    const text = client.received().toString();
    client.socket.destroy();
    expect(text).not.toMatch(/hello|transfer-encoding/i);
    expect(text.match(/HTTP\/1\.1 \d+ [^\r]*/g)).toEqual(['HTTP/1.1 204 No Content', 'HTTP/1.1 200 OK', 'HTTP/1.1 304 Not Modified', 'HTTP/1.1 200 OK']);
  });

  it('runs onSend hooks before the first write, and a Content-Length they set is the one sent', async () => {
    const app = server();
    let hooked = 0;
    app.addHook('onSend', (req, res) => {
      hooked++;
      if (req.path === '/sized') res.set('content-length', '4');
    });
    app.get('/sized', (req, res) => {
      res.write('ab');
      res.end('cd');
    });
    const { port } = await start(app);
    const [answer] = await exchange(port, get('/sized'), 1);
    expect(answer!.lines).toContain('Content-Length: 4');
    expect(answer!.body.toString()).toBe('abcd');
    expect(hooked).toBe(1);
  });

  it('sends what a write a middleware replaced hands on, with the declared length', async () => {
    const app = server();
    app.use((req, res, next) => {
      const write = res.write;
      res.write = function (this: Response, chunk: string | Uint8Array) {
        return write.call(this, Buffer.from(String(chunk).toUpperCase()));
      } as Response['write'];
      next();
    });
    app.get('/', (req, res) => {
      res.set('content-length', '4');
      Readable.from(['ab', 'cd']).pipe(res);
    });
    const { port } = await start(app);
    const [answer] = await exchange(port, get('/'), 1);
    expect(answer!.lines).toContain('Content-Length: 4');
    expect(answer!.body.toString()).toBe('ABCD');
  });

  it('goes on through write() when res.stream() follows a write, whatever size it is given', async () => {
    const app = server();
    app.get('/', async (req, res) => {
      res.set('content-length', '6');
      res.write('ab');
      await res.stream(Readable.from(['cd', 'ef']), { size: 4 });
    });
    const { port } = await start(app);
    const answers = await exchange(port, get('/'), 1);
    expect(answers[0]!.lines).toContain('Content-Length: 6');
    expect(count(answers[0]!, 'content-length')).toBe(1);
    expect(answers[0]!.body.toString()).toBe('abcdef');
  });

  it('throws VELOX_ERR_HEADERS_SENT for a write after end() while the body is still going out', async () => {
    const app = server();
    const body = pattern(8 * 1024 * 1024);
    let error: { code?: string } | undefined;
    app.get('/late', (req, res) => {
      res.set('content-length', String(body.length));
      res.write(body);
      res.end();
      try {
        res.write('x');
      } catch (err) {
        error = err as { code?: string };
      }
    });
    const { port } = await start(app);
    const client = await rawClient(port);
    client.socket.pause();
    client.socket.write(get('/late'));
    await until(() => error !== undefined, 'the late write');
    expect(error!.code).toBe(ErrorCodes.HEADERS_SENT);
    client.socket.resume();
    await until(() => answersIn(client.received()).length === 1, 'the body');
    expect(answersIn(client.received())[0]!.body.equals(body)).toBe(true);
    client.socket.destroy();
  });
});
