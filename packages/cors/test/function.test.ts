import type { Request } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { CorsErrorCodes, type OriginFunction } from '../src/index.ts';
import { APP, call, corsApp, EVIL, OTHER, preflight } from './helpers.ts';

describe('origin: a function (origin, req) => …', () => {
  it('gets the origin and the request, and decides with a boolean', async () => {
    const seen: Array<[string, string]> = [];
    const url = await corsApp({
      origin: (origin, req) => {
        seen.push([origin, req.path]);
        return origin === APP;
      },
      credentials: true,
    });
    expect((await call(`${url}/data`, { origin: APP })).cors).toEqual({ 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true' });
    const refused = await call(`${url}/data`, { origin: OTHER });
    expect(refused.cors).toEqual({});
    expect(refused.vary).toBe('Origin');
    expect(seen).toEqual([
      [APP, '/data'],
      [OTHER, '/data'],
    ]);
  });

  it('may be async, and may resolve to a string, a RegExp or an array, applied to the origin', async () => {
    const byPath: Record<string, unknown> = { '/data': [APP, /^https:\/\/[a-z]+\.other\.example$/] };
    const url = await corsApp({
      origin: async (origin, req) => {
        await new Promise((r) => setTimeout(r, 5));
        return (byPath[req.path] as never) ?? OTHER;
      },
    });
    expect((await call(`${url}/data`, { origin: APP })).cors['access-control-allow-origin']).toBe(APP);
    expect((await call(`${url}/data`, { origin: 'https://eu.other.example' })).cors['access-control-allow-origin']).toBe('https://eu.other.example');
    expect((await call(`${url}/data`, { origin: OTHER })).cors).toEqual({});
    expect((await call(`${url}/nope`, { origin: OTHER })).cors['access-control-allow-origin']).toBe(OTHER);
    expect((await call(`${url}/nope`, { origin: APP })).cors).toEqual({});
  });

  it("resolving to '*' sends * without credentials and reflects with them; null and undefined refuse", async () => {
    const star = await corsApp({ origin: async () => '*' });
    const s = await call(`${star}/data`, { origin: APP });
    expect(s.cors).toEqual({ 'access-control-allow-origin': '*' });
    expect(s.vary).toBe('Origin');
    const creds = await corsApp({ origin: () => '*', credentials: true });
    expect((await call(`${creds}/data`, { origin: APP })).cors['access-control-allow-origin']).toBe(APP);
    for (const value of [null, undefined]) {
      const url = await corsApp({ origin: () => value });
      expect((await call(`${url}/data`, { origin: APP })).cors).toEqual({});
    }
  });

  it('answers a preflight once an async function has decided', async () => {
    const url = await corsApp({ origin: async (origin) => origin === APP, maxAge: 30 });
    const r = await preflight(`${url}/data`, APP, 'PATCH', 'x-a');
    expect(r.status).toBe(204);
    expect(r.cors).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE',
      'access-control-allow-headers': 'x-a',
      'access-control-max-age': '30',
    });
    const refused = await preflight(`${url}/data`, OTHER);
    expect(refused.status).toBe(404);
    expect(refused.cors).toEqual({});
  });

  it('is not called for a request without Origin', async () => {
    let calls = 0;
    const url = await corsApp({
      origin: () => {
        calls++;
        return true;
      },
    });
    const r = await call(`${url}/data`);
    expect(r.status).toBe(200);
    expect(r.cors).toEqual({});
    expect(calls).toBe(0);
    await call(`${url}/data`, { origin: APP });
    expect(calls).toBe(1);
  });

  it('that throws sends the request down the error path (500), and the server keeps serving', async () => {
    const url = await corsApp({
      origin: (origin) => {
        if (origin === EVIL) throw new Error('tenant lookup failed');
        return true;
      },
    });
    const r = await call(`${url}/data`, { origin: EVIL });
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body)).toMatchObject({ statusCode: 500 });
    expect(r.cors).toEqual({});
    expect((await call(`${url}/data`, { origin: APP })).status).toBe(200);
  });

  it('that rejects sends the request down the error path (500), and the server keeps serving', async () => {
    const origin: OriginFunction = async (o) => {
      await Promise.resolve();
      if (o === EVIL) throw new Error('database down');
      return true;
    };
    const url = await corsApp({ origin });
    expect((await call(`${url}/data`, { origin: EVIL })).status).toBe(500);
    expect((await preflight(`${url}/data`, EVIL)).status).toBe(500);
    const ok = await call(`${url}/data`, { origin: APP });
    expect(ok.status).toBe(200);
    expect(ok.cors['access-control-allow-origin']).toBe(APP);
  });

  it('that returns something else answers 500 VELOX_ERR_CORS_BAD_ORIGIN_RESULT', async () => {
    for (const value of [42, { origin: APP }, [APP, 7]]) {
      const url = await corsApp({ origin: (() => value) as unknown as OriginFunction }, { exposeErrors: true });
      const r = await call(`${url}/data`, { origin: APP });
      expect(r.status).toBe(500);
      expect(JSON.parse(r.body).code).toBe(CorsErrorCodes.BAD_ORIGIN_RESULT);
    }
  });

  it('sees the request it decides for (a function typed for any route)', async () => {
    const fn = (origin: string, req: Request<unknown, unknown>) => req.get('x-tenant') === 'acme' && origin.endsWith('.acme.example');
    const url = await corsApp({ origin: fn });
    expect((await call(`${url}/data`, { origin: 'https://app.acme.example', headers: { 'x-tenant': 'acme' } })).cors['access-control-allow-origin']).toBe('https://app.acme.example');
    expect((await call(`${url}/data`, { origin: 'https://app.acme.example', headers: { 'x-tenant': 'other' } })).cors).toEqual({});
  });
});
