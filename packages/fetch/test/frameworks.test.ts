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
