// The `ws` package on node:http, written the way its README shows: echo with
// `send(data, { binary: isBinary })`, fan-out as its broadcast example (every subscriber in a set,
// one send each).
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { serve } from '../../lib/server-kit.mjs';
import { ECHO, FANOUT, IDLE, raiseFileLimit } from './common.mjs';

/** An HTTP server whose upgrades go to the WebSocketServer of their path. */
function create() {
  const routes = new Map();
  const server = createServer((req, res) => {
    if (req.url === '/health') res.end('ok');
    else res.writeHead(404).end();
  });
  server.on('upgrade', (req, socket, head) => {
    const wss = routes.get(req.url);
    if (!wss) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  return { server, routes, route: (path) => routes.set(path, new WebSocketServer({ noServer: true })).get(path) };
}

await serve({
  create,
  scenarios: {
    [ECHO]({ route }) {
      route('/echo').on('connection', (ws) => {
        ws.on('message', (data, isBinary) => {
          ws.send(data, { binary: isBinary });
        });
      });
    },
    [FANOUT]({ route }) {
      const subscribers = new Set();
      route('/sub').on('connection', (ws) => {
        subscribers.add(ws);
        ws.on('close', () => subscribers.delete(ws));
      });
      route('/pub').on('connection', (ws) => {
        ws.on('message', (data, isBinary) => {
          for (const client of subscribers) {
            if (client.readyState === 1) client.send(data, { binary: isBinary });
          }
        });
      });
    },
    [IDLE]({ route }) {
      raiseFileLimit();
      route('/idle');
    },
  },
  listen: ({ server }, port) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server.address().port));
    }),
});
