import { get } from '@velox/test-utils';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { served } from './helpers.ts';

describe('serve() with Hono', () => {
  it('answers text, params, query and a custom header', async () => {
    const hono = new Hono()
      .get('/', (c) => c.text('Hi'))
      .get('/id/:id', (c) => {
        c.header('x-powered', 'velox');
        return c.json({ id: c.req.param('id'), name: c.req.query('name') });
      });
    const { url } = await served(hono.fetch);
    const ping = await get(`${url}/`);
    expect(ping.status).toBe(200);
    expect(ping.text).toBe('Hi');
    expect(ping.headers.get('content-type')).toMatch(/^text\/plain; ?charset=UTF-8$/);
    expect(ping.headers.get('content-length')).toBe('2');
    const query = await get(`${url}/id/7?name=x`);
    expect(query.json()).toEqual({ id: '7', name: 'x' });
    expect(query.headers.get('x-powered')).toBe('velox');
  });

  it('echoes a JSON body', async () => {
    const hono = new Hono().post('/json', async (c) => c.json(await c.req.json()));
    const { url } = await served(hono.fetch);
    const r = await get(`${url}/json`, { method: 'POST', body: JSON.stringify({ a: [1, 2], b: 'é' }), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ a: [1, 2], b: 'é' });
  });

  it('answers 404 through the app', async () => {
    const { url } = await served(new Hono().get('/', (c) => c.text('Hi')).fetch);
    const r = await get(`${url}/nope`);
    expect(r.status).toBe(404);
    expect(r.text).toBe('404 Not Found');
  });
});
