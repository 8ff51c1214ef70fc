// HEAD answers: the status and headers a GET would get, its Content-Length among them, and no
// body bytes, on a connection that stays usable. Checked with raw bytes over one socket: a HEAD,
// then a GET on the same connection, whose answer must follow the HEAD's blank line at once.
import { Readable } from 'node:stream';
import { rawConnection, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { PreparedHead, type Server } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** One answer's head: the status line and the header lines as sent. */
interface Head {
  status: string;
  lines: string[];
}

function headOf(text: string): Head {
  const [status, ...lines] = text.split('\r\n');
  return { status: status!, lines };
}

/** The values of the header `name` (any case), in order. */
function values(head: Head, name: string): string[] {
  const prefix = `${name.toLowerCase()}:`;
  return head.lines.filter((l) => l.toLowerCase().startsWith(prefix)).map((l) => l.slice(prefix.length).trim());
}

/**
 * Sends `HEAD path`, waits for its head, then `GET /after` on the same connection and waits for
 * that answer. Resolves with the HEAD's head and whatever came between its blank line and the
 * next status line (which must be nothing).
 */
async function headThenNext(port: number, path: string, extra = ''): Promise<{ head: Head; between: string; next: string }> {
  const client = await rawConnection(port);
  await client.write(`HEAD ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`);
  await client.until((text) => text.includes('\r\n\r\n'), `the head of HEAD ${path}`);
  // Anything the server would wrongly send as a body arrives within this time.
  await new Promise((r) => setTimeout(r, 50));
  await client.write('GET /after HTTP/1.1\r\nHost: x\r\n\r\n');
  const text = await client.until((t) => t.endsWith('after'), `the answer after HEAD ${path}`);
  client.socket.destroy();
  const end = text.indexOf('\r\n\r\n');
  const rest = text.slice(end + 4);
  const nextAt = rest.indexOf('HTTP/1.1 ');
  return { head: headOf(text.slice(0, end)), between: rest.slice(0, nextAt), next: rest.slice(nextAt) };
}

/** A GET's raw answer head (one connection, read until `done`). */
async function getHead(port: number, path: string, done: (text: string) => boolean): Promise<Head> {
  const client = await rawConnection(port);
  await client.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  const text = await client.until(done, `GET ${path}`);
  client.socket.destroy();
  return headOf(text.slice(0, text.indexOf('\r\n\r\n')));
}

function withAfter(app: Server): Server {
  app.get('/after', (_req, res) => res.send('after'));
  return app;
}

describe('HEAD', () => {
  it('sends the Content-Length the app set on an explicit HEAD route, once, with no body, and the connection answers the next request', async () => {
    const app = withAfter(server());
    app.head('/size', (_req, res) => res.set('content-length', '100').end());
    const { port } = await start(app);
    const { head, between, next } = await headThenNext(port, '/size');
    expect(head.status).toBe('HTTP/1.1 200 OK');
    expect(values(head, 'content-length')).toEqual(['100']);
    expect(between).toBe('');
    expect(next).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nafter$/);
  });

  it('sends the Content-Length the app set when a GET route answers the HEAD, synchronously or later', async () => {
    const app = withAfter(server());
    app.get('/now', (_req, res) => res.set('Content-Length', 100).end());
    app.get('/later', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      res.set('content-length', '4096').end();
    });
    app.get('/status', (_req, res) => res.status(201).set('content-length', '7').end());
    const { port } = await start(app);
    for (const [path, status, length] of [
      ['/now', '200 OK', '100'],
      ['/later', '200 OK', '4096'],
      ['/status', '201 Created', '7'],
    ] as const) {
      const { head, between } = await headThenNext(port, path);
      expect(head.status, path).toBe(`HTTP/1.1 ${status}`);
      expect(values(head, 'content-length'), path).toEqual([length]);
      expect(between, path).toBe('');
    }
  });

  it("sends the byte length of the body a GET gets for send(), json(), bytes and a prepared head, and none of its bytes", async () => {
    const app = withAfter(server());
    const prepared = new PreparedHead(200, { 'content-type': 'text/css' });
    app.get('/text', (_req, res) => res.send('héllo wörld'));
    app.get('/json', (_req, res) => res.json({ café: 'crème' }));
    app.get('/bytes', (_req, res) => res.send(Buffer.alloc(300, 1)));
    app.get('/prepared', (_req, res) => res.sendPrepared(prepared, 'a { color: red }'));
    app.get('/async', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      res.send('later, ünïcode');
    });
    const { port } = await start(app);
    for (const path of ['/text', '/json', '/bytes', '/prepared', '/async']) {
      const get = await getHead(port, path, (t) => {
        const end = t.indexOf('\r\n\r\n');
        return end > 0 && t.length - end - 4 >= Number(/content-length: (\d+)/i.exec(t)?.[1] ?? 1e9);
      });
      const getLength = values(get, 'content-length');
      expect(getLength.length, path).toBe(1);
      const { head, between } = await headThenNext(port, path);
      expect(values(head, 'content-length'), path).toEqual(getLength);
      expect(values(head, 'content-type'), path).toEqual(values(get, 'content-type'));
      expect(between, path).toBe('');
    }
  });

  it('sends no Content-Length for a body written in pieces (a GET gets it chunked), and the declared one when set', async () => {
    const app = withAfter(server());
    app.get('/pieces', (_req, res) => {
      res.write('hello ');
      res.end('world');
    });
    app.get('/declared', (_req, res) => {
      res.set('content-length', '11');
      res.write('hello ');
      res.end('world');
    });
    app.get('/empty-write', (_req, res) => {
      res.write('');
      res.end('whole');
    });
    app.get('/stream', (_req, res) => res.stream(Readable.from([Buffer.from('hello '), Buffer.from('world')])));
    app.get('/sized', (_req, res) => res.stream(Readable.from([Buffer.from('hello world')]), { size: 11 }));
    const { port } = await start(app);
    const chunked = await getHead(port, '/pieces', (t) => t.endsWith('0\r\n\r\n'));
    expect(values(chunked, 'transfer-encoding')).toEqual(['chunked']);
    for (const [path, length] of [
      ['/pieces', []],
      ['/stream', []],
      ['/declared', ['11']],
      ['/sized', ['11']],
      // An empty write sends nothing: the GET answer goes out whole, with its length.
      ['/empty-write', ['5']],
    ] as const) {
      const { head, between } = await headThenNext(port, path);
      expect(head.status, path).toBe('HTTP/1.1 200 OK');
      expect(values(head, 'content-length'), path).toEqual(length);
      expect(values(head, 'transfer-encoding'), path).toEqual([]);
      expect(between, path).toBe('');
    }
  });

  it('keeps the Content-Length the app set beside the keepAliveHeader lines, and on a request that asks to close', async () => {
    const app = withAfter(server({ keepAliveHeader: 5 }));
    app.get('/size', (_req, res) => res.set('content-length', '100').end());
    const { port } = await start(app);
    const { head, between } = await headThenNext(port, '/size');
    expect(values(head, 'content-length')).toEqual(['100']);
    expect(values(head, 'connection')).toEqual(['keep-alive']);
    expect(between).toBe('');

    const client = await rawConnection(port);
    await client.write('HEAD /size HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await client.closed;
    const text = client.text();
    expect(text.endsWith('\r\n\r\n')).toBe(true);
    const closing = headOf(text.slice(0, -4));
    expect(values(closing, 'content-length')).toEqual(['100']);
    expect(values(closing, 'connection')).toEqual(['close']);
  });

  it('keeps the Content-Length the app set when onSend hooks and a listener see the answer', async () => {
    const app = withAfter(server());
    app.addHook('onSend', (_req, res) => {
      res.set('x-hook', 'ran');
    });
    app.get('/size', (_req, res) => {
      res.on('finish', () => {});
      res.set('content-length', '100').end();
    });
    app.get('/pieces', (_req, res) => {
      res.on('finish', () => {});
      res.write('a');
      res.end('bcd');
    });
    const { port } = await start(app);
    const size = await headThenNext(port, '/size');
    expect(values(size.head, 'content-length')).toEqual(['100']);
    expect(values(size.head, 'x-hook')).toEqual(['ran']);
    expect(size.between).toBe('');
    const pieces = await headThenNext(port, '/pieces');
    expect(values(pieces.head, 'content-length')).toEqual([]);
    expect(values(pieces.head, 'x-hook')).toEqual(['ran']);
    expect(pieces.between).toBe('');
  });
});
