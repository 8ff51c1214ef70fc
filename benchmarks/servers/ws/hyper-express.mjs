// hyper-express 6.17.3 websockets, written the way its docs suggest (default options: messages
// arrive as strings). Fan-out publishes with the server's publish().
import HyperExpress from 'hyper-express';
import { assertNativeUws, serve } from '../../lib/server-kit.mjs';
import { ECHO, FANOUT, IDLE, raiseFileLimit, TOPIC } from './common.mjs';

const health = (app) =>
  app.get('/health', (_req, res) => {
    res.send('ok');
  });

await serve({
  check: () => assertNativeUws(import.meta.url, 'hyper-express'),
  create: () => new HyperExpress.Server(),
  scenarios: {
    [ECHO](app) {
      health(app);
      app.ws('/echo', (ws) => {
        ws.on('message', (message, isBinary) => {
          ws.send(message, isBinary);
        });
      });
    },
    [FANOUT](app) {
      health(app);
      app.ws('/sub', (ws) => {
        ws.subscribe(TOPIC);
      });
      app.ws('/pub', (ws) => {
        ws.on('message', (message, isBinary) => {
          app.publish(TOPIC, message, isBinary);
        });
      });
    },
    [IDLE](app) {
      raiseFileLimit();
      health(app);
      app.ws('/idle', () => {});
    },
  },
  listen: async (app, port) => {
    await app.listen(port, '127.0.0.1');
    return app.port;
  },
});
