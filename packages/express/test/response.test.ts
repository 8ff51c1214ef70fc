import { OutgoingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type Middleware, PreparedHead, type Response } from '@velox/core';
import { server } from './helpers.ts';

/** What on-headers does: wraps res.writeHead on the instance and runs a listener once, first. */
function onHeaders(res: Response, listener: (this: Response) => void): void {
  const previous = res.writeHead;
  let fired = false;
  res.writeHead = function writeHead(this: Response, ...args: Parameters<Response['writeHead']>) {
    if (!fired) {
      fired = true;
      listener.call(this);
    }
    return previous.apply(this, args);
  } as Response['writeHead'];
}

/** Records the head as on-headers sees it, and what reached a replaced res.end (compression's shape). */
const watch: Middleware = (req, res, next) => {
  const seen: string[] = [];
  onHeaders(res, function (this: Response) {
    seen.push(`head ${this.statusCode} ${this.getHeader('content-length') ?? '-'}`);
    this.setHeader('x-seen', 'yes');
    this.setHeader('x-log', seen.join(','));
  });
  const end = res.end;
  res.end = function (this: Response, chunk?: unknown, ...rest: unknown[]) {
    seen.push(`end ${chunk === undefined ? 0 : Buffer.byteLength(chunk as string)}`);
    return (end as (...a: unknown[]) => Response).call(this, chunk, ...rest);
  } as Response['end'];
  next();
};

describe('res: Node-style ways of answering, as on-headers and a replaced res.end see them', () => {
  it('routes send, json, sendStatus, redirect and end through a replaced writeHead and end', async () => {
    const app = server();
    app.use(watch);
    app.get('/send', (req, res) => res.send('hello'));
    app.get('/json', (req, res) => res.json({ a: 1 }));
    app.get('/status', (req, res) => res.sendStatus(204));
    app.get('/redirect', (req, res) => res.redirect('/there'));
    app.get('/end', (req, res) => res.end('bye'));
    const { url } = await start(app);
    const cases: Array<[string, number, string]> = [
      ['/send', 200, 'end 5,head 200 5'],
      ['/json', 200, 'end 7,head 200 7'],
      ['/status', 204, 'end 0,head 204 -'],
      ['/redirect', 302, 'end 28,head 302 28'],
      ['/end', 200, 'end 3,head 200 -'],
    ];
    for (const [path, status, log] of cases) {
      const r = await fetch(`${url}${path}`, { redirect: 'manual' });
      expect(r.status, path).toBe(status);
      expect(r.headers.get('x-seen'), path).toBe('yes');
      expect(r.headers.get('x-log'), path).toBe(log);
    }
  });

  it('sends a prepared head through a replaced writeHead and end too', async () => {
    const app = server();
    const head = new PreparedHead(200, { 'content-type': 'text/css; charset=utf-8' });
    app.use(watch);
    app.get('/app.css', (req, res) => res.sendPrepared(head, 'a{}'));
    const { url } = await start(app);
    const r = await fetch(`${url}/app.css`);
    expect([r.headers.get('x-log'), r.headers.get('content-type'), await r.text()]).toEqual(['end 3,head 200 3', 'text/css; charset=utf-8', 'a{}']);
  });

  it('calls a replaced writeHead before the first write, and before a streamed body', async () => {
    const app = server();
    app.use((req, res, next) => {
      onHeaders(res, function (this: Response) {
        this.setHeader('x-head', `${this.statusCode}`);
      });
      next();
    });
    app.get('/write', (req, res) => {
      res.statusCode = 201;
      res.write('a');
      res.end('b');
    });
    app.get('/stream', (req, res) => res.stream(Readable.from(['x', 'y']), { size: 2 }));
    const { url } = await start(app);
    const w = await fetch(`${url}/write`);
    expect([w.status, w.headers.get('x-head'), await w.text()]).toEqual([201, '201', 'ab']);
    const s = await fetch(`${url}/stream`);
    expect([s.headers.get('x-head'), await s.text()]).toEqual(['200', 'xy']);
  });

  it('commits the head with writeHead: headersSent, _header, reason phrase and array headers', async () => {
    const app = server();
    app.get('/', (req, res) => {
      const before = [res.headersSent, res._header];
      res.writeHead(202, 'Accepted For Real', ['x-a', '1', 'x-b', '2', 'x-b', '3']);
      res.json({ before, after: [res.headersSent, res._header?.startsWith('HTTP/1.1 202') ?? false], names: res.getHeaderNames() });
    });
    app.get('/object', (req, res) => {
      res.writeHead(200, { 'content-type': 'text/x-test' });
      res.end('ok');
    });
    const { url } = await start(app);
    const r = await fetch(url);
    expect(r.status).toBe(202);
    expect(r.headers.get('x-b')).toBe('2, 3');
    expect(await r.json()).toEqual({ before: [false, null], after: [true, true], names: expect.arrayContaining(['x-a', 'x-b']) });
    const o = await fetch(`${url}/object`);
    expect([o.headers.get('content-type'), await o.text()]).toEqual(['text/x-test', 'ok']);
  });

  it("takes headers through Node's own OutgoingMessage methods called on it (the cookies module does)", async () => {
    const app = server();
    app.get('/', (req, res) => {
      const node = OutgoingMessage.prototype;
      node.setHeader.call(res as never, 'X-Node', ['a', 'b']);
      node.setHeader.call(res as never, 'x-gone', '1');
      node.removeHeader.call(res as never, 'x-gone');
      res.json({
        get: node.getHeader.call(res as never, 'x-node'),
        has: [node.hasHeader.call(res as never, 'x-node'), node.hasHeader.call(res as never, 'x-gone')],
        names: node.getHeaderNames.call(res as never),
      });
    });
    const { url } = await start(app);
    const r = await fetch(url);
    expect(r.headers.get('x-node')).toBe('a, b');
    expect(await r.json()).toEqual({ get: ['a', 'b'], has: [true, false], names: ['x-node'] });
  });

  it('has the Node properties middlewares read: writable, destroyed, statusMessage, socket', async () => {
    const app = server();
    app.get('/', (req, res) => {
      res.status(418);
      const standard = res.statusMessage;
      res.statusMessage = 'Short And Stout';
      res.json({ writable: res.writable, destroyed: res.destroyed, standard, message: res.statusMessage, finished: res.writableFinished });
    });
    // writeHead(code, reason, headers), as on Node: the reason goes out on the status line.
    app.get('/head', (req, res) => {
      res.writeHead(203, 'From Cache', { 'x-h': '1' }).end('cached');
    });
    const { url } = await start(app);
    const r = await fetch(url);
    expect([r.status, r.statusText]).toEqual([418, 'Short And Stout']);
    expect(await r.json()).toEqual({ writable: true, destroyed: false, standard: "I'm a Teapot", message: 'Short And Stout', finished: false });
    const h = await fetch(`${url}/head`);
    expect([h.status, h.statusText, h.headers.get('x-h'), await h.text()]).toEqual([203, 'From Cache', '1', 'cached']);
  });
});
