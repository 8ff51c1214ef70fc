// Elysia on Velox's server: its app.fetch runs on Node without Elysia's own Node adapter.
import { serve } from '@velox/fetch';
import { Elysia } from 'elysia';

const app = new Elysia()
  .get('/', () => 'Hi from Elysia')
  .get('/id/:id', ({ params, query }) => ({ id: params.id, name: query.name }))
  .post('/json', ({ body }) => body);

const server = await serve({
  fetch: (request) => app.fetch(request),
  port: Number(process.env.PORT ?? 3000),
  hostname: process.env.HOST ?? '127.0.0.1',
  closeOnSignals: { timeout: 5000 },
});
console.log(`Elysia on Velox listening on http://${server.hostname}:${server.port}`);
