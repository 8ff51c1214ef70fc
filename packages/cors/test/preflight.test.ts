import { listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { cors } from '../src/index.ts';
import { APP, call, corsApp, lines, OTHER, preflight, rawCall, routes, server } from './helpers.ts';

describe('a preflight (OPTIONS with Origin and Access-Control-Request-Method)', () => {
  it('answers 204 with no body where no OPTIONS route exists, with the default methods', async () => {
    const url = await corsApp({ origin: APP });
    const r = await preflight(`${url}/data`, APP);
    expect(r.status).toBe(204);
    expect(r.body).toBe('');
    expect(r.cors).toEqual({ 'access-control-allow-origin': APP, 'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE' });
    expect(r.vary).toBe('Origin, Access-Control-Request-Headers');
  });

  it('answers a path with no route at all, and a method no route has', async () => {
    const url = await corsApp();
    expect((await preflight(`${url}/nothing/here`, APP, 'DELETE')).status).toBe(204);
    expect((await preflight(`${url}/data`, APP, 'DELETE')).cors['access-control-allow-origin']).toBe('*');
  });

  it('sends no body and no Content-Length on the 204 (exact bytes)', async () => {
    const url = await corsApp({ origin: APP });
    const r = await rawCall(url, `OPTIONS /data HTTP/1.1\r\nHost: x\r\nOrigin: ${APP}\r\nAccess-Control-Request-Method: PUT`);
    expect(r.text.startsWith('HTTP/1.1 204 ')).toBe(true);
    expect(lines(r.text, 'content-length')).toEqual([]);
    expect(r.text.endsWith('\r\n\r\n')).toBe(true);
  });

  it('answers with optionsSuccessStatus, Content-Length: 0 and an empty body when that is not 204', async () => {
    const url = await corsApp({ origin: APP, optionsSuccessStatus: 200 });
    const r = await rawCall(url, `OPTIONS /data HTTP/1.1\r\nHost: x\r\nOrigin: ${APP}\r\nAccess-Control-Request-Method: PUT`);
    expect(r.status).toBe(200);
    expect(lines(r.text, 'content-length')).toEqual(['0']);
    expect(r.body).toBe('');
    expect(r.headers['access-control-allow-origin']).toBe(APP);
  });

  it("answers it itself even where the app has an OPTIONS route (which doesn't run)", async () => {
    const url = await corsApp({ origin: APP });
    const r = await preflight(`${url}/own-options`, APP);
    expect(r.status).toBe(204);
    expect(r.body).toBe('');
    expect(r.headers.get('allow')).toBeNull();
  });

  it('reflects Access-Control-Request-Headers when allowedHeaders is not given, and varies on it', async () => {
    const url = await corsApp({ origin: APP });
    const r = await preflight(`${url}/data`, APP, 'POST', 'content-type,x-requested-with');
    expect(r.cors['access-control-allow-headers']).toBe('content-type,x-requested-with');
    expect(r.vary).toBe('Origin, Access-Control-Request-Headers');
  });

  it('varies on Access-Control-Request-Headers even when the preflight asked for none (another one may)', async () => {
    const url = await corsApp();
    const r = await preflight(`${url}/data`, APP, 'PUT');
    expect(r.cors['access-control-allow-headers']).toBeUndefined();
    expect(r.vary).toBe('Access-Control-Request-Headers');
  });

  it('sends the configured allowedHeaders instead of reflecting, with no Vary on the request headers', async () => {
    const url = await corsApp({ origin: APP, allowedHeaders: ['Content-Type', 'Authorization'] });
    const r = await preflight(`${url}/data`, APP, 'POST', 'x-other');
    expect(r.cors['access-control-allow-headers']).toBe('Content-Type,Authorization');
    expect(r.vary).toBe('Origin');
  });

  it("takes the cors package's alias headers, and an empty list allows none", async () => {
    const alias = await corsApp({ headers: 'content-type, x-a' });
    expect((await preflight(`${alias}/data`, APP, 'POST', 'x-b')).cors['access-control-allow-headers']).toBe('content-type,x-a');
    const none = await corsApp({ allowedHeaders: [] });
    const r = await preflight(`${none}/data`, APP, 'POST', 'x-b');
    expect(r.cors).toEqual({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE' });
    expect(r.vary).toBeNull();
  });

  it('sends methods, credentials, maxAge and cacheControl as configured', async () => {
    const url = await corsApp({ origin: APP, methods: ['GET', 'POST'], credentials: true, maxAge: 600, cacheControl: 600, exposedHeaders: 'x-total' });
    const r = await preflight(`${url}/data`, APP, 'POST');
    expect(r.cors).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET,POST',
      'access-control-max-age': '600',
    });
    expect(r.headers.get('cache-control')).toBe('max-age=600');
    const zero = await corsApp({ maxAge: 0, cacheControl: 'public, max-age=60', methods: 'GET, PUT' });
    const z = await preflight(`${zero}/data`, APP);
    expect(z.cors['access-control-max-age']).toBe('0');
    expect(z.cors['access-control-allow-methods']).toBe('GET,PUT');
    expect(z.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('passes on to the route with its headers set when preflightContinue is true', async () => {
    const url = await corsApp({ origin: APP, preflightContinue: true, maxAge: 60, cacheControl: 60 });
    const r = await preflight(`${url}/own-options`, APP, 'PUT', 'x-a');
    expect(r.status).toBe(200);
    expect(r.body).toBe('the app answered');
    expect(r.cors).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE',
      'access-control-allow-headers': 'x-a',
      'access-control-max-age': '60',
    });
    // cacheControl belongs to the answers the middleware sends itself.
    expect(r.headers.get('cache-control')).toBeNull();
    expect((await preflight(`${url}/data`, APP)).status).toBe(404);
  });
});

describe('OPTIONS without Access-Control-Request-Method', () => {
  it("is not a preflight: the app's OPTIONS route answers, with the CORS headers of a simple request", async () => {
    const url = await corsApp({ origin: APP, credentials: true, exposedHeaders: ['x-total'], maxAge: 600 });
    const r = await call(`${url}/own-options`, { method: 'OPTIONS', origin: APP });
    expect(r.status).toBe(200);
    expect(r.body).toBe('the app answered');
    expect(r.headers.get('allow')).toBe('GET, OPTIONS');
    expect(r.cors).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'x-total',
    });
    expect(r.vary).toBe('Origin');
  });

  it('gets the not-found answer, with CORS headers, where there is no OPTIONS route', async () => {
    const url = await corsApp({ origin: APP });
    const r = await call(`${url}/data`, { method: 'OPTIONS', origin: APP });
    expect(r.status).toBe(404);
    expect(r.cors).toEqual({ 'access-control-allow-origin': APP });
  });

  it('nor is OPTIONS with Access-Control-Request-Method but no Origin', async () => {
    const url = await corsApp({ origin: APP });
    const r = await call(`${url}/own-options`, { method: 'OPTIONS', headers: { 'access-control-request-method': 'PUT' } });
    expect(r.status).toBe(200);
    expect(r.body).toBe('the app answered');
    expect(r.cors).toEqual({});
  });
});

