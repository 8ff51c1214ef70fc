import { attempt, get, listen, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, isMetadataOnly, markMetadataOnly, type Middleware, type RouteDefinition } from '../../src/index.ts';
import { server } from '../helpers.ts';

/** A marker that fails the request if anything ever runs it. */
function marker(): Middleware {
  return markMetadataOnly((_req, _res, next) => next(new Error('a metadata-only middleware ran')));
}

describe('markMetadataOnly()', () => {
  it('marks the function it returns, and nothing else', () => {
    const fn: Middleware = (_req, _res, next) => next();
    expect(isMetadataOnly(fn)).toBe(false);
    expect(markMetadataOnly(fn)).toBe(fn);
    expect(isMetadataOnly(fn)).toBe(true);
    expect(isMetadataOnly(() => {})).toBe(false);
    expect(isMetadataOnly({})).toBe(false);
  });

  it('leaves a marked middleware out of the chain: wrappers never see it and requests never run it', async () => {
    const app = server();
    const seen: unknown[] = [];
    app.wrapMiddleware((fn) => {
      seen.push(fn);
      return fn;
    });
    const note = marker();
    const handler: Middleware = (_req, res) => res.send('ok');
    app.get('/a', note, handler);
    app.post('/b', handler, note); // after the handler too
    const base = await listen(app);
    expect((await get(`${base}/a`)).text).toBe('ok');
    expect((await get(`${base}/b`, { method: 'POST' })).text).toBe('ok');
    expect(seen).not.toContain(note);
    expect(seen).toContain(handler);
  });

  it('keeps the marker in the route for plugins: onRoute hooks and routeDefinitions() see it', () => {
    const app = server();
    const routes: RouteDefinition[] = [];
    app.addHook('onRoute', (route) => routes.push(route));
    const note = marker();
    app.get('/a', note, (_req, res) => res.send('ok'));
    expect(routes[0]!.handlers[0]).toBe(note);
    expect(app.routeDefinitions()[0]!.handlers[0]).toBe(note);
  });

  it('throws VELOX_ERR_INVALID_OPTION for a route with markers and no handler', () => {
    const app = server();
    expect(() => app.get('/a', marker() as never)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION, message: expect.stringContaining('metadata-only') }));
    expect(app.routes()).toEqual([]);
  });

  it('is refused by use(), where it would describe no route', () => {
    const app = server();
    expect(() => app.use(marker())).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION, message: expect.stringContaining('give it to a route') }));
  });

  it("is left out of a WebSocket route's upgrade chain too", async () => {
    const app = server();
    app.ws('/ws', marker(), { upgrade: () => ({}) });
    const { url } = await start(app, 'ws');
    expect(await attempt(`${url}/ws`)).toEqual({ status: 101, body: '' });
  });
});

describe('routeDefinitions()', () => {
  it('lists every route as registered, in order, twins sharing their route\'s handlers', () => {
    const app = server();
    const handlers = [(_req: unknown, res: { send(s: string): void }) => res.send('a')];
    app.addRoute({ method: 'GET', path: '/a', handlers: handlers as never });
    app.post('/b/:id', (_req, res) => res.send('b'));
    const defs = app.routeDefinitions();
    expect(defs.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /a', 'GET /a/', 'POST /b/:id', 'POST /b/:id/']);
    expect(defs[0]!.handlers).toBe(handlers);
    expect(defs[1]!.handlers).toBe(handlers);
    expect(defs[1]!.strict).toBe(true);
    expect(Object.isFrozen(defs)).toBe(true);
  });
});
