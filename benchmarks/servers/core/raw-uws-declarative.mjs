// Raw uWebSockets.js with DeclarativeResponse (uWS ≥ v20.44): the answer is compiled into
// instructions that uWS runs in C++, so no JavaScript runs per request. It can only say the same
// thing to every request (headers, a body, and the values of path parameters, query parameters or
// request headers copied in), so it fits ping and query, not a body, a conditional GET, a range
// or an encoding negotiation. Opt-in row of the core suite: it measures what skipping
// JavaScript entirely is worth next to the raw baseline and Velox.

import { listenRaw } from '../../lib/raw-uws-kit.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';

const uWS = assertNativeUws(import.meta.url);
if (typeof uWS.DeclarativeResponse !== 'function') throw new Error('this uWebSockets.js build has no DeclarativeResponse');

await serve({
  create: () => uWS.App(),
  scenarios: {
    ping(app) {
      app.get('/', new uWS.DeclarativeResponse().end('Hi'));
    },

    query(app) {
      app.get(
        '/id/:id',
        new uWS.DeclarativeResponse().writeHeader('x-powered', 'velox-bench').writeParameterValue('id').write(' ').writeQueryValue('name').end(''),
      );
    },
  },
  listen: listenRaw(uWS),
});
