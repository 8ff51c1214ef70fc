import type { ErrorHandler, Middleware } from '@velox/core';
import { get, listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { Router, RouterErrorCodes } from '../src/index.ts';
import { server } from './helpers.ts';

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

  it('refuses two not-found handlers for one prefix through nesting without a prefix', () => {
    const inner = new Router().setNotFoundHandler((_req, res) => res.end());
    const outer = new Router().setNotFoundHandler((_req, res) => res.end());
    outer.use(inner);
    expect(() => server().use('/api', outer)).toThrow(expect.objectContaining({ code: RouterErrorCodes.INVALID_OPTION }));
  });
});

describe("the server's not-found handler", () => {
  it('answers a miss under a case-insensitive router without a not-found handler', async () => {
    const app = server();
    app.setNotFoundHandler((req, res) => res.status(404).send(`custom not found ${req.path}`));
    const r = new Router({ caseSensitive: false });
    r.get('/x', (_req, res) => res.send('x'));
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/X`)).status).toBe(308);
    const missing = await get(`${base}/api/missing`);
    expect([missing.status, missing.text]).toEqual([404, 'custom not found /api/missing']);
    expect((await get(`${base}/api/x`, { method: 'DELETE' })).text).toBe('custom not found /api/x');
  });

  it("answers under a router without its own not-found handler, a route's next() included, past the router's error handler", async () => {
    const app = server();
    app.setNotFoundHandler((req, res) => res.status(404).send(`custom not found ${req.path}`));
    const r = new Router().setErrorHandler(answering('router'));
    r.get('/pass', (_req, _res, next) => next());
    r.get('/x', (_req, res) => res.send('x'));
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/x`)).text).toBe('x');
    expect((await get(`${base}/api/missing`)).text).toBe('custom not found /api/missing');
    const passed = await get(`${base}/api/pass`);
    expect([passed.status, passed.text]).toEqual([404, 'custom not found /api/pass']);
  });

  it('answers a miss under a case-insensitive router mounted at the root', async () => {
    const app = server();
    app.setNotFoundHandler((req, res) => res.status(404).send(`custom not found ${req.path}`));
    app.use((_req, res, next) => {
      res.set('x-server', '1');
      next();
    });
    const r = new Router({ caseSensitive: false });
    r.get('/Users/:id', (req, res) => res.send(`user ${req.params.id}`));
    app.use(r);
    const base = await listen(app);
    expect((await get(`${base}/Users/Ab`)).text).toBe('user Ab');
    expect((await get(`${base}/users/Ab?x=1`)).headers.get('location')).toBe('/Users/Ab?x=1');
    const missing = await get(`${base}/nothing`);
    expect([missing.status, missing.text]).toEqual([404, 'custom not found /nothing']);
    expect(missing.headers.get('x-server')).toBe('1');
  });
});

describe('catch-all routes at the root', () => {
  it("lets a router with a not-found handler take the root, in place of the server's", async () => {
    const app = server();
    app.setNotFoundHandler((_req, res) => res.status(404).send('server'));
    const r = new Router().setNotFoundHandler((req, res) => res.status(404).send(`router: ${req.method} ${req.path}`));
    r.get('/a', (_req, res) => res.send('a'));
    app.use('/', r);
    app.get('/b', (_req, res) => res.send('b'));
    const base = await listen(app);
    expect((await get(`${base}/a`)).text).toBe('a');
    expect((await get(`${base}/b`)).text).toBe('b');
    expect((await get(`${base}/zzz/y`)).text).toBe('router: GET /zzz/y');
    expect((await get(`${base}/a`, { method: 'POST' })).text).toBe('router: POST /a');
    expect((await get(`${base}/`)).text).toBe('router: GET /');
    expect(app.routes()).toContainEqual({ method: 'ANY', path: '/*' });
  });

  it("lets app.any('/*') or a router's any('/*') be the catch-all, beside routers", async () => {
    const app = server();
    const api = new Router();
    api.get('/x', (_req, res) => res.send('x'));
    app.use('/api', api);
    app.any('/*', (req, res) => res.status(404).send(`mine ${req.method} ${req.params['*']}`));
    const base = await listen(app);
    expect((await get(`${base}/api/x`)).text).toBe('x');
    expect((await get(`${base}/anything/else`, { method: 'PUT' })).text).toBe('mine PUT anything/else');

    const other = server();
    const root = new Router();
    root.any('/*', (req, res) => res.send(`router's ${req.params['*']}`));
    other.use(root);
    const otherBase = await listen(other);
    expect((await get(`${otherBase}/a/b`)).text).toBe("router's a/b");
  });

  it('refuses a root catch-all after listen() with a clear error, and keeps serving', async () => {
    const app = server();
    const root = new Router();
    root.get('/a', (_req, res) => res.send('a'));
    app.use(root);
    const base = await listen(app);
    const late = new Router().setNotFoundHandler((_req, res) => res.status(404).send('late'));
    late.get('/late', (_req, res) => res.send('late route'));
    let thrown: any;
    try {
      root.use(late);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ code: RouterErrorCodes.ROOT_CATCH_ALL });
    expect(thrown.message).toMatch(/before listen\(\)/);
    expect(thrown.message).toMatch(/under a prefix/);
    expect(thrown.cause).toMatchObject({ code: 'VELOX_ERR_DUPLICATE_ROUTE' });
    expect(() => new Router({ caseSensitive: false }).mount(app, '')).toThrow(expect.objectContaining({ code: RouterErrorCodes.ROOT_CATCH_ALL }));
    // app.use() itself must come before listen(); core says so.
    expect(() => app.use(new Router({ caseSensitive: false }))).toThrow(/before listen\(\)/);
    // Nothing of the refused router was registered or listed.
    expect(root.routes()).toEqual([{ method: 'GET', path: '/a' }]);
    expect(app.routes()).not.toContainEqual({ method: 'GET', path: '/late' });
    expect((await get(`${base}/a`)).text).toBe('a');
    const missing = await get(`${base}/late`);
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe('Cannot GET /late');
    // Under a prefix, after listen() is fine.
    const nested = new Router().setNotFoundHandler((_req, res) => res.status(404).send('nested nf'));
    root.use('/n', nested);
    expect((await get(`${base}/n/zz`)).text).toBe('nested nf');
  });

  it('refuses a root catch-all when the server already has ANY /*', () => {
    const app = server();
    app.any('/*', (_req, res) => res.send('mine'));
    expect(() => app.use(new Router({ caseSensitive: false }))).toThrow(expect.objectContaining({ code: RouterErrorCodes.ROOT_CATCH_ALL }));
    expect(() => app.use(new Router({ caseSensitive: false }))).toThrow(/has one already.*keep one catch-all at the root/);
  });
});
