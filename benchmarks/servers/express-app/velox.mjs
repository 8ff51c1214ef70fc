// Native Velox answering the same requests with its own API (no Express surface): the ceiling
// the drop-in is measured against.
import { Server } from '@velox/core';
import { Router } from '@velox/router';
import { serveStatic } from '@velox/static';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { MIDDLEWARES, ROUTES, staticDir } from './app.mjs';

let pending;

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: {
    'xapp-ping'(app) {
      app.get('/', (req, res) => res.send('Hi'));
    },
    'xapp-idle'(app) {
      app.get('/', (req, res) => res.send('Hi'));
    },
    'xapp-query'(app) {
      app.get('/id/:id', (req, res) => res.set('x-powered', 'velox-bench').send(`${req.params.id} ${req.query.name}`));
    },
    'xapp-body'(app) {
      app.post('/json', async (req, res) => res.json(await req.json()));
    },
    'xapp-middleware'(app) {
      for (let i = 1; i <= MIDDLEWARES; i++) {
        app.use((req, res, next) => {
          res.set(`x-mw-${i}`, '1');
          next();
        });
      }
      app.get('/', (req, res) => res.send('Hi'));
    },
    'xapp-routes'(app) {
      const router = new Router();
      for (let i = 0; i < ROUTES; i++) router.get(`/route/${i}`, (req, res) => res.send('Hi'));
      app.use('/api', router);
    },
    'xapp-static'(app) {
      const files = serveStatic(staticDir());
      app.use('/static', files);
      pending = files.ready();
    },
  },
  listen: async (app, port) => {
    await pending;
    return (await app.listen(port, '127.0.0.1')).port;
  },
});
