import { raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, PreparedHead, PreparedHeader, type VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** The error code `fn` throws, or undefined. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as VeloxError).code;
  }
  return undefined;
}

const head = new PreparedHead(200, { 'Content-Type': 'text/css; charset=utf-8', etag: '"v1"', 'x-many': ['a', 'b'] });

describe('PreparedHead', () => {
  it('keeps the status and the headers, names lower-cased, as a frozen list', () => {
    expect(head.status).toBe(200);
    expect(head.headers).toEqual(['content-type', 'text/css; charset=utf-8', 'etag', '"v1"', 'x-many', ['a', 'b']]);
    expect(Object.isFrozen(head.headers)).toBe(true);
  });

  it('refuses header values with CR or LF, bad names, Content-Length, Transfer-Encoding, Date and bad status codes', () => {
    expect(codeOf(() => new PreparedHead(200, { 'x-a': 'v\r\nset-cookie: evil=1' }))).toBe(ErrorCodes.INVALID_HEADER);
    expect(codeOf(() => new PreparedHead(200, { 'bad name': 'v' }))).toBe(ErrorCodes.INVALID_HEADER);
    expect(codeOf(() => new PreparedHead(200, { 'content-length': '3' }))).toBe(ErrorCodes.INVALID_OPTION);
    expect(codeOf(() => new PreparedHead(200, { 'Transfer-Encoding': 'chunked' }))).toBe(ErrorCodes.INVALID_OPTION);
    // uWS writes its own Date on every answer: a second line would follow it.
    expect(codeOf(() => new PreparedHead(200, { Date: 'Thu, 01 Jan 1970 00:00:00 GMT' }))).toBe(ErrorCodes.INVALID_OPTION);
    expect(codeOf(() => new PreparedHead(42))).toBe(ErrorCodes.INVALID_OPTION);
  });
});

describe('Response.sendPrepared', () => {
  it('sends the prepared status line and headers with the body', async () => {
    const app = server();
    app.get('/a', (_req, res) => res.sendPrepared(head, 'body{}'));
    const { port } = await start(app);
    const { text } = await raw(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('\r\ncontent-type: text/css; charset=utf-8\r\n');
    expect(text).toContain('\r\netag: "v1"\r\n');
    expect(text).toContain('\r\nx-many: a\r\nx-many: b\r\n');
    expect(text).toContain('\r\nContent-Length: 6\r\n');
    expect(text.endsWith('\r\n\r\nbody{}')).toBe(true);
  });

  it('answers HEAD with the Content-Length of the body and no body', async () => {
    const app = server();
    app.get('/a', (_req, res) => res.sendPrepared(head, 'body{}'));
    const { port } = await start(app);
    const { text } = await raw(port, 'HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toContain('\r\netag: "v1"\r\n');
    expect(text.toLowerCase()).toContain('\r\ncontent-length: 6\r\n');
    expect(text.endsWith('\r\n\r\n')).toBe(true);
  });

  it('sends a 304 head without a body', async () => {
    const app = server();
    const notModified = new PreparedHead(304, { etag: '"v1"' });
    app.get('/a', (_req, res) => res.sendPrepared(notModified));
    const { port } = await start(app);
    const { text } = await raw(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 304 Not Modified\r\n/);
    expect(text).toContain('\r\netag: "v1"\r\n');
    expect(text.endsWith('\r\n\r\n')).toBe(true);
  });

  it('keeps headers a middleware set, adding the prepared ones under them', async () => {
    const app = server();
    app.use((_req, res, next) => {
      res.set('etag', '"mine"').set('x-mw', '1');
      next();
    });
    app.get('/a', (_req, res) => res.sendPrepared(head, 'body{}'));
    const { url } = await start(app);
    const r = await fetch(`${url}/a`);
    expect(r.headers.get('etag')).toBe('"mine"');
    expect(r.headers.get('x-mw')).toBe('1');
    expect(r.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await r.text()).toBe('body{}');
  });

  it('lets onSend hooks see and change the prepared headers', async () => {
    const app = server();
    const seen: unknown[] = [];
    app.addHook('onSend', (_req, res) => {
      seen.push(res.get('etag'));
      res.set('cache-control', 'no-store');
    });
    app.get('/a', (_req, res) => res.sendPrepared(head, 'body{}'));
    const { url } = await start(app);
    const r = await fetch(`${url}/a`);
    expect(seen).toEqual(['"v1"']);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('etag')).toBe('"v1"');
  });

  it('sends from an async handler, corked', async () => {
    const app = server();
    app.get('/a', async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      res.sendPrepared(head, Buffer.from('late'));
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/a`);
    expect(r.headers.get('etag')).toBe('"v1"');
    expect(await r.text()).toBe('late');
  });

  it('throws VELOX_ERR_HEADERS_SENT when the response was already sent', async () => {
    const app = server();
    let code: string | undefined;
    app.get('/a', (_req, res) => {
      res.send('first');
      try {
        res.sendPrepared(head, 'second');
      } catch (err) {
        code = (err as VeloxError).code;
      }
    });
    const { url } = await start(app);
    expect(await (await fetch(`${url}/a`)).text()).toBe('first');
    expect(code).toBe(ErrorCodes.HEADERS_SENT);
  });
});

describe('Request.firstHeader', () => {
  it("reads a header's first line, and '' for an absent one, before and after the handler goes async", async () => {
    const app = server();
    app.get('/a', async (req, res) => {
      const before = [req.firstHeader('if-none-match'), req.firstHeader('x-absent')];
      await new Promise((r) => setTimeout(r, 5));
      const after = [req.firstHeader('if-none-match'), req.firstHeader('x-absent')];
      res.json({ before, after });
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/a`, { headers: { 'if-none-match': '"v1"' } });
    expect(await r.json()).toEqual({ before: ['"v1"', ''], after: ['"v1"', ''] });
  });
});

describe('Response.sendPrepared with beforeHead', () => {
  it('waits for beforeHead tasks, which may still change headers', async () => {
    const app = server();
    const head = new PreparedHead(200, { 'content-type': 'text/plain; charset=utf-8', etag: '"v1"' });
    app.get('/a', (_req, res) => {
      res.beforeHead(async (r) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        r.set('x-saved', 'yes');
      });
      res.sendPrepared(head, 'held');
    });
    const { url } = await start(app);
    const r = await fetch(`${url}/a`);
    expect(r.headers.get('x-saved')).toBe('yes');
    expect(r.headers.get('etag')).toBe('"v1"');
    expect(await r.text()).toBe('held');
  });
});

