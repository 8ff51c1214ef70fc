// One default for server routes and routers: `/users` and `/users/` are the same path unless
// `strict` is set (Express's default too). Core registers each route's twin natively on uWS, so
// both spellings cost what the exact one does.
import { parseResponses, raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, type Handler, type RouteDefinition } from '../../src/index.ts';
import { server } from '../helpers.ts';

const body = (r: Response) => r.text();
const send =
  (text: string): Handler =>
  (req, res) =>
    res.send(text);

describe('trailing slash on server routes', () => {
  it('answers /users and /users/ alike by default, and req.path says which was sent', async () => {
    const app = server();
    app.get('/users', (req, res) => res.send(`list ${req.path} ${req.query.page ?? '-'}`));
    app.post('/users', (req, res) => res.send(`create ${req.path}`));
    app.get('/posts/', (req, res) => res.send(`posts ${req.path}`));
    const { url } = await start(app);
    expect(await body(await fetch(`${url}/users`))).toBe('list /users -');
    expect(await body(await fetch(`${url}/users/?page=2`))).toBe('list /users/ 2');
    expect(await body(await fetch(`${url}/users/`, { method: 'POST' }))).toBe('create /users/');
    expect(await body(await fetch(`${url}/posts/`))).toBe('posts /posts/');
    expect(await body(await fetch(`${url}/posts`))).toBe('posts /posts');
  });

  it('answers a parameter route with a trailing slash, params and all', async () => {
    const app = server();
    app.get('/users/:id', (req, res) => res.json({ id: req.params.id, path: req.path }));
    const { url } = await start(app);
    expect(await (await fetch(`${url}/users/7/`)).json()).toEqual({ id: '7', path: '/users/7/' });
    expect(await (await fetch(`${url}/users/7`)).json()).toEqual({ id: '7', path: '/users/7' });
  });

  it('answers HEAD on the twin of a GET route, without a body', async () => {
    const app = server();
    app.get('/users', (req, res) => res.send('list'));
    const { port } = await start(app);
    const { text } = await raw(port, 'HEAD /users/ HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\ncontent-length: 4\r\n/i);
    expect(text.endsWith('\r\n\r\n')).toBe(true);
  });

  it('runs a prefix middleware on both spellings, so a guard cannot be skipped with a slash', async () => {
    const app = server();
    app.use('/admin', (req, res, next) => (req.get('x-admin') === 'yes' ? next() : res.status(403).send('no')));
    app.get('/admin', (req, res) => res.send('panel'));
    app.get('/admin/users/:id', (req, res) => res.send(`user ${req.params.id}`));
    const { url } = await start(app);
    for (const path of ['/admin', '/admin/', '/admin/users/1', '/admin/users/1/']) {
      expect([path, (await fetch(url + path)).status]).toEqual([path, 403]);
      expect([path, (await fetch(url + path, { headers: { 'x-admin': 'yes' } })).status]).toEqual([path, 200]);
    }
  });

  it('leaves / and /* routes alone: / has no twin, and /files/* already takes /files/', async () => {
    const app = server();
    app.get('/', (req, res) => res.send('root'));
    app.get('/files/*', (req, res) => res.send(`file [${req.params['*']}]`));
    const { url } = await start(app);
    expect(await body(await fetch(`${url}/`))).toBe('root');
    expect(await body(await fetch(`${url}/files/`))).toBe('file []');
    expect(await body(await fetch(`${url}/files/a/b`))).toBe('file [a/b]');
    expect(app.routes()).toEqual([
      { method: 'GET', path: '/' },
      { method: 'GET', path: '/files/*' },
    ]);
  });

  it('registers the twin of a route added after listen()', async () => {
    const app = server();
    const { url } = await start(app);
    app.get('/late', (req, res) => res.send('late'));
    expect(await body(await fetch(`${url}/late/`))).toBe('late');
  });

  it('throws VELOX_ERR_DUPLICATE_ROUTE for /a/ after /a (one path), saying how to tell them apart', () => {
    const app = server();
    app.get('/a', (req, res) => res.send('a'));
    expect(() => app.get('/a/', (req, res) => res.send('b'))).toThrow(
      expect.objectContaining({ code: ErrorCodes.DUPLICATE_ROUTE, message: expect.stringContaining('strict: true') }),
    );
    app.post('/b/', (req, res) => res.send('b'));
    expect(() => app.post('/b', (req, res) => res.send('b'))).toThrow(expect.objectContaining({ code: ErrorCodes.DUPLICATE_ROUTE }));
    expect(app.routes()).toEqual([
      { method: 'GET', path: '/a' },
      { method: 'GET', path: '/a/' },
      { method: 'POST', path: '/b/' },
      { method: 'POST', path: '/b' },
    ]);
  });

  it('reports the twin to onRoute hooks as a strict route of its own', () => {
    const app = server();
    const seen: RouteDefinition[] = [];
    app.addHook('onRoute', (route) => seen.push(route));
    app.get('/a', (req, res) => res.send('a'));
    expect(seen.map((r) => [r.path, r.strict])).toEqual([
      ['/a', undefined],
      ['/a/', true],
    ]);
  });
});

describe('new Server({ strict: true })', () => {
  it('tells /users from /users/: the other spelling is not found', async () => {
    const app = server({ strict: true });
    app.get('/users', (req, res) => res.send('list'));
    app.get('/users/', (req, res) => res.send('slash'));
    app.get('/only', (req, res) => res.send('only'));
    const { url } = await start(app);
    expect(await body(await fetch(`${url}/users`))).toBe('list');
    expect(await body(await fetch(`${url}/users/`))).toBe('slash');
    expect((await fetch(`${url}/only/`)).status).toBe(404);
    expect(app.routes()).toHaveLength(3);
  });

  it('throws VELOX_ERR_INVALID_OPTION for a strict that is not a boolean', () => {
    expect(() => server({ strict: 'yes' as any })).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
  });
});

describe('addRoute({ strict })', () => {
  it('registers only the exact path with strict: true on a lenient server', async () => {
    const app = server();
    app.addRoute({ method: 'GET', path: '/exact', handlers: [send('exact')], strict: true });
    const { port } = await start(app);
    const { text } = await raw(port, 'GET /exact HTTP/1.1\r\nHost: x\r\n\r\nGET /exact/ HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(parseResponses(text).map((r) => r.status)).toEqual([200, 404]);
  });

  it('adds the twin with strict: false on a strict server', async () => {
    const app = server({ strict: true });
    app.addRoute({ method: 'GET', path: '/both', handlers: [send('both')], strict: false });
    const { url } = await start(app);
    expect(await body(await fetch(`${url}/both/`))).toBe('both');
  });

  it('throws VELOX_ERR_INVALID_OPTION for a strict that is not a boolean', () => {
    const app = server();
    expect(() => app.addRoute({ method: 'GET', path: '/x', handlers: [send('x')], strict: 1 as any })).toThrow(
      expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }),
    );
  });
});
