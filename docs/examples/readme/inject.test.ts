// "Testing your app" in the root README.md: a request through the whole app with app.inject().
// #region test
import { Server } from '@velox/core';
import { describe, expect, it } from 'vitest';

const app = new Server();
app.post('/users/:id', async (req, res) => {
  res.status(201).json({ id: req.params.id, tab: req.query.tab, body: await req.json() });
});

describe('POST /users/:id', () => {
  it('answers 201 with the id, the tab and the body', async () => {
    const res = await app.inject('/users/42?tab=a', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ id: '42', tab: 'a', body: { a: 1 } });
  });
});
// #endregion
