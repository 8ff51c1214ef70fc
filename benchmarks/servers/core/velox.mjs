// Velox (@velox/core). The package exports TypeScript sources, so this file is
// started with `node --import tsx servers/core/velox.mjs <scenario>`.
import { Server } from '@velox/core';
import { Router } from '@velox/router';
import { validate } from '@velox/validate';
import { payloadSchema } from '../../lib/schema.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { MIDDLEWARE_COUNT, ROUTE_COUNT } from '../../scenarios.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: {
    ping(app) {
      app.get('/', (_req, res) => res.send('Hi'));
    },

    query(app) {
      app.get('/id/:id', (req, res) => {
        res.set('x-powered', 'velox-bench');
        res.send(`${req.params.id} ${req.query.name}`);
      });
    },

    body(app) {
      app.post('/json', async (req, res) => res.json(await req.json()));
    },

    middleware(app) {
      for (let i = 1; i <= MIDDLEWARE_COUNT; i++) {
        const name = `x-mw-${i}`;
        app.use((_req, res, next) => {
          res.set(name, '1');
          next();
        });
      }
      app.get('/', (_req, res) => res.send('Hi'));
    },

    routes(app) {
      for (let i = 0; i < ROUTE_COUNT; i++) {
        app.get(`/route/${i}`, (_req, res) => res.send('Hi'));
      }
    },

    flat(app) {
      app.get('/a/b/c/:id', (req, res) => res.send(req.params.id));
    },

    nested(app) {
      const c = new Router();
      c.get('/:id', (req, res) => res.send(req.params.id));
      const b = new Router();
      b.use('/c', c);
      const a = new Router();
      a.use('/b', b);
      app.use('/a', a);
    },

    'router-middleware'(app) {
      const router = new Router();
      for (let i = 1; i <= MIDDLEWARE_COUNT; i++) {
        const name = `x-mw-${i}`;
        router.use((req, res, next) => {
          res.set(name, '1');
          next();
        });
      }
      router.get('/hi', (req, res) => res.send('Hi'));
      app.use('/r', router);
    },

    validated(app) {
      app.post('/json', validate({ body: payloadSchema }), (req, res) => res.json(req.body));
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
