import { listen, raw } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/index.ts';
import { server } from '../helpers.ts';

const TEXT: [string, string] = ['Content-Type', 'text/plain; charset=utf-8'];

describe('constantRoute()', () => {
  it('answers GET with status 200, its headers in order, Date and Content-Length, and the body, several times on one connection', async () => {
    const app = server();
    app.constantRoute('/health', { headers: [TEXT, ['X-Kind', 'constant']], body: 'ok ✓' });
    const url = await listen(app);
    const { text } = await raw(url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health?probe=1 HTTP/1.1\r\nHost: x\r\n\r\n');
    const answers = text.split('HTTP/1.1 ').slice(1);
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      const [head, body] = answer.split('\r\n\r\n');
      const lines = head!.split('\r\n');
      expect(lines[0]).toBe('200 OK');
      expect(lines[1]).toBe('Content-Type: text/plain; charset=utf-8');
      expect(lines[2]).toBe('X-Kind: constant');
      expect(lines.some((l) => /^Date: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/.test(l))).toBe(true);
      expect(lines).toContain(`Content-Length: ${Buffer.byteLength('ok ✓')}`);
      expect(Buffer.from(body!, 'latin1').toString('utf8')).toBe('ok ✓');
    }
  });

  it('answers HEAD with the same head, the body\'s Content-Length and no body, and keeps the connection', async () => {
    const app = server();
    app.constantRoute('/health', { headers: [TEXT], body: 'ok' });
    const url = await listen(app);
    const { text, closed } = await raw(url, 'HEAD /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(closed).toBe(false);
    const [head, rest] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toContain('Content-Type: text/plain; charset=utf-8');
    expect(head).toContain('Content-Length: 2');
    // The GET after it starts right where HEAD's head ends: HEAD sent no body.
    expect(rest).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.endsWith('\r\n\r\nok')).toBe(true);
  });

  it('runs no middleware, hook or error handler for it, and leaves every other route to the lifecycle', async () => {
    const app = server();
    const seen: string[] = [];
    app.addHook('onRequest', (req) => {
      seen.push(`hook ${req.path}`);
    });
    app.use((req, res, next) => {
      seen.push(`mw ${req.path}`);
      res.set('x-middleware', '1');
      next();
    });
    app.constantRoute('/fixed', { body: 'fixed' });
    app.get('/live', (req, res) => res.send('live'));
    const url = await listen(app);
    const fixed = await fetch(`${url}/fixed`);
    expect(await fixed.text()).toBe('fixed');
    expect(fixed.headers.get('x-middleware')).toBeNull();
    const live = await fetch(`${url}/live`);
    expect(await live.text()).toBe('live');
    expect(live.headers.get('x-middleware')).toBe('1');
    expect(seen).toEqual(['hook /live', 'mw /live']);
    // Other methods on the path are not the constant's: they go to the not-found route.
    expect((await fetch(`${url}/fixed`, { method: 'POST' })).status).toBe(404);
  });

  it('answers the trailing-slash twin with strict off, and only the exact path with strict on', async () => {
    const loose = server();
    loose.constantRoute('/a', { body: 'A' });
    const looseUrl = await listen(loose);
    expect(await (await fetch(`${looseUrl}/a/`)).text()).toBe('A');
    const strict = server({ strict: true });
    strict.constantRoute('/a', { body: 'A' });
    const strictUrl = await listen(strict);
    expect((await fetch(`${strictUrl}/a/`)).status).toBe(404);
    expect(await (await fetch(`${strictUrl}/a`)).text()).toBe('A');
  });

  it('can be added after listen()', async () => {
    const app = server();
    const url = await listen(app);
    expect((await fetch(`${url}/late`)).status).toBe(404);
    app.constantRoute('/late', { body: 'late' });
    expect(await (await fetch(`${url}/late`)).text()).toBe('late');
  });

  it('closes the connection after the answer when the client says Connection: close', async () => {
    const app = server();
    app.constantRoute('/c', { body: 'c' });
    const url = await listen(app);
    const { text, closed } = await raw(url, 'GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { quietMs: 2000 });
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nc$/);
    expect(closed).toBe(true);
  });

  it('refuses a GET or HEAD route on its path, and a constant route on a route\'s path, with VELOX_ERR_DUPLICATE_ROUTE', () => {
    const app = server();
    app.constantRoute('/x', { body: 'x' });
    expect(() => app.get('/x', (req, res) => res.send('y'))).toThrow(expect.objectContaining({ code: ErrorCodes.DUPLICATE_ROUTE }));
    expect(() => app.head('/x', (req, res) => res.end())).toThrow(expect.objectContaining({ code: ErrorCodes.DUPLICATE_ROUTE }));
    expect(() => app.constantRoute('/x/', { body: 'twin' })).toThrow(expect.objectContaining({ code: ErrorCodes.DUPLICATE_ROUTE }));
    app.get('/y', (req, res) => res.send('y'));
    expect(() => app.constantRoute('/y', { body: 'y' })).toThrow(expect.objectContaining({ code: ErrorCodes.DUPLICATE_ROUTE }));
    // Another method on the path is fine.
    expect(() => app.post('/x', (req, res) => res.send('posted'))).not.toThrow();
  });

  it('refuses bad paths, headers uWS writes, bad or long headers and long or missing bodies with VELOX_ERR_INVALID_OPTION', () => {
    const app = server();
    const invalid = expect.objectContaining({ code: ErrorCodes.INVALID_OPTION });
    for (const path of ['/users/:id', '/files/*', 'no-slash', '/a b', '/q?x=1']) {
      expect(() => app.constantRoute(path, { body: '' }), path).toThrow(invalid);
    }
    for (const name of ['Content-Length', 'date', 'Connection', 'Transfer-Encoding']) {
      expect(() => app.constantRoute('/h', { headers: [[name, '1']], body: '' }), name).toThrow(invalid);
    }
    expect(() => app.constantRoute('/h', { headers: [['Bad Name', 'v']], body: '' })).toThrow();
    expect(() => app.constantRoute('/h', { headers: [['X-Split', 'a\r\nInjected: 1']], body: '' })).toThrow();
    expect(() => app.constantRoute('/h', { headers: [['X-Long', 'v'.repeat(256)]], body: '' })).toThrow(invalid);
    expect(() => app.constantRoute('/h', { body: 'b'.repeat(65_536) })).toThrow(invalid);
    expect(() => app.constantRoute('/h', { body: 42 as unknown as string })).toThrow(invalid);
    expect(() => app.constantRoute('/h', null as never)).toThrow(invalid);
    // None of them took the path.
    expect(() => app.constantRoute('/h', { headers: [['X-Long', 'v'.repeat(255)]], body: 'b'.repeat(65_535) })).not.toThrow();
  });
});
