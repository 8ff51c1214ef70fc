/**
 * Express 5's routing, compared with express@5 (router 2.x on both sides): path-to-regexp 8
 * syntax, rejected promises sent to the error handlers, params, sub-routers and sub-apps,
 * HEAD and OPTIONS, the final handler.
 */
import realExpress5 from 'express';
import { describe, expect, it } from 'vitest';
import express5 from '../../src/five.ts';
import { type AnyExpress, both, compare } from '../app/harness.ts';

const five = { major: 5 as const };

describe('express/5 routing, compared with express@5', () => {
  it('matches path-to-regexp 8 syntax: params, optional groups, named wildcards, regular expressions, arrays', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/user{/:id}', (req: any, res: any) => res.json({ p: req.params, path: req.route.path }));
        app.get('/files/*rest', (req: any, res: any) => res.json(req.params));
        app.get('/file{.:ext}', (req: any, res: any) => res.json(req.params));
        app.get('/flights/:from-:to', (req: any, res: any) => res.json(req.params));
        app.get(/^\/re\/(\d+)$/, (req: any, res: any) => res.json(req.params));
        app.get(/^\/named\/(?<id>\d+)$/, (req: any, res: any) => res.json(req.params));
        app.get(['/one', '/two/:n'], (req: any, res: any) => res.json(req.params));
        app.get('/enc/:name', (req: any, res: any) => res.json(req.params));
        app.get('/quoted/:"with space"', (req: any, res: any) => res.json(req.params));
        app.get('/escaped\\(x\\)', (_req: any, res: any) => res.send('parens'));
        app.get('/*all', (req: any, res: any) => res.json({ fallback: req.params }));
        return app;
      },
      [
        '/user',
        '/user/5',
        '/user/5/',
        '/files/a/b.txt',
        '/files/',
        '/file',
        '/file.json',
        '/flights/LAX-SFO',
        '/re/42',
        '/named/7',
        '/one',
        '/two/2',
        '/enc/a%20b',
        '/enc/%E0%A4%A',
        '/quoted/x',
        '/escaped(x)',
        '/anything/else/here',
        '/',
      ],
      five,
    );
  });

  it('refuses Express 4 syntax that path-to-regexp 8 no longer reads, at registration, with the same error', () => {
    const ours = express5();
    for (const path of ['/files/*', '/user/:id?', '/ab(cd)?e', '/:']) {
      let theirs: unknown;
      let mine: unknown;
      try {
        realExpress5().get(path, () => {});
      } catch (err) {
        theirs = (err as Error).message;
      }
      try {
        ours.get(path, () => {});
      } catch (err) {
        mine = (err as Error).message;
      }
      expect(theirs, path).toBeTypeOf('string');
      expect(mine, path).toBe(theirs);
    }
  });

  it('sends a rejected promise of a handler, a middleware, an error handler and a param callback to the error handlers', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.param('id', async (req: any, _res: any, next: any, id: string) => {
          if (id === 'bad') throw new Error('param rejected');
          req.loaded = `user${id}`;
          next();
        });
        app.use('/mw', async () => {
          throw Object.assign(new Error('middleware rejected'), { status: 418 });
        });
        app.get('/u/:id', (req: any, res: any) => res.send(req.loaded));
        app.get('/async', async () => {
          await new Promise((r) => setTimeout(r, 5));
          throw new Error('late rejection');
        });
        app.get('/sync', () => {
          throw new Error('thrown');
        });
        app.get('/undefined', () => Promise.reject());
        app.get('/resolved', async (_req: any, res: any) => {
          res.send('resolved value ignored');
          return 42;
        });
        app.get('/chain', async () => {
          throw new Error('first');
        });
        app.use(async (err: any, _req: any, _res: any, next: any) => {
          if (err.message === 'first') throw new Error('error handler rejected');
          next(err);
        });
        app.use((err: any, _req: any, res: any, _next: any) => res.status(err.status ?? 500).json({ caught: err.message }));
        return app;
      },
      ['/u/7', '/u/bad', '/mw', '/async', '/sync', '/undefined', '/resolved', '/chain'],
      five,
    );
  });

  it('runs app.param and router.param once per value, next("route"), next("router"), mergeParams and sub-apps', async () => {
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
        const router = express.Router({ mergeParams: true });
        router.use((req: any, _res: any, next: any) => (req.query.leave ? next('router') : next()));
        router.get('/items/:item', (req: any, res: any) =>
          res.json({ params: req.params, baseUrl: req.baseUrl, originalUrl: req.originalUrl, path: req.path, url: req.url }),
        );
        app.use('/shop/:shop', router);
        app.use('/shop/:shop', (req: any, res: any) => res.json({ left: true, params: req.params }));
        const admin = express();
        admin.on('mount', (parent: any) => {
          admin.locals.parentPath = parent.path();
        });
        admin.get('/', (req: any, res: any) =>
          res.json({ mountpath: admin.mountpath, path: admin.path(), baseUrl: req.baseUrl, env: req.app.get('env'), parent: admin.locals.parentPath }),
        );
        app.set('env', 'staging');
        app.use('/admin', admin);
        return app;
      },
      ['/u/1', '/u/1?skip=1', '/shop/acme/items/9', '/shop/acme/items/9?leave=1', '/admin', '/admin/'],
      five,
    );
  });

  it('answers HEAD from GET routes, OPTIONS with Allow, and 404/405-less misses as Express 5 does', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.route('/book').get((_req: any, res: any) => res.send('book')).put((_req: any, res: any) => res.send('put'));
      app.all('/any', (req: any, res: any) => res.send(req.method));
      app.delete('/gone', (_req: any, res: any) => res.sendStatus(204));
      return app;
    }, five);
    for (const probe of [
      { method: 'HEAD', path: '/book' },
      { method: 'OPTIONS', path: '/book' },
      { method: 'OPTIONS', path: '/any' },
      { method: 'POST', path: '/book' },
      { method: 'PATCH', path: '/any' },
      { method: 'DELETE', path: '/gone' },
      { method: 'GET', path: '/missing?x=1' },
      { method: 'GET', path: '/%E0%A4%A' },
    ]) {
      await pair.same(probe);
    }
  });

  it('follows the case sensitive routing and strict routing settings', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.enable('case sensitive routing');
        app.enable('strict routing');
        app.get('/Exact', (_req: any, res: any) => res.send('exact'));
        app.get('/slash/', (_req: any, res: any) => res.send('slash'));
        const loose = express.Router();
        loose.get('/Loose', (_req: any, res: any) => res.send('loose'));
        app.use('/r', loose);
        return app;
      },
      ['/Exact', '/exact', '/Exact/', '/slash/', '/slash', '/r/Loose', '/r/loose', '/r/Loose/'],
      five,
    );
  });
});
