import type { Middleware } from '@velox/core';
import { get, listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { Router } from '../src/index.ts';
import { server } from './helpers.ts';

const echo: Parameters<Router['get']>[1] = (req, res) => res.json({ path: req.path, params: req.params, query: req.query });

describe('case sensitivity', () => {
  it('matches case-sensitively by default, as uWS does natively', async () => {
    const app = server();
    const r = new Router();
    r.get('/Users', (_req, res) => res.send('users'));
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/Users`)).text).toBe('users');
    expect((await get(`${base}/api/users`)).status).toBe(404);
  });

  it('with caseSensitive: false, answers the registered spelling natively and redirects other spellings with 308', async () => {
    const app = server();
    const r = new Router({ caseSensitive: false });
    r.get('/Users/:id/Posts', echo);
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/Users/Ab/Posts`)).json().params).toEqual({ id: 'Ab' });
    const moved = await get(`${base}/api/users/Ab/POSTS?page=2`);
    expect(moved.status).toBe(308);
    // Parameters keep their case; the query string is kept.
    expect(moved.headers.get('location')).toBe('/api/Users/Ab/Posts?page=2');
  });

  it('with caseSensitive: false, keeps the method and body through the redirect', async () => {
    const app = server();
    const r = new Router({ caseSensitive: false });
    r.post('/Echo', async (req, res) => res.send(`${req.method} ${await req.text()}`));
    app.use('/api', r);
    const base = await listen(app);
    const followed = await fetch(`${base}/api/ECHO`, { method: 'POST', body: 'payload' });
    expect(await followed.text()).toBe('POST payload');
    expect(followed.redirected).toBe(true);
  });

  it('with caseSensitive: false, prefers a literal segment to a parameter when folding', async () => {
    const app = server();
    const r = new Router({ caseSensitive: false });
    r.get('/users/:id', echo);
    r.get('/users/me', echo);
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/USERS/ME`)).headers.get('location')).toBe('/api/users/me');
    expect((await get(`${base}/api/USERS/42`)).headers.get('location')).toBe('/api/users/42');
  });

  it("with caseSensitive: false, answers the server's 404 for a path no spelling of a route matches, and for another method", async () => {
    const app = server();
    const r = new Router({ caseSensitive: false });
    r.get('/Users', echo);
    app.use('/api', r);
    const base = await listen(app);
    const missing = await get(`${base}/api/nobody`);
    // The server's not-found answer, as without the router.
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe('Cannot GET /api/nobody');
    expect((await get(`${base}/api/USERS`, { method: 'DELETE' })).status).toBe(404);
  });

  it('with caseSensitive: false, leaves the mount prefix to the parent, which matches it case-sensitively', async () => {
    const app = server();
    const r = new Router({ caseSensitive: false });
    r.get('/x', echo);
    app.use('/Api', r);
    const base = await listen(app);
    expect((await get(`${base}/Api/X`)).status).toBe(308);
    expect((await get(`${base}/api/x`)).status).toBe(404);
  });

  it('with caseSensitive: false, runs a path-scoped guard for every spelling the router treats as the same', async () => {
    const app = server();
    const r = new Router({ caseSensitive: false });
    const guard: Middleware = (_req, res) => res.status(403).send('no');
    r.use('/admin', guard);
    r.get('/:section/panel', echo);
    app.use('/site', r);
    const base = await listen(app);
    // "/ADMIN/panel" reaches the parameter route natively; the guard still applies to it.
    expect((await get(`${base}/site/ADMIN/panel`)).status).toBe(403);
    expect((await get(`${base}/site/blog/panel`)).status).toBe(200);
  });

  it("runs an outer router's guard on a case-insensitive inner router's parameter route for any spelling", async () => {
    const app = server();
    const inner = new Router({ caseSensitive: false });
    inner.get('/:section/panel', echo);
    const outer = new Router();
    outer.use('/admin', (_req, res) => res.status(403).send('no'));
    outer.use(inner);
    app.use('/site', outer);
    const base = await listen(app);
    expect((await get(`${base}/site/ADMIN/panel`)).status).toBe(403);
    expect((await get(`${base}/site/blog/panel`)).status).toBe(200);
  });

  it('with caseSensitive: false, folds the routes of nested routers, under the prefix it gives them', async () => {
    const app = server();
    const inner = new Router();
    inner.get('/Me', echo);
    const outer = new Router({ caseSensitive: false });
    outer.use('/Users', inner);
    app.use('/api', outer);
    const base = await listen(app);
    // "Users" belongs to the case-insensitive outer router; "Me" to the case-sensitive inner one.
    expect((await get(`${base}/api/users/Me`)).headers.get('location')).toBe('/api/Users/Me');
    expect((await get(`${base}/api/users/me`)).status).toBe(404);
  });

  it('with caseSensitive: false, redirects other spellings at the root too', async () => {
    const app = server();
    const r = new Router({ caseSensitive: false });
    r.get('/Users/:id', echo);
    app.use(r);
    app.get('/plain', (_req, res) => res.send('plain'));
    const base = await listen(app);
    expect((await get(`${base}/USERS/7`)).headers.get('location')).toBe('/Users/7');
    expect((await get(`${base}/plain`)).text).toBe('plain');
    // Server routes are not the router's: their spelling is not folded.
    expect((await get(`${base}/PLAIN`)).status).toBe(404);
  });
});

describe('trailing slash', () => {
  it('with strict off (the default), answers /a and /a/ alike', async () => {
    const app = server();
    const r = new Router();
    r.get('/a', (_req, res) => res.send('a'));
    r.get('/b/', (_req, res) => res.send('b'));
    r.get('/', (_req, res) => res.send('root'));
    app.use('/s', r);
    const base = await listen(app);
    for (const path of ['/s/a', '/s/a/', '/s/b', '/s/b/']) expect((await get(base + path)).status).toBe(200);
    expect((await get(`${base}/s`)).text).toBe('root');
    expect((await get(`${base}/s/`)).text).toBe('root');
  });

  it('with strict on, tells /a from /a/', async () => {
    const app = server();
    const r = new Router({ strict: true });
    r.get('/a', (_req, res) => res.send('no slash'));
    r.get('/a/', (_req, res) => res.send('slash'));
    r.get('/b', (_req, res) => res.send('b'));
    app.use('/s', r);
    const base = await listen(app);
    expect((await get(`${base}/s/a`)).text).toBe('no slash');
    expect((await get(`${base}/s/a/`)).text).toBe('slash');
    expect((await get(`${base}/s/b/`)).status).toBe(404);
  });

  it('shares its default with server routes: both answer /a and /a/ unless told otherwise', async () => {
    const app = server();
    const r = new Router();
    r.get('/users', (_req, res) => res.send('router'));
    app.use('/r', r);
    app.get('/users', (_req, res) => res.send('server'));
    const base = await listen(app);
    for (const path of ['/r/users', '/r/users/']) expect((await get(base + path)).text).toBe('router');
    for (const path of ['/users', '/users/']) expect((await get(base + path)).text).toBe('server');
  });

  it('keeps a strict router strict on a lenient server (core adds no twin to its routes)', async () => {
    const app = server();
    const r = new Router({ strict: true });
    r.get('/a', (_req, res) => res.send('a'));
    app.use('/s', r);
    const base = await listen(app);
    expect((await get(`${base}/s/a`)).text).toBe('a');
    expect((await get(`${base}/s/a/`)).status).toBe(404);
    expect(app.routes().filter((route) => route.path.startsWith('/s/'))).toEqual([{ method: 'GET', path: '/s/a' }]);
  });

  it('keeps a lenient router lenient on a strict server', async () => {
    const app = server({ strict: true });
    const r = new Router();
    r.get('/a', (_req, res) => res.send('a'));
    app.use('/s', r);
    app.get('/b', (_req, res) => res.send('b'));
    const base = await listen(app);
    expect((await get(`${base}/s/a/`)).text).toBe('a');
    expect((await get(`${base}/b/`)).status).toBe(404);
  });
});

describe('parameters', () => {
  it('percent-decodes parameters', async () => {
    const app = server();
    const r = new Router();
    r.get('/files/:name', echo);
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/files/caf%C3%A9%20menu`)).json().params).toEqual({ name: 'café menu' });
  });

  it('answers 400 for a malformed escape, and the server keeps serving', async () => {
    const app = server();
    const r = new Router();
    r.get('/files/:name', echo);
    app.use('/api', r);
    const base = await listen(app);
    const bad = await get(`${base}/api/files/%E0%A4%A`);
    expect(bad.status).toBe(400);
    expect(bad.json().code).toBe('VELOX_ERR_BAD_ENCODING');
    expect((await get(`${base}/api/files/ok`)).status).toBe(200);
  });

  it('does not match an empty parameter', async () => {
    const app = server();
    const r = new Router({ strict: true });
    r.get('/u/:id', echo);
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/u/`)).status).toBe(404);
  });

  it('prefers a literal segment to a parameter, whatever the order of registration', async () => {
    const app = server();
    const r = new Router();
    r.get('/users/:id', (_req, res) => res.send('param'));
    r.get('/users/me', (_req, res) => res.send('literal'));
    app.use('/api', r);
    const base = await listen(app);
    expect((await get(`${base}/api/users/me`)).text).toBe('literal');
    expect((await get(`${base}/api/users/you`)).text).toBe('param');
  });

  it('reads params declared in a mount prefix', async () => {
    const app = server();
    const members = new Router<{ org: string }>();
    members.get('/:id', (req, res) => res.send(`${req.params.org}/${req.params.id}`));
    const api = new Router();
    api.use('/orgs/:org/members', members);
    app.use('/api', api);
    const base = await listen(app);
    expect((await get(`${base}/api/orgs/acme/members/7`)).text).toBe('acme/7');
  });
});

describe('wildcards', () => {
  it("gives what '*' matched in req.params['*'], decoded, and needs the slash before it", async () => {
    const app = server();
    const r = new Router();
    r.get('/files/*', echo);
    app.use('/static', r);
    const base = await listen(app);
    expect((await get(`${base}/static/files/a/b%20c.txt`)).json().params).toEqual({ '*': 'a/b c.txt' });
    expect((await get(`${base}/static/files/`)).json().params).toEqual({ '*': '' });
    expect((await get(`${base}/static/files`)).status).toBe(404);
  });

  it('loses to literal and parameter routes', async () => {
    const app = server();
    const r = new Router();
    r.get('/*', (_req, res) => res.send('wild'));
    r.get('/one', (_req, res) => res.send('literal'));
    r.get('/one/:x', (_req, res) => res.send('param'));
    app.use('/w', r);
    const base = await listen(app);
    expect((await get(`${base}/w/one`)).text).toBe('literal');
    expect((await get(`${base}/w/one/2`)).text).toBe('param');
    expect((await get(`${base}/w/one/2/3`)).text).toBe('wild');
  });
});
