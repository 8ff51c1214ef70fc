import { describe, expect, it } from 'vitest';
import { type AnyExpress, both, compare } from './harness.ts';

describe('express() routing, compared with express@4', () => {
  it('runs app middleware and routes interleaved in registration order', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.use((req: any, _res: any, next: any) => {
          req.trail = ['mw1'];
          next();
        });
        app.get('/a', (req: any, _res: any, next: any) => {
          req.trail.push('route-a');
          next();
        });
        app.use((req: any, _res: any, next: any) => {
          req.trail.push('mw2');
          next();
        });
        app.get('/a', (req: any, res: any) => res.json(req.trail));
        app.get('/b', (req: any, res: any) => res.json(req.trail));
        return app;
      },
      ['/a', '/b', '/c'],
    );
  });

  it('matches Express 4 path syntax: optional params, *, groups, regular expressions, arrays', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/user/:id?', (req: any, res: any) => res.json({ p: req.params, path: req.route.path }));
        app.get('/files/*', (req: any, res: any) => res.json(req.params));
        app.get('/ab(cd)?e', (_req: any, res: any) => res.send('group'));
        app.get(/^\/re\/(\d+)$/, (req: any, res: any) => res.json(req.params));
        app.get(['/one', '/two/:n'], (req: any, res: any) => res.json(req.params));
        app.get('/flights/:from-:to', (req: any, res: any) => res.json(req.params));
        app.get('/enc/:name', (req: any, res: any) => res.json(req.params));
        return app;
      },
      ['/user', '/user/5', '/user/5/', '/files/a/b.txt', '/abe', '/abcde', '/abxe', '/re/42', '/re/x', '/one', '/two/2', '/flights/LAX-SFO', '/enc/a%20b', '/enc/%E0%A4%A'],
    );
  });

  it('runs app.param and router.param once per value, and next("route") and next("router")', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        let calls = 0;
        app.param('id', (req: any, _res: any, next: any, id: string) => {
          calls++;
          req.loaded = `user${id}`;
          next();
        });
        app.get('/u/:id', (req: any, _res: any, next: any) => (req.query.skip ? next('route') : next()));
        app.get('/u/:id', (req: any, res: any) => res.json({ loaded: req.loaded, calls, skip: req.query.skip ?? null }));
        const router = express.Router();
        router.use((req: any, _res: any, next: any) => (req.query.leave ? next('router') : next()));
        router.get('/x', (_req: any, res: any) => res.send('in router'));
        app.use('/r', router);
        app.get('/r/x', (_req: any, res: any) => res.send('after router'));
        return app;
      },
      ['/u/1', '/u/2?skip=1', '/r/x', '/r/x?leave=1'],
    );
  });

  it('mounts sub-routers and sub-apps with baseUrl, originalUrl, path, mountpath, the mount event and inherited settings', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('json spaces', 1);
        const admin = express();
        let mountedOn = '';
        admin.on('mount', (parent: any) => {
          mountedOn = typeof parent.set === 'function' ? 'app' : 'other';
        });
        admin.get('/users/:id', (req: any, res: any) =>
          res.json({ baseUrl: req.baseUrl, originalUrl: req.originalUrl, path: req.path, url: req.url, mountpath: admin.mountpath, mountedOn, spaces: admin.get('json spaces'), appPath: admin.path() }),
        );
        app.use('/admin', admin);
        const api = express.Router({ mergeParams: true });
        api.get('/items/:item', (req: any, res: any) => res.json({ params: req.params, baseUrl: req.baseUrl, path: req.path }));
        app.use('/org/:org', api);
        const plain = express.Router();
        plain.get('/items/:item', (req: any, res: any) => res.json(req.params));
        app.use('/plain/:org', plain);
        app.use((req: any, res: any) => res.json({ baseUrl: req.baseUrl, url: req.url }));
        return app;
      },
      ['/admin/users/3?x=1', '/org/acme/items/9', '/plain/acme/items/9', '/elsewhere'],
    );
  });

  it('follows case sensitive routing and strict routing', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.enable('case sensitive routing');
        app.enable('strict routing');
        app.get('/Foo', (_req: any, res: any) => res.send('Foo'));
        app.get('/bar/', (_req: any, res: any) => res.send('bar/'));
        return app;
      },
      ['/Foo', '/foo', '/bar/', '/bar'],
    );
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/Foo', (_req: any, res: any) => res.send('Foo'));
        app.get('/bar/', (_req: any, res: any) => res.send('bar/'));
        return app;
      },
      ['/Foo', '/foo', '/bar/', '/bar'],
    );
  });

  it('answers HEAD with GET routes and OPTIONS with Allow', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/r', (_req: any, res: any) => res.send('get body'));
        app.post('/r', (_req: any, res: any) => res.send('post'));
        app.route('/s').put((_req: any, res: any) => res.send('put')).delete((_req: any, res: any) => res.send('del'));
        app.options('/own', (_req: any, res: any) => res.send('own options'));
        return app;
      },
      [{ method: 'HEAD', path: '/r' }, { method: 'OPTIONS', path: '/r' }, { method: 'OPTIONS', path: '/s' }, { method: 'OPTIONS', path: '/own' }, { method: 'OPTIONS', path: '/none' }, { method: 'PATCH', path: '/r' }],
    );
  });

  it('answers 404 Cannot GET and 500 (stack outside production, status text in production) like finalhandler', async () => {
    const build = (env: string) => (express: AnyExpress) => {
      const app = express();
      app.set('env', env);
      app.get('/boom', () => {
        throw new Error('sync boom');
      });
      app.get('/status', (_req: any, _res: any, next: any) => next(Object.assign(new Error('teapot'), { status: 418 })));
      app.get('/headers-sent', (_req: any, res: any) => {
        res.status(503).set('x-a', '1');
        throw 'a string';
      });
      return app;
    };
    await compare(build('production'), ['/nope', '/a%20b/<x>', '/boom', '/status', '/headers-sent', { method: 'HEAD', path: '/nope' }, { method: 'POST', path: '/boom' }]);
    const pair = await both(build('development'));
    const [theirs, ours] = await pair.ask('/boom');
    expect(ours.status).toBe(500);
    expect(ours.body.startsWith('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>')).toBe(true);
    expect(ours.body).toContain('<pre>Error: sync boom<br> &nbsp; &nbsp;at ');
    expect(theirs.body).toContain('<pre>Error: sync boom<br> &nbsp; &nbsp;at ');
  });

  it('sends errors to 4-argument error middlewares, skipping normal ones, and back with next()', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/e', (_req: any, _res: any, next: any) => next(new Error('first')));
        app.use((_req: any, res: any) => res.send('skipped'));
        app.use((err: any, _req: any, _res: any, next: any) => next(new Error(`${err.message}+second`)));
        app.use((err: any, _req: any, res: any, _next: any) => res.status(500).json({ error: err.message }));
        app.get('/recover', (_req: any, _res: any, next: any) => next(new Error('x')));
        return app;
      },
      ['/e', '/recover'],
    );
  });

  it('does not catch rejected promises of async handlers, as Express 4 does not (the request hangs until the client gives up)', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/async', async () => {
        throw new Error('rejected');
      });
      return app;
    });
    const onRejection = (): void => {};
    process.on('unhandledRejection', onRejection);
    try {
      for (const base of [pair.express, pair.velox]) {
        const outcome = await fetch(`${base}/async`, { signal: AbortSignal.timeout(300) }).then(
          (r) => r.status,
          (e: Error) => e.name,
        );
        expect(outcome).toBe('TimeoutError');
      }
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('throws what Express 4 throws for a bad handler', async () => {
    const { default: velox } = await import('../../src/index.ts');
    const { default: express4 } = await import('express4');
    for (const express of [express4 as AnyExpress, velox as AnyExpress]) {
      const app = express();
      expect(() => app.get('/x', 42)).toThrow('Route.get() requires a callback function but got a [object Number]');
      expect(() => app.use()).toThrow('app.use() requires a middleware function');
      expect(() => express.Router().use('/x', 'no')).toThrow('Router.use() requires a middleware function but got a string');
    }
  });
});
