import { listen } from '@velox/test-utils';
import express from 'express';
import methodOverride from 'method-override';
import { describe, expect, it } from 'vitest';
import { server } from './helpers.ts';

declare module '@velox/core' {
  interface Request {
    originalMethod?: string;
  }
}

describe('method-override', () => {
  it('changes req.method from the X-HTTP-Method-Override header of a POST, keeping req.originalMethod', async () => {
    const app = server();
    app.use(methodOverride('X-HTTP-Method-Override'));
    app.any('/items/:id', (req, res) => res.json({ method: req.method, original: req.originalMethod ?? null }));
    const url = await listen(app);
    const post = await fetch(`${url}/items/1`, { method: 'POST', headers: { 'x-http-method-override': 'DELETE' } });
    expect(await post.json()).toEqual({ method: 'DELETE', original: 'POST' });
    // Only POST is overridden (its `methods` option), and only to a known method.
    const get = await fetch(`${url}/items/1`, { headers: { 'x-http-method-override': 'DELETE' } });
    expect(await get.json()).toEqual({ method: 'GET', original: 'GET' });
  });

  it('reads _method from a form body with a custom getter', async () => {
    const app = server();
    app.use(express.urlencoded());
    app.use(
      methodOverride((req) => {
        const body = req.body as Record<string, string> | undefined;
        if (body && typeof body === 'object' && '_method' in body) {
          const method = body._method;
          delete body._method;
          return method!;
        }
        return undefined as unknown as string;
      }),
    );
    app.any('/form', (req, res) => res.json({ method: req.method, body: req.body }));
    const url = await listen(app);
    const r = await fetch(`${url}/form`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '_method=PUT&name=ada' });
    expect(await r.json()).toEqual({ method: 'PUT', body: { name: 'ada' } });
  });

  it('does not re-route: uWS picked the route by the method on the wire before middlewares ran', async () => {
    const app = server();
    app.use(methodOverride('X-HTTP-Method-Override'));
    app.post('/thing', (req, res) => res.send(`post route saw ${req.method}`));
    app.delete('/thing', (req, res) => res.send('delete route'));
    const url = await listen(app);
    const r = await fetch(`${url}/thing`, { method: 'POST', headers: { 'x-http-method-override': 'DELETE' } });
    expect(await r.text()).toBe('post route saw DELETE');
  });
});
