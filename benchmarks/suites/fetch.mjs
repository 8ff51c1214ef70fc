// The fetch suite (@velox/fetch): one Hono app (servers/fetch/app.mjs) on Velox's serve(), inside
// a Velox server through fetchHandler(), on @hono/node-server and on Bun.serve, against raw uWS
// answering the same routes by hand (the limit). See benchmarks/README.md, "Suites".

import { idleProbe } from '../lib/idle-probe.mjs';

const IDLE_CONNECTIONS = 5000;

const JSON_PAYLOAD = { id: 123, name: 'velox', tags: ['a', 'b'], ok: true };

const SERVERS = {
  uws: 'fetch/raw-uws.mjs',
  'velox-fetch': 'fetch/velox-serve.mjs',
  'velox-fetch-native': 'fetch/velox-serve-native.mjs',
  'velox-fetch-handler': 'fetch/velox-handler.mjs',
  'hono-node-server': 'fetch/hono-node-server.mjs',
  'hono-bun': 'fetch/hono-bun.mjs',
};

/** @type {import('../lib/suites.mjs').Suite} */
export default {
  name: 'fetch',
  title: '@velox/fetch',
  frameworks: [
    { id: 'velox-fetch', label: 'Velox serve() + Hono', pkg: '@velox/fetch', nodeArgs: ['--conditions=built'] },
    { id: 'velox-fetch-native', label: 'Velox serve({ lightResponse: false }) + Hono', pkg: '@velox/fetch', nodeArgs: ['--conditions=built'] },
    { id: 'velox-fetch-handler', label: 'Velox fetchHandler() + Hono', pkg: '@velox/fetch', nodeArgs: ['--conditions=built'] },
    { id: 'hono-node-server', label: '@hono/node-server + Hono', pkg: '@hono/node-server' },
    { id: 'hono-bun', label: 'Bun.serve + Hono', pkg: '@oven/bun-linux-x64', runtime: 'bun' },
  ],
  scenarios: [
    {
      name: 'fetch-ping',
      summary: 'GET / answers the text `Hi` (Hono: `c.text`).',
      servers: SERVERS,
      request: { method: 'GET', path: '/' },
      expect: { status: 200, body: 'Hi', contentType: 'text/plain' },
    },
    {
      name: 'fetch-query',
      summary: 'GET /id/:id?name=… answers JSON `{ id, name }` with the header `x-powered: velox-bench` (Hono: `c.req.param`, `c.req.query`, `c.header`, `c.json`).',
      servers: SERVERS,
      request: { method: 'GET', path: '/id/123?name=velox' },
      expect: { status: 200, json: { id: '123', name: 'velox' }, contentType: 'application/json', headers: { 'x-powered': 'velox-bench' } },
      extraChecks: [
        {
          request: { method: 'GET', path: '/id/abc?name=other' },
          expect: { status: 200, json: { id: 'abc', name: 'other' }, headers: { 'x-powered': 'velox-bench' } },
        },
      ],
    },
    {
      name: 'fetch-body',
      summary: `POST /json with a ${JSON.stringify(JSON_PAYLOAD).length}-byte JSON body, parsed and sent back (Hono: \`await c.req.json()\`, \`c.json\`).`,
      servers: SERVERS,
      request: { method: 'POST', path: '/json', contentType: 'application/json', body: JSON.stringify(JSON_PAYLOAD) },
      expect: { status: 200, json: JSON_PAYLOAD, contentType: 'application/json' },
      extraChecks: [
        {
          request: { method: 'POST', path: '/json', contentType: 'application/json', body: '{"n":[1,2,3],"s":"é"}' },
          expect: { status: 200, json: { n: [1, 2, 3], s: 'é' }, contentType: 'application/json' },
        },
      ],
    },
  ],
  // The targets: serve() ≥ 0.85 × raw uWS on ping and query, ≥ 0.75 on body; ahead of
  // Hono on Bun everywhere; at least 3 × @hono/node-server.
  targets: [
    { label: 'serve() ≥ 0.85 × raw uWS (ping)', a: ['fetch-ping', 'velox-fetch'], b: ['fetch-ping', 'uws'], min: 0.85 },
    { label: 'serve() ≥ 0.85 × raw uWS (query)', a: ['fetch-query', 'velox-fetch'], b: ['fetch-query', 'uws'], min: 0.85 },
    { label: 'serve() ≥ 0.75 × raw uWS (body)', a: ['fetch-body', 'velox-fetch'], b: ['fetch-body', 'uws'], min: 0.75 },
    ...['fetch-ping', 'fetch-query', 'fetch-body'].flatMap((s) => [
      { label: `serve() ahead of Hono on Bun (${s.slice(6)})`, a: [s, 'velox-fetch'], b: [s, 'hono-bun'], min: 1, strict: true },
      { label: `serve() ≥ 3 × @hono/node-server (${s.slice(6)})`, a: [s, 'velox-fetch'], b: [s, 'hono-node-server'], min: 3 },
    ]),
  ],
  references: [
    ...['fetch-ping', 'fetch-query', 'fetch-body'].map((s) => ({ label: `serve({ lightResponse: false }) / raw uWS (${s.slice(6)})`, a: [s, 'velox-fetch-native'], b: [s, 'uws'] })),
    { label: 'fetchHandler() / serve() (ping)', a: ['fetch-ping', 'velox-fetch-handler'], b: ['fetch-ping', 'velox-fetch'] },
    { label: 'fetchHandler() / serve() (body)', a: ['fetch-body', 'velox-fetch-handler'], b: ['fetch-body', 'velox-fetch'] },
  ],
  probes: [
    idleProbe({
      name: 'fetch-idle',
      servers: SERVERS,
      connections: IDLE_CONNECTIONS,
      notes: 'Node\'s http server (@hono/node-server) closes idle keep-alive connections after 5 s and uWS after 10 s, so the count of connections still open when RSS was read is shown.',
    }),
  ],
};
