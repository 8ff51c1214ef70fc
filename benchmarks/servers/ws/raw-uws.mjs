// Raw uWebSockets.js: the floor. Echo sends each message back as it came; fan-out publishes
// each message of the publisher (/pub) to every socket of /sub with app.publish; the idle probe
// holds connections that do nothing. GET /health answers `ok` for the runner's check.
import { listenRaw } from '../../lib/raw-uws-kit.mjs';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ECHO, FANOUT, IDLE, raiseFileLimit, TOPIC } from './common.mjs';

const uWS = assertNativeUws(import.meta.url);

const health = (app) => app.get('/health', (res) => res.end('ok'));

await serve({
  create: () => uWS.App(),
  scenarios: {
    [ECHO](app) {
      health(app);
      app.ws('/echo', {
        message: (ws, message, isBinary) => {
          ws.send(message, isBinary);
        },
      });
    },
    [FANOUT](app) {
      health(app);
      app.ws('/sub', {
        open: (ws) => {
          ws.subscribe(TOPIC);
        },
      });
      app.ws('/pub', {
        message: (_ws, message, isBinary) => {
          app.publish(TOPIC, message, isBinary);
        },
      });
    },
    [IDLE](app) {
      raiseFileLimit();
      health(app);
      app.ws('/idle', {});
    },
  },
  listen: listenRaw(uWS),
});
