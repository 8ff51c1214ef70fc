import type { Middleware } from '@velox/core';
import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { type CorsOptions, cors } from '../src/index.ts';
import { APP, call, lines, OTHER, preflight, rawCall, routes, server } from './helpers.ts';

async function appWith(before: Middleware | undefined, options: CorsOptions, after?: Middleware): Promise<string> {
  const app = server();
  if (before) app.use(before);
  app.use(cors(options));
  if (after) app.use(after);
  routes(app);
  return listen(app);
}

describe('Vary', () => {
  it('says Origin on answers to allowed, disallowed and Origin-less requests when the answer depends on the origin', async () => {
    for (const options of [{ origin: APP }, { origin: [/\.example\.com$/] }, { origin: true }, { origin: '*', credentials: true }, { origin: () => true }] as CorsOptions[]) {
      const url = await appWith(undefined, options);
      for (const origin of [APP, 'https://nowhere.test', undefined]) {
        expect((await call(`${url}/data`, { origin })).vary, `${String(options.origin)} ${origin}`).toBe('Origin');
      }
    }
  });

  it("adds Origin to another middleware's Vary, once", async () => {
    const url = await appWith((req, res, next) => {
      res.vary('Accept-Encoding');
      next();
    }, { origin: APP });
    const r = await rawCall(url, `GET /data HTTP/1.1\r\nHost: x\r\nOrigin: ${APP}`);
    expect(lines(r.text, 'vary')).toEqual(['Accept-Encoding, Origin']);
  });

  it('does not repeat an Origin token set before it, in any case', async () => {
    const url = await appWith((req, res, next) => {
      res.set('vary', 'origin, Accept-Language');
      next();
    }, { origin: APP });
    const r = await rawCall(url, `OPTIONS /data HTTP/1.1\r\nHost: x\r\nOrigin: ${APP}\r\nAccess-Control-Request-Method: PUT`);
    expect(lines(r.text, 'vary')).toEqual(['origin, Accept-Language, Access-Control-Request-Headers']);
  });

  it("leaves a later middleware's res.vary('Origin') with one Origin", async () => {
    const url = await appWith(undefined, { origin: [APP, OTHER] }, (req, res, next) => {
      res.vary('Origin').vary('Accept-Encoding');
      next();
    });
    const r = await rawCall(url, `GET /data HTTP/1.1\r\nHost: x\r\nOrigin: ${OTHER}`);
    expect(lines(r.text, 'vary')).toEqual(['Origin, Accept-Encoding']);
  });

  it('sends one Vary line on a reflected preflight: Origin, Access-Control-Request-Headers', async () => {
    const url = await appWith(undefined, { origin: APP, credentials: true });
    const r = await rawCall(url, `OPTIONS /data HTTP/1.1\r\nHost: x\r\nOrigin: ${APP}\r\nAccess-Control-Request-Method: PUT\r\nAccess-Control-Request-Headers: x-a`);
    expect(lines(r.text, 'vary')).toEqual(['Origin, Access-Control-Request-Headers']);
    expect(lines(r.text, 'access-control-allow-origin')).toEqual([APP]);
  });

  it("is absent with a fixed '*' without credentials, but for a reflected preflight's request headers", async () => {
    const url = await appWith(undefined, {});
    expect((await call(`${url}/data`, { origin: APP })).vary).toBeNull();
    expect((await preflight(`${url}/data`, APP, 'PUT', 'x-a')).vary).toBe('Access-Control-Request-Headers');
  });
});
