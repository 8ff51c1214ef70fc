// Request lines uWS 20.30 cannot parse. Its parser takes only an origin-form target (starting
// with `/`); anything else never reaches JS, so Velox cannot answer it with a status. What it
// must still guarantee: the connection is closed (uWS's idle timeout, about 10 s), nothing is
// buffered without bound, and the server keeps answering everyone else meanwhile. This file is
// apart from the others because the first test waits for that timeout.
import { connect } from 'node:net';
import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

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

describe('request lines uWS cannot parse', () => {
  it('closes the connection without an answer and keeps serving other clients', { timeout: 30_000 }, async () => {
    const app = server();
    app.get('/json', (req, res) => res.send('ok'));
    app.get('/*', (req, res) => res.send('wildcard'));
    const { url, port } = await start(app);
    const lines = ['GET json HTTP/1.1', 'GET http://x/json HTTP/1.1', 'OPTIONS * HTTP/1.1'];
    const pending = lines.map((line) => untilClosed(port, `${line}\r\nHost: x\r\n\r\n`));
    // While those wait, everyone else is served.
    const r = await fetch(`${url}/json`);
    expect(await r.text()).toBe('ok');
    const results = await Promise.all(pending);
    for (const { text, ms } of results) {
      expect(text).toBe('');
      expect(ms).toBeLessThan(25_000);
    }
    expect(await (await fetch(`${url}/json`)).text()).toBe('ok');
  });

  it('closes the connection at once on a Content-Length uWS cannot read', async () => {
    const app = server();
    const responses: Array<{ aborted: boolean; finished: boolean }> = [];
    let settled = 0;
    app.post('/json', async (req, res) => {
      responses.push(res);
      try {
        res.send(await req.text());
      } catch {
        // The read fails as an abort, or as too large for a length past the limit.
      }
      settled++;
    });
    const { url, port } = await start(app);
    // uWS takes only up to 9 decimal digits; a sign, hex, an exponent or more digits end the
    // connection. uWS has called the route by then: each response ends as aborted, or as
    // finished when the handler answered before uWS dropped the connection (the answer is lost).
    const lengths = ['+5', '0x5', '5e0', '-5', '1234567890', '0000000005'];
    for (const length of lengths) {
      const { text, ms } = await untilClosed(port, `POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\nhello`);
      expect(text).toBe('');
      expect(ms).toBeLessThan(5_000);
    }
    expect(settled).toBe(lengths.length);
    expect(responses.map((res) => res.aborted || res.finished)).toEqual(lengths.map(() => true));
    expect(await (await fetch(`${url}/json`, { method: 'POST', body: 'hello' })).text()).toBe('hello');
  });

  it('closes such a connection as soon as its headers pass the 16 KB limit', async () => {
    const app = server();
    app.get('/json', (req, res) => res.send('ok'));
    const { url, port } = await start(app);
    const { text, ms } = await untilClosed(port, 'GET json HTTP/1.1\r\nHost: x\r\n', true);
    expect(text).toBe('');
    expect(ms).toBeLessThan(5_000);
    expect(await (await fetch(`${url}/json`)).text()).toBe('ok');
  });
});
