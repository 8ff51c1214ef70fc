// H3 v2 on Velox's server: its app.fetch is the fetch function serve() takes.
import { serve } from '@velox/fetch';
import { getQuery, getRouterParam, H3, readBody } from 'h3';

const app = new H3()
  .get('/', () => 'Hi from H3')
  .get('/id/:id', (event) => ({ id: getRouterParam(event, 'id'), name: getQuery(event).name }))
  .post('/json', (event) => readBody(event));

const server = await serve({
  fetch: (request) => app.fetch(request),
  port: Number(process.env.PORT ?? 3000),
  hostname: process.env.HOST ?? '127.0.0.1',
  closeOnSignals: { timeout: 5000 },
});
console.log(`H3 on Velox listening on http://${server.hostname}:${server.port}`);
