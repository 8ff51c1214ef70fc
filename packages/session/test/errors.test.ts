import { readFileSync } from 'node:fs';
import { VeloxError } from '@velox/core';
import { describe, expect, it } from 'vitest';
import { SessionErrorCodes, session } from '../src/index.ts';
import { Browser, CountingStore, listen, SECRET, server } from './helpers.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('SessionErrorCodes', () => {
  it('documents every code in the README', () => {
    for (const code of Object.values(SessionErrorCodes)) expect(readme).toContain(`\`${code}\``);
  });

  it('prefixes every code with VELOX_ERR_SESSION_', () => {
    for (const code of Object.values(SessionErrorCodes)) expect(code).toMatch(/^VELOX_ERR_SESSION_[A-Z_]+$/);
  });

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
