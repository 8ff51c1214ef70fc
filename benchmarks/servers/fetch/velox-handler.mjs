// The Hono app mounted in a Velox server with fetchHandler(), as a Velox app beside its own
// routes would run it (app.all('/*', …): every request goes to the app), with LightResponse
// installed as the README shows for fetchHandler() (serve() installs it itself).
import { Server } from '@velox/core';
import { fetchHandler, installLightResponse } from '@velox/fetch';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { honoScenarios } from './app.mjs';

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => ({ app: null }),
  scenarios: honoScenarios(),
  listen: async (holder, port) => {
    const app = new Server({ logger: false });
    app.addHook('onClose', installLightResponse());
    app.all('/*', fetchHandler(holder.app.fetch));
    return (await app.listen(port, '127.0.0.1')).port;
  },
});
