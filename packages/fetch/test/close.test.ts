import { join } from 'node:path';
import { exitCode, run } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';

/** Runs a script in a child process; resolves with its exit code, or 'hung' if it still runs after `limit` ms. */
function runScript(script: string, limit = 15_000): Promise<number | null | 'hung'> {
  return exitCode(run({ script }, {}, { cwd: join(import.meta.dirname, '..') }), limit);
}

describe('close()', () => {
  it('leaves nothing running: the process exits on its own after serve() with timeout, signals, light Response and WebSockets', async () => {
    const code = await runScript(`
      import { Hono } from 'hono';
      import WebSocket from 'ws';
      import { serve } from './src/index.ts';
      import { createVeloxWebSocket } from './src/hono-ws.ts';
      const app = new Hono();
      const { upgradeWebSocket, websocket } = createVeloxWebSocket({ app });
      app.get('/', (c) => c.text('Hi'));
      app.post('/json', async (c) => c.json(await c.req.json()));
      app.get('/stream', () => new Response(new Blob(['s']).stream()));
      app.get('/ws', upgradeWebSocket(() => ({ onMessage: (e, ws) => ws.send(String(e.data)) })));
      const server = await serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', logger: false, timeout: 60_000, closeOnSignals: true, lightResponse: true, websocket });
      const base = 'http://127.0.0.1:' + server.port;
      if ((await (await fetch(base + '/')).text()) !== 'Hi') process.exit(2);
      if ((await (await fetch(base + '/json', { method: 'POST', body: '{"a":1}' })).text()) !== '{"a":1}') process.exit(3);
      if ((await (await fetch(base + '/stream')).text()) !== 's') process.exit(4);
      const ws = new WebSocket('ws://127.0.0.1:' + server.port + '/ws');
      await new Promise((resolve) => ws.on('open', resolve));
      ws.send('x');
      await new Promise((resolve) => ws.on('message', resolve));
      await server.close();
      if (globalThis.Response.name !== 'Response') process.exit(5);
    `);
    expect(code).toBe(0);
  });
});
