// Velox (@velox/ws on @velox/core), run from the built packages (node --conditions=built).
// The same three routes as raw-uws.mjs, written the way the @velox/ws README shows.
import { Server } from '@velox/core';
import { websocket } from '@velox/ws';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ECHO, FANOUT, IDLE, raiseFileLimit, TOPIC } from './common.mjs';

const health = (app) => app.get('/health', (_req, res) => res.send('ok'));

await serve({
  check: () => assertNativeUws(import.meta.url, '@velox/core'),
  create: () => new Server({ logger: false }),
  scenarios: {
    [ECHO](app) {
      health(app);
      app.ws(
        '/echo',
        websocket({
          message(socket, message, isBinary) {
            socket.send(message, isBinary);
          },
        }),
      );
    },
    [FANOUT](app) {
      health(app);
      app.ws(
        '/sub',
        websocket({
          open(socket) {
            socket.subscribe(TOPIC);
          },
        }),
      );
      app.ws(
        '/pub',
        websocket({
          message(socket, message, isBinary) {
            socket.publish(TOPIC, message, isBinary);
          },
        }),
      );
    },
    [IDLE](app) {
      raiseFileLimit();
      health(app);
      app.ws('/idle', websocket());
    },
  },
  listen: async (app, port) => (await app.listen(port, '127.0.0.1')).port,
});
