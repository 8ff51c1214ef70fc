// Request lines uWS v20.51 does not serve. Its parser takes only an origin-form target (starting
// with `/`); for anything else it answers `505 HTTP Version Not Supported` itself (its small HTML
// page, with Connection: close) and closes at once; no route runs, so Velox cannot answer with a
// status of its own. (uWS v20.30 sent nothing and closed at its idle timeout, about 10 s later.)
// What must still hold: the connection is closed at once, nothing is buffered without bound, and
// the server keeps answering everyone else.
import { connect } from 'node:net';
import { parseResponses, start } from '@velox/test-utils';
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
  it("answers a target that is not origin-form with uWS's own 505 and closes at once; no route runs", async () => {
    const app = server();
    const ran: string[] = [];
    app.get('/json', (req, res) => res.send('ok'));
    app.any('/*', (req, res) => {
      ran.push(req.url);
      res.send('wildcard');
    });
    const { url, port } = await start(app);
    for (const line of ['GET json HTTP/1.1', 'GET http://x/json HTTP/1.1', 'OPTIONS * HTTP/1.1']) {
      const { text, ms } = await untilClosed(port, `${line}\r\nHost: x\r\n\r\n`);
      const [response, ...more] = parseResponses(text);
      expect([line, response?.status, response?.headers.connection]).toEqual([line, 505, 'close']);
      expect(text).toContain('uWebSockets');
      expect(more).toEqual([]);
      // uWS v20.30 closed these only at its idle timeout, about 10 s later.
      expect(ms).toBeLessThan(5_000);
    }
    expect(ran).toEqual([]);
    expect(await (await fetch(`${url}/json`)).text()).toBe('ok');
  });

  it('answers 505 and closes as soon as the request line is read, without waiting for the headers to end', async () => {
    const app = server();
    app.get('/json', (req, res) => res.send('ok'));
    const { url, port } = await start(app);
    const { text, ms } = await untilClosed(port, 'GET json HTTP/1.1\r\nHost: x\r\n', true);
    expect(parseResponses(text).map((r) => [r.status, r.headers.connection])).toEqual([[505, 'close']]);
    expect(ms).toBeLessThan(5_000);
    expect(await (await fetch(`${url}/json`)).text()).toBe('ok');
  });
});
