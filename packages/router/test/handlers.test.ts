import type { ErrorHandler, Middleware } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { Router, RouterErrorCodes } from '../src/index.ts';
import { get, listen, server } from './helpers.ts';

const boom = () => {
  throw Object.assign(new Error('boom'), { status: 418 });
};

function answering(name: string): ErrorHandler {
  return (err, _req, res) => res.status(err.status ?? 500).json({ by: name, message: err.message });
}

describe('Router#setErrorHandler', () => {
  it("handles errors thrown by the router's routes, before the server's error handler", async () => {
    const app = server();
    app.setErrorHandler(answering('server'));
    const r = new Router().setErrorHandler(answering('router'));
    r.get('/fail', boom);
    app.use('/r', r);
    app.get('/fail', boom);
    const base = await listen(app);
    expect((await get(`${base}/r/fail`)).json()).toEqual({ by: 'router', message: 'boom' });
    expect((await get(`${base}/fail`)).json()).toEqual({ by: 'server', message: 'boom' });
  });

  it('handles rejections and next(err) from router middlewares too', async () => {
    const app = server();
    const failing: Middleware = (_req, _res, next) => next(Object.assign(new Error('from next'), { status: 401 }));
    const r = new Router().setErrorHandler(answering('router'));
    r.get('/async', async () => {
      throw new Error('rejected');
    });
    r.get('/next', failing, (_req, res) => res.send('unreachable'));
    app.use('/r', r);
    const base = await listen(app);
    expect((await get(`${base}/r/async`)).json()).toEqual({ by: 'router', message: 'rejected' });
    const next = await get(`${base}/r/next`);
    expect(next.status).toBe(401);
    expect(next.json().by).toBe('router');
  });

  it("tries a nested router's handler first, then the outer router's, then the server's", async () => {
    const app = server();
    app.setErrorHandler(answering('server'));
    const passOn: ErrorHandler = (err) => {
      throw Object.assign(new Error(`inner saw ${err.message}`), { status: err.status });
    };
    const inner = new Router().setErrorHandler(passOn);
    inner.get('/fail', boom);
    const innerless = new Router();
    innerless.get('/fail', boom);
    const outer = new Router().setErrorHandler(answering('outer'));
    outer.use('/inner', inner);
    outer.use('/plain', innerless);
    app.use('/o', outer);
    const base = await listen(app);
    expect((await get(`${base}/o/inner/fail`)).json()).toEqual({ by: 'outer', message: 'inner saw boom' });
    expect((await get(`${base}/o/plain/fail`)).json()).toEqual({ by: 'outer', message: 'boom' });
  });

  it("falls back to core's default answer when the router's handler fails", async () => {
    const app = server();
    const r = new Router().setErrorHandler(() => Promise.reject(Object.assign(new Error('teapot'), { status: 418, expose: true })));
    r.get('/fail', boom);
    app.use('/r', r);
    const base = await listen(app);
    const answer = await get(`${base}/r/fail`);
    expect(answer.status).toBe(418);
    expect(answer.json().message).toBe('teapot');
  });

  it('rejects a handler that is not a function', () => {
    expect(() => new Router().setErrorHandler('x' as any)).toThrow(expect.objectContaining({ code: RouterErrorCodes.INVALID_OPTION }));
    expect(() => new Router().setNotFoundHandler(null as any)).toThrow(/takes a function/);
  });
});

describe('Router#setNotFoundHandler', () => {
  it('answers unmatched paths and methods under the prefix, the prefix itself included', async () => {
    const app = server();
    const r = new Router().setNotFoundHandler((req, res) => res.status(404).send(`router: ${req.method} ${req.path}`));
    r.get('/', (_req, res) => res.send('root'));
    r.get('/users/:id', (_req, res) => res.send('user'));
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api`)).text).toBe('root');
    expect((await get(`${base}/api/nothing/here`)).text).toBe('router: GET /api/nothing/here');
    expect((await get(`${base}/api/users/1`, { method: 'DELETE' })).text).toBe('router: DELETE /api/users/1');
    expect((await get(`${base}/api`, { method: 'POST' })).text).toBe('router: POST /api');
    // Outside the prefix, the server's not-found answer.
    const outside = await get(`${base}/apix`);
    expect(outside.status).toBe(404);
    expect(outside.json().message).toBe('Cannot GET /apix');
  });

  it('runs the server and router middlewares before it', async () => {
    const app = server();
    app.use((_req, res, next) => {
      res.set('x-server', '1');
      next();
    });
    const r = new Router().use((_req, res, next) => {
      res.set('x-router', '1');
      next();
    });
    r.setNotFoundHandler((_req, res) => res.status(404).send('nf'));
    app.use('/api', r);
    const base = await listen(app);
    const answer = await get(`${base}/api/missing`);
    expect(answer.text).toBe('nf');
    expect(answer.headers.get('x-server')).toBe('1');
    expect(answer.headers.get('x-router')).toBe('1');
  });

  it("lets a nested router's handler answer under its own prefix, and the outer one elsewhere", async () => {
    const app = server();
    const inner = new Router().setNotFoundHandler((_req, res) => res.status(404).send('inner'));
    inner.get('/x', (_req, res) => res.send('x'));
    const outer = new Router().setNotFoundHandler((_req, res) => res.status(404).send('outer'));
    outer.use('/inner', inner);
    app.use('/o', outer);
    const base = await listen(app);
    expect((await get(`${base}/o/inner/x`)).text).toBe('x');
    expect((await get(`${base}/o/inner/y`)).text).toBe('inner');
    expect((await get(`${base}/o/elsewhere`)).text).toBe('outer');
  });

  it("sends errors thrown by the not-found handler to the router's error handler", async () => {
    const app = server();
    const r = new Router()
      .setNotFoundHandler(() => {
        throw Object.assign(new Error('nf failed'), { status: 410 });
      })
      .setErrorHandler(answering('router'));
    app.use('/api', r);
    const base = await listen(app);
    const answer = await get(`${base}/api/gone`);
    expect(answer.status).toBe(410);
    expect(answer.json()).toEqual({ by: 'router', message: 'nf failed' });
  });

  it("leaves a router's own any('/*') route in charge of everything under the prefix", async () => {
    const app = server();
    const r = new Router().setNotFoundHandler((_req, res) => res.status(404).send('nf'));
    r.any('/*', (req, res) => res.send(`mine ${req.params['*']}`));
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/a/b`)).text).toBe('mine a/b');
    expect((await get(`${base}/api`)).text).toBe('nf');
  });

  it('refuses a not-found handler at the root, where core owns the catch-all route', () => {
    const app = server();
    const r = new Router().setNotFoundHandler((_req, res) => res.end());
    expect(() => app.use(r)).toThrow(expect.objectContaining({ code: RouterErrorCodes.ROOT_CATCH_ALL }));
    expect(() => app.use('/', r)).toThrow(/app.setNotFoundHandler/);
  });

  it('refuses two not-found handlers for one prefix through nesting without a prefix', () => {
    const inner = new Router().setNotFoundHandler((_req, res) => res.end());
    const outer = new Router().setNotFoundHandler((_req, res) => res.end());
    outer.use(inner);
    expect(() => server().use('/api', outer)).toThrow(expect.objectContaining({ code: RouterErrorCodes.INVALID_OPTION }));
  });
});
