// One process, ready for production: the port from the environment, the proxy in front trusted,
// a health check, and a clean shutdown on SIGTERM (what systemd, Docker and Kubernetes send).
import { Server } from '@velox/core';

const app = new Server({
  // The proxy in front (nginx on the same host here) sets X-Forwarded-For/-Proto/-Host; believe
  // only it. Give its address or range instead of 'loopback' when it runs on another host.
  trustProxy: process.env.TRUST_PROXY ?? 'loopback',
});

app.get('/healthz', (req, res) => res.json({ ok: true }));
app.get('/whoami', (req, res) => res.json({ ip: req.ip, protocol: req.protocol, hostname: req.hostname }));

// SIGTERM or SIGINT: stop accepting, let in-flight requests finish (up to 10 s), run onClose
// hooks, exit 0. An uncaught error: logged, the same graceful shutdown, exit 1.
app.closeOnSignals({ timeout: 10_000 });

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1'; // behind a proxy on the same host; '0.0.0.0' in a container
await app.listen(port, host, ({ port: bound }) => console.log(`listening on http://${host}:${bound}`));
