import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { cors } from '../src/index.ts';
import { APP, call, preflight, server } from './helpers.ts';

describe("app.use('/prefix', cors())", () => {
  async function prefixed(): Promise<string> {
    const app = server();
    app.use('/api', cors({ origin: APP, credentials: true }));
    app.get('/api/users', (req, res) => res.json([]));
    app.get('/api/boom', () => {
      throw new Error('boom');
    });
    app.get('/outside', (req, res) => res.send('outside'));
    return listen(app);
  }

  it('sets the headers on routes under the prefix only', async () => {
    const url = await prefixed();
    expect((await call(`${url}/api/users`, { origin: APP })).cors).toEqual({ 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true' });
    const out = await call(`${url}/outside`, { origin: APP });
    expect(out.cors).toEqual({});
    expect(out.vary).toBeNull();
  });

  it('answers a preflight under the prefix, for a route without OPTIONS and for a path with no route', async () => {
    const url = await prefixed();
    for (const path of ['/api/users', '/api/nothing']) {
      const r = await preflight(`${url}${path}`, APP, 'DELETE', 'authorization');
      expect(r.status, path).toBe(204);
      expect(r.cors['access-control-allow-headers'], path).toBe('authorization');
    }
    expect((await preflight(`${url}/outside`, APP)).status).toBe(404);
  });

  it("carries the headers on a path under the prefix with no route, a method with no route, and a thrown error", async () => {
    const url = await prefixed();
    for (const [method, path, status] of [
      ['GET', '/api/nothing', 404],
      ['DELETE', '/api/users', 404],
      ['GET', '/api/boom', 500],
    ] as const) {
      const r = await call(`${url}${path}`, { method, origin: APP });
      expect(r.status, path).toBe(status);
      expect(r.cors['access-control-allow-origin'], `${method} ${path}`).toBe(APP);
    }
  });
});

describe('cors() on one route', () => {
  it('sets the headers on that route only; app.options() with it answers the preflight', async () => {
    const app = server();
    const widget = cors({ origin: APP, maxAge: 60 });
    app.get('/widget', widget, (req, res) => res.json({ widget: true }));
    app.options('/widget', widget);
    app.get('/private', (req, res) => res.json({ private: true }));
    const url = await listen(app);
    const r = await call(`${url}/widget`, { origin: APP });
    expect(r.body).toBe('{"widget":true}');
    expect(r.cors).toEqual({ 'access-control-allow-origin': APP });
    expect((await call(`${url}/private`, { origin: APP })).cors).toEqual({});
    const pre = await preflight(`${url}/widget`, APP);
    expect(pre.status).toBe(204);
    expect(pre.cors['access-control-max-age']).toBe('60');
  });
});
