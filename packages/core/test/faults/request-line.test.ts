// Request lines and heads uWS v20.51 refuses itself. Its parser takes only an origin-form target
// (starting with `/`) and HTTP/1.1; it answers anything else 505, a malformed header line or a
// Content-Length that is not plain digits 400, and a head past its size limit 431, each with
// Connection: close, then closes at once. Velox does not get to answer (only a bad
// Content-Length reaches a route first), so these tests pin what the client gets, that the
// connection is closed at once, that nothing is buffered without bound, and that the server
// keeps answering everyone else. The exception, a CR alone in a header value, is never answered
// and waits for uWS's idle timeout (about 10 s): this file is apart from the others for it.
import { connect } from 'node:net';
import { start, until } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from '../helpers.ts';
import { UWS_400, UWS_431, UWS_505 } from '../uws-answers.ts';

/** Opens a connection, writes `first`, and resolves with what came back once the server closed it. */
function untilClosed(port: number, first: string, flood = false): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const began = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: Date.now() - began });
    });
    socket.on('connect', () => {
      socket.write(first);
      // Keeps adding header bytes: uWS must give up at its header limit, not buffer them all.
      if (flood) timer = setInterval(() => socket.writable && socket.write(`x-pad: ${'p'.repeat(4000)}\r\n`), 2);
    });
  });
}

describe('request lines and heads uWS refuses', () => {
  it('answers 505 and closes at once, runs no route, and keeps serving other clients', async () => {
    const app = server();
    const ran: string[] = [];
    app.get('/json', (req, res) => res.send('ok'));
    app.any('/*', (req, res) => {
      ran.push(`${req.method} ${req.url}`);
      res.send('wildcard');
    });
    const { url, port } = await start(app);
    const lines = ['GET json HTTP/1.1', 'GET http://x/json HTTP/1.1', 'OPTIONS * HTTP/1.1'];
    const results = await Promise.all(lines.map((line) => untilClosed(port, `${line}\r\nHost: x\r\n\r\n`)));
    for (const { text, ms } of results) {
      expect(text).toBe(UWS_505);
      expect(ms).toBeLessThan(5_000);
    }
    expect(ran).toEqual([]);
    expect(await (await fetch(`${url}/json`)).text()).toBe('ok');
  });

  it('answers 400 and closes at once on a Content-Length uWS cannot read (the route has run)', async () => {
    const app = server();
    const responses: Array<{ aborted: boolean; finished: boolean }> = [];
    let settled = 0;
    app.post('/json', async (req, res) => {
      responses.push(res);
      try {
        res.send(await req.text());
      } catch {
        // The read fails as an abort.
      }
      settled++;
    });
    const { url, port } = await start(app);
    // uWS reads up to 18 decimal digits (leading zeros included: see request.test.ts); a sign,
    // hex, an exponent or a 19th digit it answers 400 itself. It has called the route by then:
    // each response ends as aborted, the body read failing.
    const lengths = ['+5', '0x5', '5e0', '-5', '1234567890123456789'];
    for (const length of lengths) {
      const { text, ms } = await untilClosed(port, `POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\nhello`);
      expect(text).toBe(UWS_400);
      expect(ms).toBeLessThan(5_000);
    }
    await until(() => settled === lengths.length, 'every handler to settle');
    expect(responses.map((res) => [res.aborted, res.finished])).toEqual(lengths.map(() => [true, false]));
    expect(await (await fetch(`${url}/json`, { method: 'POST', body: 'hello' })).text()).toBe('hello');
  });

  it('answers 431 and closes as soon as a head that never ends passes the header size limit', async () => {
    const app = server();
    app.get('/json', (req, res) => res.send('ok'));
    const { url, port } = await start(app);
    const { text, ms } = await untilClosed(port, 'GET /json HTTP/1.1\r\nHost: x\r\n', true);
    expect(text).toBe(UWS_431);
    expect(ms).toBeLessThan(5_000);
    expect(await (await fetch(`${url}/json`)).text()).toBe('ok');
  });

  it('answers 400 and closes at once on a malformed header line, before any route runs', async () => {
    const app = server();
    let ran = 0;
    app.get('/json', (req, res) => {
      ran++;
      res.send('ok');
    });
    const { url, port } = await start(app);
    const lines = {
      'a space before the colon': 'X-A : v',
      'a space in the name': 'X A: v',
      'a character outside a token in the name': 'X(A: v',
      'no colon': 'X-A',
      'a folded line': 'X-A: a\r\n b',
      'a NUL in the value': 'X-A: a\0b',
      'a bare LF in the value': 'X-A: a\nb',
      'another control character in the value': 'X-A: a\x01b',
      'a second Host line': 'Host: y',
    };
    const results = await Promise.all(Object.values(lines).map((line) => untilClosed(port, `GET /json HTTP/1.1\r\nHost: x\r\n${line}\r\n\r\n`)));
    expect(Object.fromEntries(Object.keys(lines).map((name, i) => [name, results[i]!.text]))).toEqual(
      Object.fromEntries(Object.keys(lines).map((name) => [name, UWS_400])),
    );
    for (const { ms } of results) expect(ms).toBeLessThan(5_000);
    expect(ran).toBe(0);
    expect(await (await fetch(`${url}/json`)).text()).toBe('ok');
  });

  it('never answers a head with a CR alone in a header value, runs no route, and closes it at uWS\'s idle timeout', { timeout: 30_000 }, async () => {
    const app = server();
    let ran = 0;
    app.get('/json', (req, res) => {
      ran++;
      res.send('ok');
    });
    const { url, port } = await start(app);
    const pending = untilClosed(port, 'GET /json HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n');
    // While it waits, everyone else is served.
    expect(await (await fetch(`${url}/json`)).text()).toBe('ok');
    const { text, ms } = await pending;
    expect(text).toBe('');
    expect(ms).toBeLessThan(25_000);
    expect(ran).toBe(1);
  });
});
