// Hono on Velox's server: `serve()` runs any web-standards app (fetch(request) => Response).
// PORT and HOST come from the environment (default 3000 on 127.0.0.1).
import { serve } from '@velox/fetch';
import { getConnInfo } from '@velox/fetch/conninfo';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.text('Hi from Hono'));
app.get('/id/:id', (c) => {
  c.header('x-powered', 'velox');
  return c.json({ id: c.req.param('id'), name: c.req.query('name') });
});
app.post('/json', async (c) => c.json(await c.req.json()));
app.get('/ip', (c) => c.text(getConnInfo(c).remote.address));

const server = await serve({
  fetch: app.fetch,
  port: Number(process.env.PORT ?? 3000),
  hostname: process.env.HOST ?? '127.0.0.1',
  closeOnSignals: { timeout: 5000 }, // SIGINT/SIGTERM: finish in-flight requests, exit 0
});
console.log(`Hono on Velox listening on http://${server.hostname}:${server.port}`);
