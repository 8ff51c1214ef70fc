// A Hono app mounted inside a Velox app, beside native Velox routes: `fetchHandler()`.
import { Server } from '@velox/core';
import { fetchHandler } from '@velox/fetch';
import { Hono } from 'hono';

const api = new Hono().basePath('/api');
api.get('/hello/:name', (c) => c.json({ hello: c.req.param('name') }));
api.post('/echo', async (c) => c.text(await c.req.text()));

const app = new Server();
app.get('/', (req, res) => res.send('Velox here; the API is under /api'));
app.all('/api/*', fetchHandler(api.fetch));
app.closeOnSignals({ timeout: 5000 });

const host = process.env.HOST ?? '127.0.0.1';
const { port } = await app.listen(Number(process.env.PORT ?? 3000), host);
console.log(`Velox with a Hono API listening on http://${host}:${port}`);
