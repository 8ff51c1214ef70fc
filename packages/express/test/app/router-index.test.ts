// The router's index of plain route runs (src/app/router.ts: buildPlainIndex/skipPlain): a
// router of many plain routes jumps to the layers a path can match. Every answer is compared
// with express@4's, on routers where order, case, trailing slashes and next('route') matter.
import { describe, expect, it } from 'vitest';
import express from '../../src/index.ts';
import { buildPlainIndex, skipPlain } from '../../src/app/router.ts';
import { type AnyExpress, both } from './harness.ts';

const handler = (label: string) => (req: any, res: any) => res.send(`${label} ${req.method} ${req.path} ${req.baseUrl}`);

function manyRoutes(ex: AnyExpress, options?: Record<string, unknown>) {
  const router = ex.Router(options);
  for (let i = 0; i < 20; i++) router.get(`/route/${i}`, handler(`r${i}`));
  router.get('/Mixed/Case', handler('mixed'));
  router.get('/dup', (_req: any, _res: any, next: any) => next('route'));
  router.get('/dup', handler('dup-second'));
  router.get('/slash/', handler('slash'));
  router.use((req: any, res: any, next: any) => {
    res.set('x-between', '1');
    next();
  });
  for (let i = 20; i < 30; i++) router.get(`/route/${i}`, handler(`r${i}`));
  router.get('/route/:n', handler('param'));
  router.post('/route/5', handler('post5'));
  for (let i = 30; i < 40; i++) router.all(`/route/${i}`, handler(`all${i}`));
  router.get('/route/0', handler('r0-again'));
  return router;
}

const PATHS = [
  '/api/route/0',
  '/api/route/19',
  '/api/route/25',
  '/api/route/39',
  '/api/route/40',
  '/api/route/5',
  '/api/ROUTE/7',
  '/api/route/7/',
  '/api/route/7//',
  '/api/mixed/case',
  '/api/Mixed/Case',
  '/api/dup',
  '/api/slash',
  '/api/slash/',
  '/api/nothing',
  '/api/route/%37',
  '/api/route/\u212A',
];

describe('router: plain routes found by lookup', () => {
  for (const [label, options, appSettings] of [
    ['defaults', undefined, {}],
    ['strict, case sensitive router', { strict: true, caseSensitive: true }, {}],
    ['app settings: strict routing, case sensitive routing', undefined, { 'strict routing': true, 'case sensitive routing': true }],
  ] as Array<[string, Record<string, unknown> | undefined, Record<string, unknown>]>) {
    it(`answers as express@4 does: ${label}`, async () => {
      const pair = await both((ex: AnyExpress) => {
        const app = ex();
        for (const [k, v] of Object.entries(appSettings)) app.set(k, v);
        app.use('/api', manyRoutes(ex, options));
        for (let i = 0; i < 6; i++) app.get(`/top/${i}`, handler(`top${i}`));
        return app;
      });
      for (const path of [...PATHS, '/top/0', '/top/5', '/TOP/3/', '/top/6']) {
        await pair.same(path);
        await pair.same({ method: 'HEAD', path });
        await pair.same({ method: 'POST', path });
        await pair.same({ method: 'OPTIONS', path });
      }
    });
  }

  it('sees routes added and removed after requests came', async () => {
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      for (let i = 0; i < 8; i++) app.get(`/r/${i}`, handler(`r${i}`));
      app.get('/add', (_req: any, res: any) => {
        app.get('/r/late', handler('late'));
        res.send('added');
      });
      app.get('/drop', (_req: any, res: any) => {
        // The first /r/ route leaves the stack (as tools that unregister routes do).
        const stack = app._router.stack;
        const at = stack.findIndex((layer: any) => layer.route?.path === '/r/0');
        stack.splice(at, 1);
        res.send('dropped');
      });
      return app;
    });
    expect((await pair.same('/r/late')).status).toBe(404);
    await pair.same('/add');
    expect((await pair.same('/r/late')).body).toBe('late GET /r/late ');
    expect((await pair.same('/r/0')).body).toBe('r0 GET /r/0 ');
    await pair.same('/drop');
    expect((await pair.same('/r/0')).status).toBe(404);
    expect((await pair.same('/r/7')).body).toBe('r7 GET /r/7 ');
  });
});

describe('router: the index itself', () => {
  it('jumps to the layers a path can match, and walks what is not a run of plain routes', () => {
    const router: any = express.Router();
    router.use((_req: any, _res: any, next: any) => next());
    for (let i = 0; i < 10; i++) router.get(`/route/${i}`, () => {});
    router.get('/route/:n', () => {});
    for (let i = 0; i < 3; i++) router.get(`/short/${i}`, () => {});
    const index = buildPlainIndex(router.stack);
    expect(index.hasRuns).toBe(true);
    // Position 0 is the middleware: never skipped.
    expect(skipPlain(index, 0, '/route/9')).toBe(0);
    expect(skipPlain(index, 1, '/route/9')).toBe(10);
    expect(skipPlain(index, 1, '/ROUTE/9/')).toBe(10);
    expect(skipPlain(index, 1, '/route/3')).toBe(4);
    // Past its layer, or no layer: to the end of the run (the parameter route).
    expect(skipPlain(index, 5, '/route/3')).toBe(11);
    expect(skipPlain(index, 1, '/route/x')).toBe(11);
    // The parameter route and the three-route run are walked.
    expect(skipPlain(index, 11, '/route/x')).toBe(11);
    expect(skipPlain(index, 12, '/nothing')).toBe(12);
  });
});
