// itty-router on Velox's server.
import { serve } from '@velox/fetch';
import { AutoRouter } from 'itty-router';

const router = AutoRouter();
router
  .get('/', () => new Response('Hi from itty-router'))
  .get('/id/:id', ({ params, query }) => ({ id: params.id, name: query.name }))
  .post('/json', async (request) => request.json());

const server = await serve({
  fetch: (request) => router.fetch(request),
  port: Number(process.env.PORT ?? 3000),
  hostname: process.env.HOST ?? '127.0.0.1',
  closeOnSignals: { timeout: 5000 },
});
console.log(`itty-router on Velox listening on http://${server.hostname}:${server.port}`);
