// The small Express app of the express-app suite (issue 24), written once as ordinary Express 4
// code and built with whichever `express` module a server file passes in: express@4,
// express@5, ultimate-express or @velox/express (the drop-in). One function per scenario.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROUTES = 50;
export const MIDDLEWARES = 5;

/**
 * A directory with the static scenario's file (1 KiB of CSS), made once per machine. Written only
 * when missing or different: every server of a round calls this as it starts, and rewriting the
 * file (truncated, then written) under a server that serves it gave that server an empty read.
 */
export function staticDir() {
  const dir = join(tmpdir(), 'velox-bench-express-app');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'site.css');
  const css = `${'body { color: #333 }\n'.repeat(64)}`.slice(0, 1024);
  let current;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== css) writeFileSync(file, css);
  return dir;
}

/** Each scenario's routes, on an app made by `express()`. */
export function expressAppScenarios(express) {
  return {
    'xapp-ping'(app) {
      app.get('/', (req, res) => res.send('Hi'));
    },
    // The idle-connection probe (lib/idle-probe.mjs): the same answer as ping.
    'xapp-idle'(app) {
      app.get('/', (req, res) => res.send('Hi'));
    },
    'xapp-query'(app) {
      app.get('/id/:id', (req, res) => {
        res.set('x-powered', 'velox-bench');
        res.send(`${req.params.id} ${req.query.name}`);
      });
    },
    'xapp-body'(app) {
      app.use(express.json());
      app.post('/json', (req, res) => res.json(req.body));
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
      const router = express.Router();
      for (let i = 0; i < ROUTES; i++) router.get(`/route/${i}`, (req, res) => res.send('Hi'));
      app.use('/api', router);
    },
    'xapp-static'(app) {
      app.use('/static', express.static(staticDir()));
    },
  };
}

/** `app.listen(port, host, cb)` as Node's http (express 4 and 5, @velox/express) answers it. */
export function listenNodeStyle(app, port) {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, '127.0.0.1', () => resolve(server.address().port));
    server.on('error', reject);
  });
}
