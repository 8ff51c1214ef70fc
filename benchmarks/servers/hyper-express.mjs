// hyper-express 6.17.3 (on uWebSockets.js), written the way its docs suggest.
import HyperExpress from 'hyper-express';
import { assertNativeUws, serve } from '../lib/server-kit.mjs';
import { MIDDLEWARE_COUNT, ROUTE_COUNT } from '../scenarios.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, 'hyper-express'),
  create: () => new HyperExpress.Server(),
  scenarios: {
    ping(app) {
      app.get('/', (_req, res) => {
        res.send('Hi');
      });
    },

    query(app) {
      app.get('/id/:id', (req, res) => {
        res.header('x-powered', 'velox-bench');
        res.send(`${req.path_parameters.id} ${req.query_parameters.name}`);
      });
    },

    body(app) {
      app.post('/json', async (req, res) => {
        res.json(await req.json());
      });
    },

    middleware(app) {
      for (let i = 1; i <= MIDDLEWARE_COUNT; i++) {
        const name = `x-mw-${i}`;
        app.use((_req, res, next) => {
          res.header(name, '1');
          next();
        });
      }
      app.get('/', (_req, res) => {
        res.send('Hi');
      });
    },

    routes(app) {
      for (let i = 0; i < ROUTE_COUNT; i++) {
        app.get(`/route/${i}`, (_req, res) => {
          res.send('Hi');
        });
      }
    },
  },
  listen: async (app, port) => {
    await app.listen(port, '127.0.0.1');
    return app.port;
  },
});
