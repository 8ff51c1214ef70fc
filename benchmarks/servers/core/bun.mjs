// Bun's own HTTP server (`Bun.serve`, with its native `routes` table), written the way Bun's docs
// suggest. Not Node.js: frameworks.mjs starts this file with the Bun binary of the pinned
// @oven/bun-linux-x64 package (`runtime: 'bun'`). It implements the core suite's ping, query
// and body, answering exactly what the other servers answer.
import { serve } from '../../lib/server-kit.mjs';

/** A 404 for anything outside the routes, as the other servers give. */
const notFound = () => new Response('Not Found', { status: 404 });

await serve({
  check: () => {
    if (typeof globalThis.Bun?.serve !== 'function') {
      process.stderr.write('servers/core/bun.mjs runs on Bun only (frameworks.mjs starts it with the Bun binary)\n');
      process.exit(3);
    }
  },
  create: () => ({ routes: {} }),
  scenarios: {
    ping(app) {
      app.routes['/'] = { GET: () => new Response('Hi') };
    },

    query(app) {
      app.routes['/id/:id'] = {
        GET: (req) =>
          new Response(`${req.params.id} ${new URL(req.url).searchParams.get('name')}`, {
            headers: { 'x-powered': 'velox-bench' },
          }),
      };
    },

    body(app) {
      app.routes['/json'] = {
        async POST(req) {
          let value;
          try {
            value = await req.json();
          } catch {
            return new Response('invalid body', { status: 400 });
          }
          return Response.json(value);
        },
      };
    },
  },
  listen: async (app, port) => {
    const server = Bun.serve({ hostname: '127.0.0.1', port, development: false, routes: app.routes, fetch: notFound });
    return server.port;
  },
});
