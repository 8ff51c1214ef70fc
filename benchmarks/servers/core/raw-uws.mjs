// Raw uWebSockets.js: the hand-written fastest version of each scenario, used
// as the baseline every other framework is compared with.

import { listenRaw, readBody, validatedAnswer } from '../../lib/raw-uws-kit.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ROUTE_COUNT } from '../../scenarios.mjs';

const uWS = assertNativeUws(import.meta.url);

/**
 * Reads a JSON body the way a raw uWS server does (see lib/raw-body.mjs), turns it into the
 * answer with `answer` (null: 400), and sends it corked.
 */
function readJson(res, answer) {
  readBody(res, (text, isAborted) => {
    let out = null;
    try {
      out = answer(JSON.parse(text));
    } catch {}
    if (isAborted()) return;
    res.cork(() => {
      if (out === null) res.writeStatus('400 Bad Request').end('invalid body');
      else res.writeHeader('content-type', 'application/json').end(out);
    });
  });
}

await serve({
  create: () => uWS.App(),
  scenarios: {
    ping(app) {
      app.get('/', (res) => {
        res.end('Hi');
      });
    },

    query(app) {
      app.get('/id/:id', (res, req) => {
        const id = req.getParameter(0);
        const name = req.getQuery('name');
        res.writeHeader('x-powered', 'velox-bench').end(`${id} ${name}`);
      });
    },

    body(app) {
      app.post('/json', (res) => {
        readJson(res, (value) => JSON.stringify(value));
      });
    },

    middleware(app) {
      app.get('/', (res) => {
        res
          .writeHeader('x-mw-1', '1')
          .writeHeader('x-mw-2', '1')
          .writeHeader('x-mw-3', '1')
          .writeHeader('x-mw-4', '1')
          .writeHeader('x-mw-5', '1')
          .end('Hi');
      });
    },

    routes(app) {
      for (let i = 0; i < ROUTE_COUNT; i++) {
        app.get(`/route/${i}`, (res) => {
          res.end('Hi');
        });
      }
    },

    flat(app) {
      app.get('/a/b/c/:id', (res, req) => {
        res.end(req.getParameter(0));
      });
    },

    validated(app) {
      app.post('/json', (res) => {
        readJson(res, validatedAnswer);
      });
    },
  },
  listen: listenRaw(uWS),
});
