// Raw uWebSockets.js answering the fetch suite's routes by hand, with the same answers as the
// Hono app (text/plain `Hi`; JSON with `x-powered`; the JSON echo): the limit the suite is
// measured against.
import { listenRaw, readBody } from '../../lib/raw-uws-kit.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

const uWS = assertNativeUws(import.meta.url);

await serve({
  create: () => uWS.App(),
  scenarios: {
    'fetch-ping'(app) {
      app.get('/', (res) => {
        res.writeHeader('content-type', 'text/plain; charset=UTF-8').end('Hi');
      });
    },
    // The idle-connection probe: the same answer as ping.
    'fetch-idle'(app) {
      app.get('/', (res) => {
        res.writeHeader('content-type', 'text/plain; charset=UTF-8').end('Hi');
      });
    },
    'fetch-query'(app) {
      app.get('/id/:id', (res, req) => {
        const body = JSON.stringify({ id: req.getParameter(0), name: req.getQuery('name') });
        res.writeHeader('x-powered', 'velox-bench').writeHeader('content-type', 'application/json').end(body);
      });
    },
    'fetch-body'(app) {
      app.post('/json', (res) => {
        readBody(res, (text, isAborted) => {
          let out = null;
          try {
            out = JSON.stringify(JSON.parse(text));
          } catch {}
          if (isAborted()) return;
          res.cork(() => {
            if (out === null) res.writeStatus('400 Bad Request').end('invalid body');
            else res.writeHeader('content-type', 'application/json').end(out);
          });
        });
      });
    },
  },
  listen: listenRaw(uWS),
});
