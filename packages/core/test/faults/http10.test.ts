// What uWS v20.51 does with HTTP/1.0 requests and with requests without a Host header: it answers
// them itself, at once, and closes the connection; no route runs. HTTP/1.0 (and any version other
// than HTTP/1.1, and a request line without one) gets `505 HTTP Version Not Supported`; an
// HTTP/1.1 request without Host gets `400 Bad Request`. Both answers are uWS's own small HTML page
// with `Connection: close`. (uWS v20.30 answered none of these and closed at its idle timeout,
// about 10 s later.) Velox cannot serve these requests; the core README says so ("HTTP/1.0 and
// the Host header") and tells proxies to speak HTTP/1.1 (nginx: `proxy_http_version 1.1;`).
// These tests pin the behaviour, so that a uWS upgrade that changes it shows up here.
import { parseResponses, raw } from '@velox/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '../../src/index.ts';

/** Each case asks for a path of its own, so a route that ran for it would show in `ran`. */
const REFUSED: Array<[name: string, status: number, request: (path: string) => string]> = [
  ['an HTTP/1.0 request without Host', 505, (p) => `GET ${p} HTTP/1.0\r\n\r\n`],
  ['an HTTP/1.0 request with Host', 505, (p) => `GET ${p} HTTP/1.0\r\nHost: x\r\n\r\n`],
  ['an HTTP/1.0 keep-alive request with Host', 505, (p) => `GET ${p} HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`],
  ['an HTTP/1.0 keep-alive request without Host', 505, (p) => `GET ${p} HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`],
  ['an HTTP/1.0 POST with a body', 505, (p) => `POST ${p} HTTP/1.0\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi`],
  ['a request line without a version (HTTP/0.9)', 505, (p) => `GET ${p}\r\n\r\n`],
  ['an HTTP/1.2 request', 505, (p) => `GET ${p} HTTP/1.2\r\nHost: x\r\n\r\n`],
  ['an HTTP/2.0 request line', 505, (p) => `GET ${p} HTTP/2.0\r\nHost: x\r\n\r\n`],
  ['an HTTP/1.1 request without Host', 400, (p) => `GET ${p} HTTP/1.1\r\n\r\n`],
  ['an HTTP/1.1 POST without Host', 400, (p) => `POST ${p} HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi`],
];

let app: Server;
let port: number;
const ran: string[] = [];

beforeAll(async () => {
  app = new Server({ logger: false });
  app.any('/*', (req, res) => {
    ran.push(`${req.method} ${req.path} host=${JSON.stringify(req.get('host') ?? null)}`);
    res.send('hi');
  });
  ({ port } = await app.listen(0, '127.0.0.1'));
});

afterAll(() => app.close({ timeout: 1000 }));

describe('HTTP/1.0 and the Host header (uWS v20.51)', () => {
  REFUSED.forEach(([name, status, request], i) => {
    it(`answers ${name} with uWS's own ${status} and Connection: close, at once; no route runs`, async () => {
      // quietMs bounds the wait: uWS v20.30 sent nothing and closed only at its ~10 s idle timeout.
      const { text, closed } = await raw(port, request(`/case-${i}`), { quietMs: 3000 });
      const [response, ...more] = parseResponses(text);
      expect(response?.status).toBe(status);
      expect(response?.headers.connection).toBe('close');
      expect(text).toContain('uWebSockets');
      expect(more).toEqual([]);
      expect(closed).toBe(true);
      expect(ran.filter((line) => line.includes(`/case-${i} `))).toEqual([]);
    });
  });

  it('answers only the first of two pipelined HTTP/1.0 requests (505), then closes', async () => {
    const one = 'GET /first HTTP/1.0\r\nHost: x\r\n\r\n';
    const { text, closed } = await raw(port, `${one}${one.replace('first', 'second')}`, { quietMs: 3000 });
    expect(parseResponses(text).map((r) => r.status)).toEqual([505]);
    expect(closed).toBe(true);
    expect(ran.filter((line) => line.includes('/first') || line.includes('/second'))).toEqual([]);
  });

  it('serves other clients', async () => {
    const r = await fetch(`http://127.0.0.1:${port}/other`);
    expect(await r.text()).toBe('hi');
    expect(ran).toContain(`GET /other host="127.0.0.1:${port}"`);
  });

  it('answers an HTTP/1.1 request with an empty Host header', async () => {
    const { text } = await raw(port, 'GET /empty-host HTTP/1.1\r\nHost:\r\n\r\n');
    expect(parseResponses(text).map((r) => [r.status, r.body])).toEqual([[200, 'hi']]);
    expect(ran).toContain('GET /empty-host host=""');
  });

  it('answers an HTTP/1.1 request with Host and Connection: close, then closes', async () => {
    const { text, closed } = await raw(port, 'GET /close HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { quietMs: 5000 });
    expect(parseResponses(text).map((r) => [r.status, r.body])).toEqual([[200, 'hi']]);
    expect(closed).toBe(true);
  });
});
