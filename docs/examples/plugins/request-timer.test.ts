// #region code
import { Server } from '@velox/core';
import { afterEach, expect, it } from 'vitest';
import { requestTimer } from './request-timer.ts';

let app: Server;
afterEach(() => app.close());

it('adds a Server-Timing header', async () => {
  app = new Server({ logger: false });
  await app.register(requestTimer, {});
  app.get('/', (req, res) => res.send('ok'));
  const { port } = await app.listen(0, '127.0.0.1');
  const r = await fetch(`http://127.0.0.1:${port}/`);
  expect(r.headers.get('server-timing')).toMatch(/^total;dur=\d+\.\d$/);
});

it('refuses a header name that is not one, at start-up', () => {
  app = new Server({ logger: false });
  expect(() => app.register(requestTimer, { header: 'bad header' })).toThrow(/header must be a header name/);
});
// #endregion
