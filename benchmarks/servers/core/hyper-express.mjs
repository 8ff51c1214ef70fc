// hyper-express 6.17.3 (on uWebSockets.js), written the way its docs suggest.
import HyperExpress from 'hyper-express';
import { payloadSchema } from '../../lib/schema.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { MIDDLEWARE_COUNT, ROUTE_COUNT } from '../../scenarios.mjs';

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

    flat(app) {
      app.get('/a/b/c/:id', (req, res) => {
        res.send(req.path_parameters.id);
      });
    },

    nested(app) {
      const c = new HyperExpress.Router();
      c.get('/:id', (req, res) => {
        res.send(req.path_parameters.id);
      });
      const b = new HyperExpress.Router();
      b.use('/c', c);
      const a = new HyperExpress.Router();
      a.use('/b', b);
      app.use('/a', a);
    },

    'router-middleware'(app) {
      const router = new HyperExpress.Router();
      for (let i = 1; i <= MIDDLEWARE_COUNT; i++) {
        const name = `x-mw-${i}`;
        router.use((_req, res, next) => {
          res.header(name, '1');
          next();
        });
      }
      router.get('/hi', (_req, res) => {
        res.send('Hi');
      });
      app.use('/r', router);
    },

    validated(app) {
      // No built-in validation: Zod in the handler, as its docs suggest for schemas.
      app.post('/json', async (req, res) => {
        const result = payloadSchema.safeParse(await req.json());
        if (!result.success) return res.status(400).json({ issues: result.error.issues });
        res.json(result.data);
      });
    },
  },
  listen: async (app, port) => {
    await app.listen(port, '127.0.0.1');
    return app.port;
  },
});
