/**
 * The comparison harness, in the style of ultimate-express's tests: the same app is built once
 * with real express@4 (on Node's http) and once with `@velox/express` (on a Velox server), or
 * with express@5 and `@velox/express/5` (`{ major: 5 }`), the
 * same requests go to both over real sockets (fetch, or raw bytes with `net`), and the answers
 * (status, headers, body) must be identical. Headers that only say which server answered (Date,
 * Connection, Keep-Alive, uWS's own `uWebSockets`) are left out of the comparison.
 */
import type { AddressInfo } from 'node:net';
import { later, raw } from '@velox/test-utils';
import express5 from 'express';
import express4 from 'express4';
import { expect } from 'vitest';
import velox5 from '../../src/five.ts';
import velox from '../../src/index.ts';

/** Either `express` module: the harness calls `build` with each. */
export type AnyExpress = any;

/** One request to send to both apps. */
export interface Probe {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** What an app answered, as compared. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers that tell the servers apart, never compared. */
const IGNORED = new Set(['date', 'uwebsockets', 'transfer-encoding']);

/** The two apps, listening. */
export interface Pair {
  express: string;
  velox: string;
  /** Sends one request to both; resolves with [express's answer, velox's answer]. */
  ask(probe: Probe | string): Promise<[Answer, Answer]>;
  /** Sends a request to both and expects identical answers; resolves with Express's. */
  same(probe: Probe | string, options?: { ignore?: string[] }): Promise<Answer>;
  /** Sends raw bytes to both; resolves with the two texts, Date lines and server-only headers removed. */
  raw(bytes: string): Promise<[string, string]>;
}

async function answer(base: string, probe: Probe): Promise<Answer> {
  const res = await fetch(base + probe.path, {
    method: probe.method ?? 'GET',
    headers: probe.headers,
    body: probe.body,
    redirect: 'manual',
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of res.headers) if (!IGNORED.has(name)) headers[name] = value;
  const setCookies = res.headers.getSetCookie();
  if (setCookies.length > 0) headers['set-cookie'] = setCookies.map((c) => c.replace(/Expires=[^;]+/, 'Expires=…')).join('\n');
  return { status: res.status, headers, body: await res.text() };
}

/** Listens on 127.0.0.1 port 0 as Node's http does, closed after the test; resolves the base URL. */
export function listenExpress(app: any): Promise<string> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    later(
      () =>
        new Promise<void>((done) => {
          server.closeAllConnections?.();
          server.close(() => done());
        }),
    );
  });
}

function cleanRaw(text: string): string {
  return text
    .split('\r\n')
    .filter((line) => !/^(date|uwebsockets):/i.test(line))
    .join('\r\n');
}

/**
 * Builds the app with both modules, listens on 127.0.0.1 port 0 (closed after the test).
 * @example
 * ```ts
 * const pair = await both((express) => { const app = express(); app.get('/', (req, res) => res.send('hi')); return app; });
 * await pair.same('/');
 * ```
 */
export async function both(build: (express: AnyExpress) => any, options: { major?: 4 | 5 } = {}): Promise<Pair> {
  const five = options.major === 5;
  const veloxApp = build(five ? velox5 : velox);
  // Constant routes (answered by uWS, see src/app/constant.ts) leave out ETag, Connection and
  // Keep-Alive on purpose; test/app/constant-routes.test.ts holds them to Express's other headers.
  veloxApp.set('velox constant routes', false);
  const [expressBase, veloxBase] = await Promise.all([listenExpress(build(five ? express5 : express4)), listenExpress(veloxApp)]);
  const pair: Pair = {
    express: expressBase,
    velox: veloxBase,
    async ask(probe) {
      const p = typeof probe === 'string' ? { path: probe } : probe;
      return [await answer(expressBase, p), await answer(veloxBase, p)];
    },
    async same(probe, options = {}) {
      const [theirs, ours] = await pair.ask(probe);
      for (const name of options.ignore ?? []) {
        delete theirs.headers[name];
        delete ours.headers[name];
      }
      expect(ours, `${typeof probe === 'string' ? probe : `${probe.method ?? 'GET'} ${probe.path}`}`).toEqual(theirs);
      return theirs;
    },
    async raw(bytes) {
      const [a, b] = await Promise.all([raw(expressBase, bytes, { quietMs: 150 }), raw(veloxBase, bytes, { quietMs: 150 })]);
      return [cleanRaw(a.text), cleanRaw(b.text)];
    },
  };
  return pair;
}

/**
 * Builds both apps and expects the same answers to every probe.
 * @example
 * ```ts
 * await compare((express) => app, ['/', { method: 'POST', path: '/x', body: 'a' }]);
 * await compare((express) => app, ['/'], { major: 5 }); // express@5 against @velox/express/5
 * ```
 */
export async function compare(build: (express: AnyExpress) => any, probes: Array<Probe | string>, options: { major?: 4 | 5 } = {}): Promise<Answer[]> {
  const pair = await both(build, options);
  const answers: Answer[] = [];
  for (const probe of probes) answers.push(await pair.same(probe));
  return answers;
}
