import { VeloxError } from '@velox/core';
import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { cors } from '../src/index.ts';
import { APP, call, corsApp, OTHER, routes, server } from './helpers.ts';

const options = { origin: APP, credentials: true, exposedHeaders: ['x-request-id'] };
const allowed = { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': 'x-request-id' };

describe('error answers carry the CORS headers (set before next(), which core keeps on its error path)', () => {
  it('a 404 for a path with no route', async () => {
    const url = await corsApp(options);
    const r = await call(`${url}/no/such/route`, { origin: APP });
    expect(r.status).toBe(404);
    expect(r.cors).toEqual(allowed);
    expect(r.vary).toBe('Origin');
  });

  it('a 404 for a method no route has', async () => {
    const url = await corsApp(options);
    const r = await call(`${url}/data`, { method: 'DELETE', origin: APP });
    expect(r.status).toBe(404);
    expect(r.cors).toEqual(allowed);
  });

  it('a 500 from a handler that throws, and one that rejects', async () => {
    const app = server();
    app.use(cors(options));
    routes(app);
    app.get('/reject', async () => {
      await Promise.resolve();
      throw new Error('later');
    });
    const url = await listen(app);
    for (const path of ['/boom', '/reject']) {
      const r = await call(`${url}${path}`, { origin: APP });
      expect(r.status, path).toBe(500);
      expect(r.cors, path).toEqual(allowed);
    }
  });

  it('a 413 for a body over maxBodyLength read with await req.text()', async () => {
    const url = await corsApp(options, { maxBodyLength: 16 });
    const ok = await call(`${url}/echo`, { method: 'POST', origin: APP, headers: { 'content-type': 'text/plain' }, body: 'small' });
    expect(ok.body).toBe('small');
    const r = await call(`${url}/echo`, { method: 'POST', origin: APP, headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(1000) });
    expect(r.status).toBe(413);
    expect(r.cors).toEqual(allowed);
    expect(JSON.parse(r.body).code).toBe('VELOX_ERR_BODY_TOO_LARGE');
  });

  it("an error a later middleware passes to next(err), through the server's error handler", async () => {
    const app = server();
    app.use(cors(options));
    app.use((req, res, next) => next(new VeloxError('APP_UNAUTHORIZED', 'log in first', { status: 401 })));
    routes(app);
    app.setErrorHandler((err, req, res) => res.status((err as VeloxError).status).json({ custom: true }));
    const url = await listen(app);
    const r = await call(`${url}/data`, { origin: APP });
    expect(r.status).toBe(401);
    expect(r.body).toBe('{"custom":true}');
    expect(r.cors).toEqual(allowed);
  });

  it('but not for a disallowed origin', async () => {
    const url = await corsApp(options);
    const r = await call(`${url}/boom`, { origin: OTHER });
    expect(r.status).toBe(500);
    expect(r.cors).toEqual({});
    expect(r.vary).toBe('Origin');
  });
});
