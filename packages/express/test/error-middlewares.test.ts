import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import type { ErrorMiddleware } from '@velox/core';
import { server } from './helpers.ts';

describe('use((err, req, res, next) => …): Express error middlewares', () => {
  it('answers errors from routes and middlewares, after router-scoped handlers and before the error handler', async () => {
    const app = server();
    const seen: string[] = [];
    const first: ErrorMiddleware = (err, req, res, next) => {
      seen.push(`first ${err.message}`);
      if (err.message === 'pass') return next(new Error('passed on'));
      if (err.message === 'nothing') return next();
      res.status(err.status ?? 500).json({ handledBy: 'first', message: err.message });
    };
    app.use(first);
    app.use((err: any, req: any, res: any, next: any) => {
      seen.push(`second ${err.message}`);
      next(err);
    });
    app.setErrorHandler((err, req, res) => res.status(599).json({ handledBy: 'server', message: err.message }));
    app.get('/boom', () => {
      throw Object.assign(new Error('boom'), { status: 409 });
    });
    app.get('/pass', (req, res, next) => next(new Error('pass')));
    app.get('/nothing', async () => {
      throw new Error('nothing');
    });
    const { url } = await start(app);
    const boom = await fetch(`${url}/boom`);
    expect([boom.status, await boom.json()]).toEqual([409, { handledBy: 'first', message: 'boom' }]);
    const pass = await fetch(`${url}/pass`);
    expect([pass.status, await pass.json()]).toEqual([599, { handledBy: 'server', message: 'passed on' }]);
    const nothing = await fetch(`${url}/nothing`);
    expect(nothing.status).toBe(404);
    expect(seen).toEqual(['first boom', 'first pass', 'second passed on', 'first nothing']);
  });

  it('runs a prefixed error middleware only for requests under its prefix', async () => {
    const app = server();
    app.use('/api', (err: any, req: any, res: any, next: any) => res.status(400).json({ api: err.message }));
    app.get('/api/x', () => {
      throw new Error('api error');
    });
    app.get('/web/x', () => {
      throw Object.assign(new Error('web error'), { status: 422 });
    });
    const { url } = await start(app);
    expect(await (await fetch(`${url}/api/x`)).json()).toEqual({ api: 'api error' });
    const web = await fetch(`${url}/web/x`);
    expect(web.status).toBe(422);
    expect(((await web.json()) as { message: string }).message).toBe('web error');
  });
});
