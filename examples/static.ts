// A small site served by @velox/static: `pnpm exec tsx examples/static.ts`, then open
// http://127.0.0.1:3000/. Files in examples/static-site/ are watched: edit one and reload.
import { fileURLToPath } from 'node:url';
import { Server } from '@velox/core';
import { serveStatic } from '@velox/static';

const app = new Server();
app.get('/api/time', (req, res) => res.json({ now: new Date().toISOString() }));

const site = serveStatic(fileURLToPath(new URL('./static-site', import.meta.url)), { maxAge: 60_000 });
app.use('/', site); // the app's own routes (/api/time) win where they are more specific
await site.ready();

// SIGINT/SIGTERM: stop accepting, finish in-flight requests (up to 5 s), run onClose hooks, exit 0.
app.closeOnSignals({ timeout: 5000 });

const { port } = await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
console.log(`Static site on http://127.0.0.1:${port}/ (${site.stats().files} files)`);
