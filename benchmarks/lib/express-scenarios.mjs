// The scenarios written as ordinary Express code, shared by Express and ultimate-express (an
// Express-compatible API on uWebSockets.js): `express` is whichever module the server imports.
import { payloadSchema } from '../lib/schema.mjs';
import { MIDDLEWARE_COUNT, ROUTE_COUNT } from '../scenarios.mjs';

export function expressScenarios(express) {
  return {
    ping(app) {
      app.get('/', (_req, res) => {
        res.send('Hi');
      });
    },

    query(app) {
      app.get('/id/:id', (req, res) => {
        res.set('x-powered', 'velox-bench');
        res.send(`${req.params.id} ${req.query.name}`);
      });
    },

    body(app) {
      app.post('/json', express.json(), (req, res) => {
        res.json(req.body);
      });
    },

    middleware(app) {
      for (let i = 1; i <= MIDDLEWARE_COUNT; i++) {
        const name = `x-mw-${i}`;
        app.use((_req, res, next) => {
          res.set(name, '1');
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
        res.send(req.params.id);
      });
    },

    nested(app) {
      const c = express.Router();
      c.get('/:id', (req, res) => {
        res.send(req.params.id);
      });
      const b = express.Router();
      b.use('/c', c);
      const a = express.Router();
      a.use('/b', b);
      app.use('/a', a);
    },

    'router-middleware'(app) {
      const router = express.Router();
      for (let i = 1; i <= MIDDLEWARE_COUNT; i++) {
        const name = `x-mw-${i}`;
        router.use((_req, res, next) => {
          res.set(name, '1');
          next();
        });
      }
      router.get('/hi', (_req, res) => {
        res.send('Hi');
      });
      app.use('/r', router);
    },

    validated(app) {
      app.post('/json', express.json(), (req, res) => {
        const result = payloadSchema.safeParse(req.body);
        if (!result.success) return res.status(400).json({ issues: result.error.issues });
        res.json(result.data);
      });
    },
  };
}