describe('a preflight from a disallowed origin', () => {
  it('gets no Access-Control-* header and goes on to what the app answers: its OPTIONS route, or 404', async () => {
    const url = await corsApp({ origin: APP, credentials: true, maxAge: 600 });
    const own = await preflight(`${url}/own-options`, OTHER);
    expect(own.status).toBe(200);
    expect(own.body).toBe('the app answered');
    expect(own.cors).toEqual({});
    expect(own.vary).toBe('Origin');
    const none = await preflight(`${url}/data`, OTHER, 'PUT', 'x-a');
    expect(none.status).toBe(404);
    expect(none.cors).toEqual({});
    expect(none.vary).toBe('Origin');
  });

  it('reaches a cors() under a prefix that allows it (middlewares compose)', async () => {
    const app = server();
    app.use(cors({ origin: APP, credentials: true }));
    app.use('/public', cors());
    app.get('/public/feed', (req, res) => res.json([]));
    routes(app);
    const url = await listen(app);
    const r = await preflight(`${url}/public/feed`, OTHER);
    expect(r.status).toBe(204);
    expect(r.cors).toEqual({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE' });
    // The app's own origin is answered by the first, with credentials.
    expect((await preflight(`${url}/data`, APP)).cors['access-control-allow-credentials']).toBe('true');
  });
});
