// req.getCookie(name): the value req.cookies[name] has, parsing only the first Cookie line while
// it can. Each case compares it with req.cookies over the exact bytes a client sent.
import { raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import type { Server } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** Answers getCookie(name) read first (before anything else), then req.cookies[name]. */
function route(app: Server, name: string): void {
  app.get('/', (req, res) => {
    const fast = req.getCookie(name) ?? null;
    res.json({ fast, cookies: req.cookies?.[name] ?? null });
  });
}

async function ask(port: number, headerLines: string): Promise<{ fast: string | null; cookies: string | null }> {
  const { text } = await raw(port, `GET / HTTP/1.1\r\nHost: x\r\n${headerLines}\r\n`);
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

describe('req.getCookie()', () => {
  it('gives what req.cookies gives, wherever the cookie is and however it is written', async () => {
    const app = server();
    route(app, 'sid');
    const { port } = await start(app);
    const cases: Array<[string, string | null]> = [
      ['Cookie: sid=abc\r\n', 'abc'],
      ['Cookie: a=1; sid=abc; b=2\r\n', 'abc'],
      // The first of a repeated name wins, in one line and across lines.
      ['Cookie: sid=first; sid=second\r\n', 'first'],
      ['Cookie: sid=first\r\nCookie: sid=second\r\n', 'first'],
      // Only on a later line: found by reading every line, as req.cookies does.
      ['Cookie: a=1\r\nCookie: sid=later\r\n', 'later'],
      ['Cookie: \r\nCookie: sid=after-empty\r\n', 'after-empty'],
      // Quoted and percent-encoded values, spaces around the pair.
      ['Cookie: sid="quoted"\r\n', '"quoted"'],
      ['Cookie:   sid = %41%20B ;x=1\r\n', 'A B'],
      ['Cookie: sid=%ZZ\r\n', '%ZZ'],
      // Absent.
      ['Cookie: other=1\r\n', null],
      ['', null],
    ];
    for (const [lines, expected] of cases) {
      const answer = await ask(port, lines);
      expect({ lines, ...answer }).toEqual({ lines, fast: expected, cookies: expected });
    }
    // The same line twice (the second parse is remembered) gives the same value.
    expect(await ask(port, 'Cookie: a=1; sid=again\r\n')).toEqual({ fast: 'again', cookies: 'again' });
    expect(await ask(port, 'Cookie: a=1; sid=again\r\n')).toEqual({ fast: 'again', cookies: 'again' });
  });

  it('reads what a middleware assigned to req.cookies, and works after the handler went async', async () => {
    const app = server();
    app.get('/assigned', (req, res) => {
      req.cookies = { sid: 'from-middleware' };
      res.json({ fast: req.getCookie('sid') ?? null });
    });
    app.get('/async', async (req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      res.json({ fast: req.getCookie('sid') ?? null });
    });
    const { port } = await start(app);
    const assigned = await raw(port, 'GET /assigned HTTP/1.1\r\nHost: x\r\nCookie: sid=from-header\r\n\r\n');
    expect(JSON.parse(assigned.text.slice(assigned.text.indexOf('\r\n\r\n') + 4))).toEqual({ fast: 'from-middleware' });
    const later = await raw(port, 'GET /async HTTP/1.1\r\nHost: x\r\nCookie: a=1\r\nCookie: sid=kept\r\n\r\n');
    expect(JSON.parse(later.text.slice(later.text.indexOf('\r\n\r\n') + 4))).toEqual({ fast: 'kept' });
  });

  it('gives undefined with parseCookies: false unless a middleware assigned req.cookies', async () => {
    const app = server({ parseCookies: false });
    route(app, 'sid');
    const { port } = await start(app);
    expect(await ask(port, 'Cookie: sid=abc\r\n')).toEqual({ fast: null, cookies: null });
  });
});
