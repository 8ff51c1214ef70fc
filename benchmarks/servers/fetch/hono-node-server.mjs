// The Hono app on @hono/node-server, Hono's own adapter for Node (its defaults: the global
// Request and Response replaced by its lighter classes).
import { serve as honoServe } from '@hono/node-server';
import { serve } from '../../lib/server-kit.mjs';
import { honoScenarios } from './app.mjs';

await serve({
  create: () => ({ app: null }),
  scenarios: honoScenarios(),
  listen: (holder, port) =>
    new Promise((resolve) => {
      honoServe({ fetch: holder.app.fetch, port, hostname: '127.0.0.1' }, (info) => resolve(info.port));
    }),
});