describe('PreparedHeader and Response.setPrepared', () => {
  const poweredBy = new PreparedHeader('X-Powered-By', 'Velox');

  it('checks the name and value once, as res.set() does', () => {
    expect(poweredBy.name).toBe('X-Powered-By');
    expect(poweredBy.value).toBe('Velox');
    expect(Object.isFrozen(poweredBy)).toBe(true);
    expect(new PreparedHeader('Content-Length', 42).value).toBe('42');
    expect(codeOf(() => new PreparedHeader('x-a', 'v\r\nset-cookie: evil=1'))).toBe(ErrorCodes.INVALID_HEADER);
    expect(codeOf(() => new PreparedHeader('x-a', 'v\u0000'))).toBe(ErrorCodes.INVALID_HEADER);
    expect(codeOf(() => new PreparedHeader('bad name', 'v'))).toBe(ErrorCodes.INVALID_HEADER);
  });

  it('sets the header as set() would: readable with get(), replacing an earlier value, sent on the wire', async () => {
    const app = server();
    const seen: unknown[] = [];
    app.get('/a', (_req, res) => {
      res.set('x-powered-by', 'someone else');
      res.setPrepared(poweredBy);
      seen.push(res.get('X-Powered-By'), res.getHeaders()['x-powered-by']);
      res.send('ok');
    });
    const { port } = await start(app);
    const { text } = await raw(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(seen).toEqual(['Velox', 'Velox']);
    expect(text.match(/x-powered-by: [^\r]*/gi)).toEqual(['x-powered-by: Velox']);
    await app.close();
  });

  it('sets a list: in order after the headers set before, replacing those it names, a name twice at its first place with its later value', async () => {
    const app = server();
    const block = [new PreparedHeader('X-A', '1'), new PreparedHeader('X-B', '2'), new PreparedHeader('x-a', '3')];
    const seen: unknown[] = [];
    app.get('/none', (_req, res) => {
      res.setPrepared(block);
      seen.push(Object.entries(res.getHeaders()));
      res.send('ok');
    });
    app.get('/after', (_req, res) => {
      res.set('x-first', 'f').type('text');
      res.setPrepared(block);
      seen.push(Object.entries(res.getHeaders()));
      res.send('ok');
    });
    app.get('/replace', (_req, res) => {
      res.set('x-b', 'old').set('x-c', 'c');
      res.setPrepared(block);
      seen.push(Object.entries(res.getHeaders()));
      res.send('ok');
    });
    const { port } = await start(app);
    for (const path of ['/none', '/after', '/replace', '/none']) {
      const { text } = await raw(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(text.match(/^x-[abc]: [^\r]*/gim)).toEqual(path === '/replace' ? ['x-b: 2', 'x-c: c', 'x-a: 3'] : ['x-a: 3', 'x-b: 2']);
    }
    expect(seen).toEqual([
      [['x-a', '3'], ['x-b', '2']],
      [['x-first', 'f'], ['content-type', 'text/plain; charset=utf-8'], ['x-a', '3'], ['x-b', '2']],
      [['x-b', '2'], ['x-c', 'c'], ['x-a', '3']],
      [['x-a', '3'], ['x-b', '2']],
    ]);
    await app.close();
  });

  it('sends what a list holds now when it was changed in place after its first use', async () => {
    const app = server();
    const block = [new PreparedHeader('x-a', '1'), new PreparedHeader('x-b', '2')];
    app.get('/a', (_req, res) => res.setPrepared(block).send('ok'));
    const { port } = await start(app);
    expect((await raw(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n')).text.match(/^x-[abc]: [^\r]*/gim)).toEqual(['x-a: 1', 'x-b: 2']);
    block[1] = new PreparedHeader('x-c', '3');
    expect((await raw(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n')).text.match(/^x-[abc]: [^\r]*/gim)).toEqual(['x-a: 1', 'x-c: 3']);
    block.push(new PreparedHeader('x-b', '4'));
    expect((await raw(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n')).text.match(/^x-[abc]: [^\r]*/gim)).toEqual(['x-a: 1', 'x-c: 3', 'x-b: 4']);
    await app.close();
  });

  it('refuses a header once the head is out (VELOX_ERR_HEADERS_SENT)', async () => {
    const app = server();
    let code: string | undefined;
    app.get('/a', (_req, res) => {
      res.write('part');
      try {
        res.setPrepared(poweredBy);
      } catch (err) {
        code = (err as VeloxError).code;
      }
      res.end();
    });
    const { port } = await start(app);
    await raw(port, 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(code).toBe(ErrorCodes.HEADERS_SENT);
    await app.close();
  });
});
