import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from '../helpers.ts';

describe('use(prefix, mw): mount points as in Express', () => {
  it('shows the prefixed middleware req.url and req.path relative to the prefix, and restores them after next()', async () => {
    const app = server();
    app.use('/static', (req, res, next) => {
      res.set('x-inside', `${req.url}|${req.path}|${req.baseUrl}|${req.originalUrl}`);
      next();
    });
    app.get('/static/*', (req, res) => res.send(`${req.url}|${req.path}|${req.baseUrl}|${req.originalUrl}`));
    app.get('/static', (req, res) => res.send(`${req.url}|${req.baseUrl}`));
    const { url } = await start(app);
    const r = await fetch(`${url}/static/js/app.js?v=2`);
    expect(r.headers.get('x-inside')).toBe('/js/app.js?v=2|/js/app.js|/static|/static/js/app.js?v=2');
    expect(await r.text()).toBe('/static/js/app.js?v=2|/static/js/app.js||/static/js/app.js?v=2');
    const bare = await fetch(`${url}/static?x=1`);
    expect(bare.headers.get('x-inside')).toBe('/?x=1|/|/static|/static?x=1');
    expect(await bare.text()).toBe('/static?x=1|');
  });

  it('takes the matched segments of a parameter prefix as baseUrl', async () => {
    const app = server();
    app.use('/users/:id', (req, res, next) => {
      res.set('x-base', `${req.baseUrl} ${req.path}`);
      next();
    });
    app.get('/users/:id/posts', (req, res) => res.send(req.params.id));
    const { url } = await start(app);
    const r = await fetch(`${url}/users/42/posts`);
    expect(r.headers.get('x-base')).toBe('/users/42 /posts');
    expect(await r.text()).toBe('42');
  });

  it('keeps a rewrite the mounted middleware made, under the prefix, and re-parses the query only when it changed', async () => {
    const app = server();
    app.use('/old', (req, res, next) => {
      const before = req.query.keep;
      req.url = req.url.replace('/page', '/renamed');
      res.set('x-kept', String(before === req.query.keep));
      next();
    });
    app.get('/old/*', (req, res) => res.send(`${req.path} ${req.query.keep} ${req.originalUrl}`));
    const { url } = await start(app);
    const r = await fetch(`${url}/old/page?keep=1`);
    expect(r.headers.get('x-kept')).toBe('true');
    expect(await r.text()).toBe('/old/renamed 1 /old/page?keep=1');
  });

  it('restores the URL before the error handler when the mounted middleware throws or rejects', async () => {
    const app = server();
    app.use('/sync', () => {
      throw Object.assign(new Error('sync'), { status: 418 });
    });
    app.use('/async', async () => {
      throw Object.assign(new Error('async'), { status: 418 });
    });
    app.get('/sync/x', (req, res) => res.send('unreached'));
    app.get('/async/x', (req, res) => res.send('unreached'));
    app.setErrorHandler((err, req, res) => res.status(err.status).send(`${err.message} ${req.url} ${req.baseUrl === '' ? 'no base' : req.baseUrl}`));
    const { url } = await start(app);
    expect(await (await fetch(`${url}/sync/x`)).text()).toBe('sync /sync/x no base');
    expect(await (await fetch(`${url}/async/x`)).text()).toBe('async /async/x no base');
  });
});

describe("next('route'), next('router') and a late next(err)", () => {
  it("skips the route's own functions to the not-found handler on next('route'), and goes on from a use() middleware", async () => {
    const app = server();
    app.use((req, res, next) => {
      res.set('x-global', 'ran');
      next('route');
    });
    app.get(
      '/skip',
      (req, res, next) => next('route'),
      (req, res) => res.send('unreached'),
    );
    app.get('/router', (req, res, next) => next('router'));
    app.get('/last', (req, res, next) => next('route'));
    app.get('/ok', (req, res) => res.send('ok'));
    const { url } = await start(app);
    for (const path of ['/skip', '/router', '/last']) {
      const r = await fetch(`${url}${path}`);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('x-global')).toBe('ran');
    }
    expect(await (await fetch(`${url}/ok`)).text()).toBe('ok');
  });

  it('answers an error passed to next after next() was called (a timeout middleware), and still refuses a bare second next()', async () => {
    const app = server();
    app.use((req, res, next) => {
      next();
      if (req.path === '/late') setTimeout(() => next(Object.assign(new Error('Response timeout'), { status: 503 })), 20);
      if (req.path === '/twice') next();
    });
    app.get('/late', () => new Promise(() => {}));
    // The 500 of the second next() is out by then: send() would throw, uncaught, in the timer.
    app.get('/twice', (req, res) => setTimeout(() => res.headersSent || res.send('too late'), 50));
    const { url } = await start(app);
    const late = await fetch(`${url}/late`);
    expect([late.status, ((await late.json()) as { error: string }).error]).toEqual([503, 'Service Unavailable']);
    const twice = await fetch(`${url}/twice`);
    expect(twice.status).toBe(500);
  });
});
