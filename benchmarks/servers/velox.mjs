// Velox (@velox/core). The package exports TypeScript sources, so this file is
// started with `node --import tsx servers/velox.mjs <scenario>`.
import { Server } from '@velox/core';
import { assertNativeUws, serve } from '../lib/server-kit.mjs';
import { MIDDLEWARE_COUNT, ROUTE_COUNT } from '../scenarios.mjs';

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
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
