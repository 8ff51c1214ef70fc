// The plugin docs/architecture.md shows, installed on a real server.
import { Server } from '@velox/core';
import { afterEach, expect, it } from 'vitest';
import { timing } from './timing.ts';

let app: Server;
afterEach(() => app.close());

it('times every request, under the header it is given', async () => {
  app = new Server({ logger: false });
  await app.register(timing, { header: 'x-time' });
  app.get('/', (req, res) => res.send('ok'));
  app.post('/late', async (req, res) => res.send(await req.text()));
  const { port } = await app.listen(0, '127.0.0.1');
  for (const r of [await fetch(`http://127.0.0.1:${port}/`), await fetch(`http://127.0.0.1:${port}/late`, { method: 'POST', body: 'x' })]) {
    expect(r.headers.get('x-time')).toMatch(/^total;dur=\d+\.\d$/);
  }
});
