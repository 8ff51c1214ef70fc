import { listen, rawConnection } from '@velox/test-utils';
import { rateLimit } from 'express-rate-limit';
import express4 from 'express4';
import { describe, expect, it, vi } from 'vitest';
import { listenNode, server } from './helpers.ts';

describe('express-rate-limit', () => {
  it('counts requests per client, sends the RateLimit headers, and answers 429 past the limit', async () => {
    const errors = vi.spyOn(console, 'error');
    const app = server();
    app.use(rateLimit({ windowMs: 60_000, limit: 2, standardHeaders: 'draft-8', legacyHeaders: true, message: { error: 'slow down' } }));
    app.get('/', (req, res) => res.send('ok'));
    const url = await listen(app);
    const first = await fetch(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toMatch(/^"2-in-1min"; q=2; w=60; pk=:[\w+/=]+:$/);
    expect(first.headers.get('ratelimit')).toMatch(/^"2-in-1min"; r=1; t=\d+$/);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await fetch(url)).status).toBe(200);
    const limited = await fetch(url);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toEqual({ error: 'slow down' });
    // Its start-up and per-request validations found nothing to complain about (req.ip, req.app).
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });

  it('keys clients by req.ip, which honours trustProxy', async () => {
    const app = server({ trustProxy: 'loopback' });
    app.use(rateLimit({ windowMs: 60_000, limit: 1, standardHeaders: false, legacyHeaders: false }));
    app.get('/', (req, res) => res.send(req.ip));
    const url = await listen(app);
    const a = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.1' } });
    const b = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.2' } });
    const again = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.1' } });
    expect([a.status, await a.text(), b.status, await b.text(), again.status]).toEqual([200, '203.0.113.1', 200, '203.0.113.2', 429]);
  });

  it('does not count failed requests with skipFailedRequests (it watches the response finish)', async () => {
    const app = server();
    app.use(rateLimit({ windowMs: 60_000, limit: 1, skipFailedRequests: true, standardHeaders: false, legacyHeaders: false }));
    app.get('/fail', (req, res) => res.status(500).send('failed'));
    app.get('/ok', (req, res) => res.send('ok'));
    const url = await listen(app);
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/fail`)).status).toBe(500);
    // The failures were taken back once they finished: the one allowed request is still there.
    await expect.poll(async () => (await fetch(`${url}/ok`)).status).toBe(200);
    expect((await fetch(`${url}/ok`)).status).toBe(429);
  });
});

/** The Date lines of every head in a raw stream of answers, one list per answer. */
function dateLines(text: string): string[][] {
  return [...text.matchAll(/HTTP\/1\.1 \d{3}[^\r]*\r\n([\s\S]*?)\r\n\r\n/g)].map((m) =>
    m[1]!.split('\r\n').filter((line) => /^date:/i.test(line)),
  );
}

/** The value of a `Date: …` line, checked to be an IMF-fixdate within a minute of now. */
function currentDate(line: string): string {
  const value = line.slice(line.indexOf(':') + 1).trim();
  expect(value).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  expect(Math.abs(Date.parse(value) - Date.now())).toBeLessThan(60_000);
  return value;
}

/** Sends `requests` (GETs, one connection) to `url` as raw bytes; resolves once `last` ends the stream. */
async function rawAnswers(url: string, paths: string[], last: string): Promise<string> {
  const client = await rawConnection(Number(new URL(url).port));
  try {
    await client.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
    return await client.until((t) => dateLines(t).length === paths.length && t.endsWith(last), 'every answer');
  } finally {
    client.socket.destroy();
  }
}

describe('express-rate-limit and the Date header', () => {
  const EPOCH = 'Thu, 01 Jan 1970 00:00:00 GMT';

  it('answers with exactly one Date line when its legacy headers set Date (200 and 429)', async () => {
    const app = server();
    app.use(rateLimit({ windowMs: 60_000, limit: 1, standardHeaders: 'draft-7', legacyHeaders: true, message: 'limited' }));
    app.get('/', (req, res) => res.send('ok'));
    const text = await rawAnswers(await listen(app), ['/', '/'], 'limited');
    // The middleware did set a Date (its X-RateLimit-Reset is reckoned from it)...
    expect(text).toContain('\r\nx-ratelimit-reset: ');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('HTTP/1.1 429 Too Many Requests\r\n');
    // ...and each answer still carries one Date line, uWS's.
    for (const dates of dateLines(text)) {
      expect(dates).toHaveLength(1);
      currentDate(dates[0]!);
    }
  });

  it('sends one Date line for a Date set through setHeader(), set() and writeHead(), as Node does', async () => {
    const routes = (app: { get(path: string, handler: (req: any, res: any) => void): unknown }) => {
      app.get('/set-header', (_req, res) => {
        res.setHeader('Date', EPOCH);
        res.end('a');
      });
      app.get('/set', (_req, res) => res.set('Date', EPOCH).send('b'));
      app.get('/write-head', (_req, res) => {
        res.writeHead(200, { Date: EPOCH, 'Content-Type': 'text/plain' });
        res.write('c');
        res.end('d');
      });
    };
    const app = server();
    routes(app as never);
    const node = express4();
    routes(node);
    const paths = ['/set-header', '/set', '/write-head'];
    const velox = dateLines(await rawAnswers(await listen(app), paths, '0\r\n\r\n'));
    const nodeDates = dateLines(await rawAnswers(await listenNode(node), paths, '0\r\n\r\n'));
    // One line each on both servers. Node sends the app's value; uWS writes its own Date on every
    // answer and has no switch for it, so Velox sends uWS's (the app's value is not written).
    expect(nodeDates.map((d) => d.length)).toEqual([1, 1, 1]);
    expect(nodeDates.map((d) => d[0]!.slice(6))).toEqual([EPOCH, EPOCH, EPOCH]);
    expect(velox.map((d) => d.length)).toEqual([1, 1, 1]);
    for (const dates of velox) expect(currentDate(dates[0]!)).not.toBe(EPOCH);
  });
});
