import { get } from '@velox/test-utils';
import { Elysia } from 'elysia';
import { H3, getQuery, getRouterParam, readBody } from 'h3';
import { AutoRouter } from 'itty-router';
import { describe, expect, it } from 'vitest';
import type { FetchFunction } from '../src/index.ts';
import { served } from './helpers.ts';

/** The three scenarios of the benchmark, answered the same way by every framework. */
async function scenarios(fetch: FetchFunction) {
  const { url } = await served(fetch);
  const ping = await get(`${url}/`);
  expect([ping.status, ping.text]).toEqual([200, 'Hi']);
  const query = await get(`${url}/id/42?name=ann`);
  expect(query.status).toBe(200);
  expect(query.json()).toEqual({ id: '42', name: 'ann' });
  expect(query.headers.get('x-powered')).toBe('velox');
  const body = await get(`${url}/json`, { method: 'POST', body: JSON.stringify({ n: [1, 2, 3] }), headers: { 'content-type': 'application/json' } });
  expect(body.status).toBe(200);
  expect(body.json()).toEqual({ n: [1, 2, 3] });
  expect((await get(`${url}/missing`)).status).toBe(404);
}

describe('frameworks on serve()', () => {
  it('runs H3 v2 (app.fetch)', async () => {
    const app = new H3()
      .get('/', () => 'Hi')
      .get('/id/:id', (event) => {
        event.res.headers.set('x-powered', 'velox');
        return { id: getRouterParam(event, 'id'), name: getQuery(event).name };
      })
      .post('/json', (event) => readBody(event));
    await scenarios((request) => app.fetch(request));
  });

  it('runs itty-router (AutoRouter, router.fetch)', async () => {
    const router = AutoRouter();
    router
      .get('/', () => new Response('Hi'))
      .get('/id/:id', ({ params, query }) => Response.json({ id: params.id, name: query.name }, { headers: { 'x-powered': 'velox' } }))
      .post('/json', async (request) => Response.json(await request.json()));
    await scenarios((request) => router.fetch(request));
  });

  it('runs Elysia (app.fetch)', async () => {
    const app = new Elysia()
      .get('/', () => 'Hi')
      .get('/id/:id', ({ params, query, set }) => {
        set.headers['x-powered'] = 'velox';
        return { id: params.id, name: query.name };
      })
      .post('/json', ({ body }) => body);
    await scenarios((request) => app.fetch(request));
  });
});

describe('H3 answers beyond the scenarios', () => {
  it('writes srvx responses from their parts: Set-Cookie apart, streams, bytes, HEAD without a body', async () => {
    const app = new H3()
      .get('/cookies', (event) => {
        event.res.headers.append('set-cookie', 'a=1');
        event.res.headers.append('set-cookie', 'b=2');
        return 'with cookies';
      })
      .get('/stream', () => new Blob(['streamed by h3']).stream())
      .get('/bytes', () => new Uint8Array([104, 51]));
    const { url, port } = await served((request) => app.fetch(request));
    const { raw } = await import('@velox/test-utils');
    const { text } = await raw(port, 'GET /cookies HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text.match(/^set-cookie: .*$/gim)).toEqual(['set-cookie: a=1', 'set-cookie: b=2']);
    expect(text.endsWith('with cookies')).toBe(true);
    expect((await get(`${url}/stream`)).text).toBe('streamed by h3');
    expect((await get(`${url}/bytes`)).text).toBe('h3');
    const head = await raw(port, 'HEAD /cookies HTTP/1.1\r\nHost: x\r\n\r\n', { quietMs: 150 });
    // H3 drops the body of a HEAD answer itself; what goes out is a head and nothing after it.
    expect(head.text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(head.text.endsWith('\r\n\r\n')).toBe(true);
  });
});
