// What uWS 20.30 does with HTTP/1.0 requests and with requests without a Host header: it never
// hands them to JavaScript, sends nothing, and closes the connection at its idle timeout (about
// 10 to 12 s). Velox cannot answer them; the core README says so ("HTTP/1.0 and the Host
// header") and tells proxies to speak HTTP/1.1 (nginx: `proxy_http_version 1.1;`). These tests
// pin that behaviour, so that a uWS upgrade that changes it shows up here.
//
// Every case waits for the idle timeout, so all of them are sent at once, before the tests, and
// each test then checks its own case's outcome.
import { parseResponses, raw } from '@velox/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '../src/index.ts';

/** Each case asks for a path of its own, so a route that ran for it would show in `ran`. */
const UNANSWERED: Array<[name: string, request: (path: string) => string]> = [
  ['an HTTP/1.0 request without Host', (p) => `GET ${p} HTTP/1.0\r\n\r\n`],
  ['an HTTP/1.0 request with Host', (p) => `GET ${p} HTTP/1.0\r\nHost: x\r\n\r\n`],
  ['an HTTP/1.0 keep-alive request with Host', (p) => `GET ${p} HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`],
  ['an HTTP/1.0 keep-alive request without Host', (p) => `GET ${p} HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`],
  ['an HTTP/1.0 POST with a body', (p) => `POST ${p} HTTP/1.0\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi`],
  ['an HTTP/1.1 request without Host', (p) => `GET ${p} HTTP/1.1\r\n\r\n`],
  ['an HTTP/1.1 POST without Host', (p) => `POST ${p} HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi`],
  ['a request line without a version (HTTP/0.9)', (p) => `GET ${p}\r\n\r\n`],
];

let app: Server;
let port: number;
const ran: string[] = [];
const outcomes = new Map<string, Promise<{ text: string; closed: boolean }>>();

beforeAll(async () => {
  app = new Server({ logger: false });
  app.any('/*', (req, res) => {
    ran.push(`${req.method} ${req.path} host=${JSON.stringify(req.get('host') ?? null)}`);
    res.send('hi');
  });
  ({ port } = await app.listen(0, '127.0.0.1'));
  // Waits for the server to close each connection (uWS's idle timeout), up to 30 s.
  UNANSWERED.forEach(([name, request], i) => {
    outcomes.set(name, raw(port, request(`/case-${i}`), { quietMs: 30_000 }));
  });
});

afterAll(() => app.close({ timeout: 1000 }));

describe('HTTP/1.0 and the Host header (uWS 20.30)', () => {
  UNANSWERED.forEach(([name], i) => {
    it(`closes ${name} without an answer, at uWS's idle timeout; no route runs`, { timeout: 40_000 }, async () => {
      const { text, closed } = await outcomes.get(name)!;
      expect(text).toBe('');
      expect(closed).toBe(true);
      expect(ran.filter((line) => line.includes(`/case-${i} `))).toEqual([]);
    });
  });

  it('serves other clients while those connections wait', async () => {
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
