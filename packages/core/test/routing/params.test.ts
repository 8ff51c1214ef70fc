/**
 * Route parameters: `req.params` as a route builds it. A route with named parameters builds them
 * with a function made for it (an object literal); where the engine may not compile code from a
 * string, or a name is `__proto__`, it copies a template instead. Both must give the same object.
 */
import { runServer, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { server } from '../helpers.ts';

/** The routes both ways are checked with; each answers its params as JSON, with their keys in order. */
const ROUTES = `
  app.get('/one/:id', (req, res) => res.json({ keys: Object.keys(req.params), params: req.params }));
  app.get('/two/:org/:repo', (req, res) => res.json({ keys: Object.keys(req.params), params: req.params }));
  app.get('/files/:bucket/*', (req, res) => res.json({ keys: Object.keys(req.params), params: req.params }));
  app.get('/odd/:constructor/:toString', (req, res) => res.json({ keys: Object.keys(req.params), own: Object.hasOwn(req.params, 'constructor'), params: req.params }));
  app.get('/proto/:__proto__', (req, res) => res.json({ keys: Object.keys(req.params), own: Object.hasOwn(req.params, '__proto__'), value: req.params['__proto__'], proto: Object.getPrototypeOf(req.params) === Object.prototype }));
`;

/** What each route must answer, the same with and without code generation. */
async function checkRoutes(url: string): Promise<void> {
  const get = async (path: string) => {
    const r = await fetch(url + path);
    return { status: r.status, body: (await r.json()) as any };
  };
  expect(await get('/one/42')).toEqual({ status: 200, body: { keys: ['id'], params: { id: '42' } } });
  expect(await get('/one/caf%C3%A9')).toEqual({ status: 200, body: { keys: ['id'], params: { id: 'café' } } });
  expect(await get('/two/velox/core')).toEqual({ status: 200, body: { keys: ['org', 'repo'], params: { org: 'velox', repo: 'core' } } });
  expect(await get('/files/b1/a/b%20c.txt')).toEqual({ status: 200, body: { keys: ['bucket', '*'], params: { bucket: 'b1', '*': 'a/b c.txt' } } });
  expect(await get('/odd/x/y')).toEqual({ status: 200, body: { keys: ['constructor', 'toString'], own: true, params: { constructor: 'x', toString: 'y' } } });
  // `__proto__` is an own key holding the value; the prototype stays Object.prototype.
  expect(await get('/proto/p1')).toEqual({ status: 200, body: { keys: ['__proto__'], own: true, value: 'p1', proto: true } });
  // A malformed escape in a named parameter, or in the wildcard part: 400 with its code.
  for (const path of ['/one/%E0%A4%A', '/two/ok/%E0%A4%A', '/files/%E0%A4%A/x', '/files/ok/%E0%A4%A']) {
    const r = await get(path);
    expect(r.status, path).toBe(400);
    expect(r.body.code, path).toBe('VELOX_ERR_BAD_ENCODING');
  }
}

describe('req.params', () => {
  it('holds every named parameter and the wildcard, decoded, in pattern order; a malformed escape is a 400', async () => {
    const app = server();
    new Function('app', ROUTES)(app);
    const { url } = await start(app);
    await checkRoutes(url);
  });

  it('is the same where the engine may not compile code from strings (--disallow-code-generation-from-strings)', async () => {
    const script = `
      import { Server } from '@velox/core';
      const app = new Server({ logger: false });
      ${ROUTES}
      // The flag is on: compiling code from a string throws here.
      let refused = false;
      try { new Function('return 1'); } catch { refused = true; }
      if (!refused) throw new Error('code generation from strings was not disallowed');
      const { port } = await app.listen(0, '127.0.0.1');
      console.log('PORT ' + port);
    `;
    const child = await runServer({ script }, {}, { cwd: new URL('../..', import.meta.url), node: ['--disallow-code-generation-from-strings'] });
    await checkRoutes(child.url);
  });

  it('gives each request an object of its own', async () => {
    const app = server();
    const seen: object[] = [];
    app.get('/one/:id', (req, res) => {
      seen.push(req.params);
      (req.params as any).id += '!';
      res.send(req.params.id);
    });
    const { url } = await start(app);
    expect(await (await fetch(`${url}/one/a`)).text()).toBe('a!');
    expect(await (await fetch(`${url}/one/b`)).text()).toBe('b!');
    expect(seen[0]).not.toBe(seen[1]);
  });
});
