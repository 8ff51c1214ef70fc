import { VeloxError } from '@velox/core';
import { describeErrorCodes, listen } from '@velox/test-utils';
import { expect, it } from 'vitest';
import { SessionErrorCodes, session } from '../src/index.ts';
import { Browser, CountingStore, SECRET, server } from './helpers.ts';

describeErrorCodes('SessionErrorCodes', SessionErrorCodes, { readme: new URL('../README.md', import.meta.url), prefix: 'VELOX_ERR_SESSION_' }, () => {
  it('raises VeloxErrors with the code and status: start-up errors thrown, request errors answered', async () => {
    const thrown = await server()
      .register(session, { secret: 'short' })
      .catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(SessionErrorCodes.INVALID_OPTION);

    const store = new CountingStore();
    const a = server();
    await a.register(session, { secret: SECRET, store });
    let caught: unknown;
    a.get('/', async (req, res) => {
      try {
        await req.session.start();
      } catch (err) {
        caught = err;
        throw err;
      }
      req.session.set('x', 1);
      res.send('yes');
    });
    const browser = new Browser(await listen(a));
    expect((await browser.get('/')).body).toBe('yes');
    store.failing = true;
    const r = await browser.get('/');
    expect(r.status).toBe(503);
    expect(caught).toBeInstanceOf(VeloxError);
    expect(caught).toMatchObject({ code: SessionErrorCodes.STORE, status: 503, expose: true });
    // The store's own message stays on the server.
    expect(r.body.message).not.toContain('the store is down');
  });
});
