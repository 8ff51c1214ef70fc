import type { Middleware, Server } from '@velox/core';
import { Router } from '@velox/router';
import { validate } from '@velox/validate';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { describeRoute, type OpenApiDocument, type OpenApiOptions, openapi, type RouteDescription } from '../src/index.ts';

const app = null as unknown as Server;

describe('describeRoute() types', () => {
  it('is a middleware that leaves the handler\'s req as the other middlewares type it', () => {
    expectTypeOf(describeRoute({ summary: 'x' })).toEqualTypeOf<Middleware>();
    app.get('/items/:id', describeRoute({ tags: ['items'] }), validate({ params: z.object({ id: z.coerce.number() }) }), (req, res) => {
      expectTypeOf(req.params).toEqualTypeOf<{ id: number }>();
      res.json({ id: req.params.id });
    });
    app.get('/users/:name', describeRoute(), (req, res) => {
      expectTypeOf(req.params).toEqualTypeOf<{ name: string }>();
      res.send(req.params.name);
    });
    new Router().use(describeRoute({ hide: true }));
  });

  it('takes only the fields it documents', () => {
    // @ts-expect-error: not a field
    describeRoute({ sumary: 'x' });
    // @ts-expect-error: tags are a list
    describeRoute({ tags: 'items' });
    describeRoute({ responses: { 401: 'Not signed in', '4XX': { description: 'Bad', schema: z.object({ error: z.string() }) }, 204: { schema: null } } });
    describeRoute({ security: [{ oauth: ['read'] }] });
    expectTypeOf<RouteDescription['methods']>().toEqualTypeOf<readonly ('get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace')[] | undefined>();
  });
});

describe('openapi plugin types', () => {
  it('needs info with a title and a version', async () => {
    await app.register(openapi, { info: { title: 'Shop', version: '1.0.0' } });
    // @ts-expect-error: info is required
    await app.register(openapi, { path: '/openapi.json' });
    // @ts-expect-error: a version too
    await app.register(openapi, { info: { title: 'Shop' } });
    const options: OpenApiOptions = { info: { title: 'Shop', version: '1' }, ui: false, securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'sid' } }, security: 'session' };
    // @ts-expect-error: an apiKey scheme says where the key is
    const bad: OpenApiOptions = { info: { title: 'Shop', version: '1' }, securitySchemes: { k: { type: 'apiKey', name: 'k' } } };
    void options;
    void bad;
  });

  it('types the document it serves', () => {
    const doc = null as unknown as OpenApiDocument;
    expectTypeOf(doc.paths['/x']!.get!.operationId).toEqualTypeOf<string>();
  });
});
