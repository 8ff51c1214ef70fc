// The express-app suite (issue 24, `express-dropin`): one small Express 4 app, unchanged, on
// express@4, express@5, ultimate-express and @velox/express (the drop-in `express()`), with
// native Velox answering the same requests through its own API for reference. Scenarios: ping,
// query, body (express.json()), a middleware chain, a router of 50 routes, a static file.
import { idleProbe } from '../lib/idle-probe.mjs';
import { JSON_PAYLOAD } from './core.mjs';

const BODY = JSON.stringify(JSON_PAYLOAD);
const MIDDLEWARES = 5;
const ROUTES = 50;
const mwHeaders = Object.fromEntries(Array.from({ length: MIDDLEWARES }, (_, i) => [`x-mw-${i + 1}`, '1']));
const CSS = `${'body { color: #333 }\n'.repeat(64)}`.slice(0, 1024);

/** The same server files for every scenario. */
const SERVERS = {
  'velox-express': 'express-app/velox-express.mjs',
  'velox-express5': 'express-app/velox-express5.mjs',
  'ultimate-express': 'express-app/ultimate-express.mjs',
  express4: 'express-app/express4.mjs',
  express: 'express-app/express5.mjs',
  velox: 'express-app/velox.mjs',
};

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'express-app',
  title: 'An Express 4 app on @velox/express (the drop-in express())',
  frameworks: [
    { id: 'velox-express', label: '@velox/express (express())', pkg: '@velox/express', nodeArgs: ['--conditions=built'] },
    { id: 'velox-express5', label: '@velox/express/5 (Express 5 entry)', pkg: '@velox/express', nodeArgs: ['--conditions=built'] },
    { id: 'express4', label: 'Express 4', pkg: 'express4' },
  ],
  scenarios: [
    {
      name: 'xapp-ping',
      summary: "GET / answers `Hi` with res.send('Hi') (Express's ETag and X-Powered-By included where the framework sends them; @velox/express and ultimate-express answer this lone constant route from uWS's declarative responses, @velox/express without the ETag).",
      servers: SERVERS,
      baseline: 'velox',
      request: { method: 'GET', path: '/' },
      expect: { status: 200, body: 'Hi' },
    },
    {
      name: 'xapp-query',
      summary: 'GET /id/:id?name=… reads req.params.id and req.query.name (qs), sets x-powered and answers `<id> <name>`.',
      servers: SERVERS,
      baseline: 'velox',
      request: { method: 'GET', path: '/id/123?name=velox' },
      expect: { status: 200, body: '123 velox', headers: { 'x-powered': 'velox-bench' } },
      extraChecks: [{ request: { method: 'GET', path: '/id/abc?name=other' }, expect: { status: 200, body: 'abc other' } }],
    },
    {
      name: 'xapp-body',
      summary: `POST /json with a ${BODY.length}-byte JSON body through express.json(); the route answers res.json(req.body).`,
      servers: SERVERS,
      baseline: 'velox',
      request: { method: 'POST', path: '/json', contentType: 'application/json', body: BODY },
      expect: { status: 200, json: JSON_PAYLOAD, contentType: 'application/json' },
      extraChecks: [
        {
          request: { method: 'POST', path: '/json', contentType: 'application/json', body: '{"n":[1,2,3],"s":"é"}' },
          expect: { status: 200, json: { n: [1, 2, 3], s: 'é' }, contentType: 'application/json' },
        },
      ],
    },
    {
      name: 'xapp-middleware',
      summary: `${MIDDLEWARES} app.use() middlewares each set one header, then GET / answers \`Hi\`.`,
      servers: SERVERS,
      baseline: 'velox',
      request: { method: 'GET', path: '/' },
      expect: { status: 200, body: 'Hi', headers: mwHeaders },
    },
    {
      name: 'xapp-routes',
      summary: `An express.Router() of ${ROUTES} routes /route/0 … /route/${ROUTES - 1} mounted at /api; the request hits the last one.`,
      servers: SERVERS,
      baseline: 'velox',
      request: { method: 'GET', path: `/api/route/${ROUTES - 1}` },
      expect: { status: 200, body: 'Hi' },
      extraChecks: [{ request: { method: 'GET', path: '/api/route/0' }, expect: { status: 200, body: 'Hi' } }],
    },
    {
      name: 'xapp-static',
      summary: "GET /static/site.css (1 KiB) from express.static('dir') mounted at /static (@velox/static's serveStatic for native Velox).",
      servers: SERVERS,
      baseline: 'velox',
      request: { method: 'GET', path: '/static/site.css' },
      expect: { status: 200, body: CSS, contentType: 'text/css' },
    },
  ],
  targets: [
    ...['xapp-query', 'xapp-body', 'xapp-middleware', 'xapp-routes', 'xapp-static'].map((scenario) => ({
      label: `${scenario}: @velox/express ≥ 1.5× ultimate-express`,
      a: [scenario, 'velox-express'],
      b: [scenario, 'ultimate-express'],
      min: 1.5,
      issue: 'express-dropin',
    })),
    // Issue 43 (first contact) withdrew the 1.5× on ping (ultimate-express answers a lone route
    // from uWS's declarative responses) and asks for @velox/express ahead of it there.
    { label: 'xapp-ping: @velox/express ahead of ultimate-express (≥ 1.0×)', a: ['xapp-ping', 'velox-express'], b: ['xapp-ping', 'ultimate-express'], min: 1.0, issue: 'first-contact' },
    { label: 'xapp-ping: @velox/express ≥ 0.8× native Velox', a: ['xapp-ping', 'velox-express'], b: ['xapp-ping', 'velox'], min: 0.8, issue: 'express-dropin' },
    { label: 'xapp-query: @velox/express ≥ 0.8× native Velox', a: ['xapp-query', 'velox-express'], b: ['xapp-query', 'velox'], min: 0.8, issue: 'express-dropin' },
  ],
  references: [
    { label: 'xapp-ping: @velox/express / Express 4', a: ['xapp-ping', 'velox-express'], b: ['xapp-ping', 'express4'] },
    { label: 'xapp-body: @velox/express / Express 4', a: ['xapp-body', 'velox-express'], b: ['xapp-body', 'express4'] },
    ...['xapp-ping', 'xapp-query', 'xapp-body', 'xapp-middleware', 'xapp-routes', 'xapp-static'].map((scenario) => ({
      label: `${scenario}: @velox/express/5 / Express 5`,
      a: [scenario, 'velox-express5'],
      b: [scenario, 'express'],
    })),
  ],
  probes: [
    idleProbe({
      name: 'xapp-idle',
      servers: SERVERS,
      connections: 5000,
      notes: "Node's http server (Express 4 and 5) closes idle keep-alive connections after 5 s and uWS after 10 s, so the count of connections still open when RSS was read is shown.",
    }),
  ],
};
