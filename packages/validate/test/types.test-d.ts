import type { Query, Request, Server, TypedMiddleware } from '@velox/core';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type Validated, validate } from '../src/index.ts';

const app = null as unknown as Server;

describe('validate() types with Zod 4', () => {
  it('types req.params, req.query and req.body as the schema outputs, with no cast', () => {
    app.post(
      '/users/:id',
      validate({
        params: z.object({ id: z.coerce.number() }),
        query: z.object({ page: z.coerce.number().default(1), q: z.string().optional() }),
        body: z.object({ name: z.string(), tags: z.array(z.string()) }),
      }),
      (req, res) => {
        expectTypeOf(req.params).toEqualTypeOf<{ id: number }>();
        expectTypeOf(req.query).toEqualTypeOf<{ page: number; q?: string | undefined }>();
        expectTypeOf(req.body).toEqualTypeOf<{ name: string; tags: string[] }>();
        // @ts-expect-error: not a field of the body schema
        req.body.nmae;
        res.json(req.body.tags.length);
      },
    );
  });

  it('types req.body the same with options as without', () => {
    app.post('/beacon', validate({ body: z.object({ event: z.string() }) }, { anyType: true }), (req, res) => {
      expectTypeOf(req.body).toEqualTypeOf<{ event: string }>();
      res.sendStatus(204);
    });
    // @ts-expect-error: anyType is a boolean
    validate({ body: z.string() }, { anyType: 'yes' });
  });

  it('types req.validHeaders and req.validCookies, and leaves the raw ones as they were', () => {
    app.get(
      '/h',
      validate({ headers: z.object({ 'x-count': z.coerce.number() }), cookies: z.object({ theme: z.enum(['dark', 'light']) }) }),
      (req) => {
        expectTypeOf(req.validHeaders).toEqualTypeOf<{ 'x-count': number }>();
        expectTypeOf(req.validCookies).toEqualTypeOf<{ theme: 'dark' | 'light' }>();
        expectTypeOf(req.headers['x-count']).toEqualTypeOf<string | undefined>();
      },
    );
  });

  it('keeps the params inferred from the pattern when no params schema is given', () => {
    app.post('/items/:sku', validate({ body: z.object({ qty: z.number() }) }), (req) => {
      expectTypeOf(req.params).toEqualTypeOf<{ sku: string }>();
      expectTypeOf(req.body.qty).toBeNumber();
    });
  });
});

describe('validate() types with Valibot', () => {
  it('types req.params, req.query and req.body as the schema outputs, with no cast', () => {
    app.put(
      '/accounts/:id',
      validate({
        params: v.object({ id: v.pipe(v.string(), v.transform(Number)) }),
        query: v.object({ dry: v.optional(v.picklist(['yes', 'no'])) }),
        body: v.object({ email: v.pipe(v.string(), v.email()), age: v.number() }),
      }),
      (req) => {
        expectTypeOf(req.params).toEqualTypeOf<{ id: number }>();
        expectTypeOf(req.query).toEqualTypeOf<{ dry?: 'yes' | 'no' | undefined }>();
        expectTypeOf(req.body).toEqualTypeOf<{ email: string; age: number }>();
      },
    );
  });
});

/** A function that takes any request with string params, as plugins' helpers do. */
declare function takesRequest(req: Request): void;

describe('validate() keeps req a Request', () => {
  it('passes the req of a validated route to a function that takes a Request', () => {
    app.get('/avatars/:file', validate({ params: z.object({ file: z.string() }) }), (req) => {
      expectTypeOf(req).toEqualTypeOf<Request<{ file: string }>>();
      expectTypeOf(req).toExtend<Request>();
      expectTypeOf(req).toExtend<Request<{ file: string }>>();
      expectTypeOf(takesRequest).toBeCallableWith(req);
      takesRequest(req);
    });
  });

  it('keeps it a Request with every part validated, as long as params and query are strings', () => {
    app.post(
      '/users/:id',
      validate({
        params: z.object({ id: z.string().uuid() }),
        query: z.object({ q: z.string().optional() }),
        headers: z.object({ 'x-count': z.coerce.number() }),
        cookies: z.object({ theme: z.enum(['dark', 'light']) }),
        body: z.object({ name: z.string() }),
      }),
      (req) => {
        expectTypeOf(req).toExtend<Request<{ id: string }>>();
        expectTypeOf(req.body).toEqualTypeOf<{ name: string }>();
        expectTypeOf(req.validHeaders).toEqualTypeOf<{ 'x-count': number }>();
        takesRequest(req);
      },
    );
    app.post('/items/:sku', validate({ body: v.object({ qty: v.number() }) }), (req) => {
      expectTypeOf(req).toEqualTypeOf<Request<{ sku: string }> & { body: { qty: number } }>();
      takesRequest(req);
    });
  });

  it('types converted params and query as Request<Params, Query>, which a Request<unknown, unknown> takes', () => {
    const takesAny = (req: Request<unknown, unknown>) => req.path;
    app.get('/pages/:n', validate({ params: z.object({ n: z.coerce.number() }), query: z.object({ page: z.coerce.number() }) }), (req) => {
      expectTypeOf(req).toEqualTypeOf<Request<{ n: number }, { page: number }>>();
      takesAny(req);
      // @ts-expect-error: params.n is a number, where Request promises strings
      takesRequest(req);
    });
  });

  it('lets a later validate() replace what an earlier one gave', () => {
    app.post(
      '/v/:id',
      validate({ params: z.object({ id: z.string() }), body: z.unknown() }),
      validate({ params: z.object({ id: z.coerce.number() }), body: z.object({ ok: z.boolean() }) }),
      (req) => {
        expectTypeOf(req.params).toEqualTypeOf<{ id: number }>();
        expectTypeOf(req.body).toEqualTypeOf<{ ok: boolean }>();
        expectTypeOf(req.query).toEqualTypeOf<Query>();
      },
    );
  });

  it('is the TypedMiddleware of its outputs (what other packages type-test against)', () => {
    expectTypeOf(validate({ params: z.object({ file: z.string() }) })).toEqualTypeOf<TypedMiddleware<{ params: { file: string } }>>();
  });
});

describe('Validated', () => {
  it('lists only the parts given, under the names the handler reads', () => {
    type Adds = Validated<{ body: z.ZodNumber; cookies: z.ZodObject<{ a: z.ZodString }> }>;
    expectTypeOf<Adds>().toEqualTypeOf<{ validCookies: { a: string }; body: number }>();
  });

  it('leaves req.body unknown on routes without validate()', () => {
    app.post('/raw', (req) => {
      expectTypeOf(req.body).toEqualTypeOf<unknown>();
    });
  });
});

describe('validate() types with response schemas', () => {
  it('leaves req as the request schemas make it: response schemas type nothing on req', () => {
    app.get(
      '/items/:id',
      validate({ params: z.object({ id: z.coerce.number() }), response: { 200: z.object({ id: z.number() }), 404: null } }),
      (req, res) => {
        expectTypeOf(req.params).toEqualTypeOf<{ id: number }>();
        res.json({ id: req.params.id });
      },
    );
    app.get('/only', validate({ response: { 200: v.object({ ok: v.boolean() }) } }), (req, res) => {
      expectTypeOf(req.params).toEqualTypeOf<{}>();
      res.json({ ok: true });
    });
  });
});
