import type { StandardSchemaV1 } from '@standard-schema/spec';
import { validate } from '@velox/validate';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeRoute, OpenApiErrorCodes, type ParameterObject } from '../src/index.ts';
import { SchemaConverter } from '../src/json-schema.ts';
import { documented, documentOf } from './helpers.ts';

const ok = (_req: unknown, res: { json(body: unknown): void }) => res.json({});
const byName = (parameters: ParameterObject[] | undefined): Record<string, ParameterObject> => Object.fromEntries((parameters ?? []).map((p) => [p.name, p]));

describe('Zod 4 schemas', () => {
  it('documents params, query, headers and cookies with their input types, constraints, optionals and defaults', async () => {
    const app = await documented();
    app.get(
      '/items/:id',
      validate({
        params: z.object({ id: z.coerce.number().int().min(1) }),
        query: z.object({ q: z.string().min(2).max(10).optional(), page: z.coerce.number().int().default(1), sort: z.enum(['asc', 'desc']) }),
        headers: z.object({ 'x-request-id': z.uuid(), accept: z.string() }),
        cookies: z.object({ sid: z.string().length(32) }),
      }),
      ok,
    );
    const { doc } = await documentOf(app);
    const p = byName(doc.paths['/items/{id}']!.get!.parameters);
    expect(p.id).toEqual({ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } });
    expect(p.q).toEqual({ name: 'q', in: 'query', required: false, schema: { type: 'string', minLength: 2, maxLength: 10 } });
    expect(p.page).toEqual({ name: 'page', in: 'query', required: false, schema: { type: 'integer', default: 1, minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } });
    expect(p.sort).toEqual({ name: 'sort', in: 'query', required: true, schema: { type: 'string', enum: ['asc', 'desc'] } });
    expect(p['x-request-id']).toMatchObject({ in: 'header', required: true, schema: { type: 'string', format: 'uuid' } });
    expect(p.accept).toBeUndefined(); // OpenAPI describes Accept, Content-Type and Authorization elsewhere
    expect(p.sid).toEqual({ name: 'sid', in: 'cookie', required: true, schema: { type: 'string', minLength: 32, maxLength: 32 } });
  });

  it('documents the request body with its input type and the responses with their output types', async () => {
    const app = await documented();
    const Order = z.object({
      sku: z.string(),
      qty: z.number().int().positive(),
      note: z.string().nullable(),
      gift: z.boolean().default(false),
      at: z.iso.datetime(),
      pair: z.tuple([z.string(), z.number()]),
    });
    app.post('/orders', validate({ body: Order, response: { 201: Order.extend({ id: z.string().transform((s) => s.length) }).omit({ id: true }).extend({ id: z.number() }), 204: null } }), ok);
    const { doc } = await documentOf(app);
    const op = doc.paths['/orders']!.post!;
    const body = op.requestBody!.content['application/json']!.schema as any;
    expect(op.requestBody!.required).toBe(true);
    expect(body.required).toEqual(['sku', 'qty', 'note', 'at', 'pair']); // gift has a default: optional on input
    expect(body.properties.qty).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER });
    expect(body.properties.note).toEqual({ type: ['string', 'null'] });
    expect(body.properties.at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(body.properties.pair).toEqual({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 2, maxItems: 2 });
    const created = op.responses['201']!.content!['application/json']!.schema as any;
    expect(created.required).toContain('gift'); // output: the default filled in
    expect(op.responses['204']).toEqual({ description: 'No Content' });
  });

  it('documents an optional body as not required', async () => {
    const app = await documented();
    app.patch('/prefs', validate({ body: z.object({ theme: z.string() }).optional() }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/prefs']!.patch!.requestBody!.required).toBe(false);
  });

  it('documents a schema named with .meta({ id }) once in components.schemas, with a $ref from every route that uses it', async () => {
    const app = await documented();
    const Item = z.object({ id: z.number(), name: z.string().max(80) }).meta({ id: 'Item', description: 'An item for sale' });
    app.get('/items', validate({ response: { 200: z.array(Item) } }), ok);
    app.get('/items/:id', validate({ response: { 200: Item } }), ok);
    app.get('/featured', validate({ response: { 200: z.object({ first: Item, rest: z.array(Item) }) } }), ok);
    const { doc } = await documentOf(app);
    expect(doc.components!.schemas!.Item).toEqual({
      type: 'object',
      description: 'An item for sale',
      properties: { id: { type: 'number' }, name: { type: 'string', maxLength: 80 } },
      required: ['id', 'name'],
      additionalProperties: false,
    });
    const ref = { $ref: '#/components/schemas/Item' };
    expect(doc.paths['/items']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({ type: 'array', items: ref });
    expect(doc.paths['/items/{id}']!.get!.responses['200']!.content!['application/json']!.schema).toEqual(ref);
    expect((doc.paths['/featured']!.get!.responses['200']!.content!['application/json']!.schema as any).properties.first).toEqual(ref);
    expect(Object.keys(doc.components!.schemas!).filter((name) => name.startsWith('Item'))).toEqual(['Item']);
  });

  it('keeps a named schema\'s input and output forms apart when they differ', async () => {
    const app = await documented();
    const Item = z.object({ id: z.number(), tags: z.array(z.string()).default([]) }).meta({ id: 'Item' });
    app.post('/items', validate({ body: Item, response: { 201: Item } }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/items']!.post!.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Item' });
    expect(doc.paths['/items']!.post!.responses['201']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ItemOutput' });
    expect((doc.components!.schemas!.Item as any).required).toEqual(['id']);
    expect((doc.components!.schemas!.ItemOutput as any).required).toEqual(['id', 'tags']);
  });

  it('documents an unnamed recursive schema as a component of its own', async () => {
    const app = await documented();
    const Node: z.ZodType<{ name: string; children: unknown[] }> = z.object({ name: z.string(), get children() { return z.array(Node); } });
    app.post('/trees', describeRoute({ operationId: 'plantTree' }), validate({ body: Node }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/trees']!.post!.requestBody!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/plantTreeBody' });
    expect((doc.components!.schemas!.plantTreeBody as any).properties.children).toEqual({ type: 'array', items: { $ref: '#/components/schemas/plantTreeBody' } });
  });

  it('documents the 400 of a validated route on its own, with validate\'s issue list', async () => {
    const app = await documented();
    app.get('/a', validate({ query: z.object({ n: z.string() }) }), ok);
    app.get('/b', validate({ response: { 200: z.string() } }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/a']!.get!.responses['400']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/VeloxValidationError' });
    expect(doc.paths['/a']!.get!.responses.default).toEqual({ description: 'Default response' });
    expect(doc.paths['/b']!.get!.responses['400']).toBeUndefined(); // response schemas check nothing in the request
    expect((doc.components!.schemas!.VeloxValidationError as any).properties.issues.items.required).toEqual(['in', 'path', 'message']);
  });

  it('reports a schema that cannot be converted with its route, and still builds the document', async () => {
    const app = await documented();
    app.get('/stamps', validate({ query: z.object({ n: z.string() }), response: { 200: z.object({ at: z.date() }) } }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/stamps']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({});
    expect(byName(doc.paths['/stamps']!.get!.parameters).n).toBeDefined();
    expect(app.warnings).toHaveLength(1);
    expect(app.warnings[0]).toMatchObject({
      code: OpenApiErrorCodes.SCHEMA,
      message: expect.stringMatching(/^GET \/stamps: its response200 schema could not be converted to JSON Schema \(Date cannot be represented/),
    });
  });
});

describe('Valibot 1 schemas (through @valibot/to-json-schema)', () => {
  it('documents constraints, optionals, defaults and formats, input and output apart', async () => {
    const app = await documented();
    app.post(
      '/v/:id',
      validate({
        params: v.object({ id: v.pipe(v.string(), v.transform(Number), v.number(), v.integer()) }),
        query: v.object({ q: v.optional(v.pipe(v.string(), v.minLength(2), v.maxLength(10)), 'all'), at: v.nullable(v.pipe(v.string(), v.isoDateTime())) }),
        body: v.object({ email: v.pipe(v.string(), v.email()), kind: v.picklist(['a', 'b']), pair: v.tuple([v.string(), v.number()]) }),
        response: { 200: v.object({ id: v.pipe(v.string(), v.transform(Number), v.number(), v.integer()) }) },
      }),
      ok,
    );
    const { doc } = await documentOf(app);
    const op = doc.paths['/v/{id}']!.post!;
    const p = byName(op.parameters);
    expect(p.id).toEqual({ name: 'id', in: 'path', required: true, schema: { type: 'string' } }); // what the client sends
    expect(p.q).toEqual({ name: 'q', in: 'query', required: false, schema: { type: 'string', minLength: 2, maxLength: 10, default: 'all' } });
    expect(p.at).toEqual({ name: 'at', in: 'query', required: true, schema: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] } });
    const body = op.requestBody!.content['application/json']!.schema as any;
    expect(body.properties.email).toEqual({ type: 'string', format: 'email' });
    expect(body.properties.kind).toEqual({ enum: ['a', 'b'], type: 'string' });
    expect(body.properties.pair).toEqual({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2 });
    expect((op.responses['200']!.content!['application/json']!.schema as any).properties.id).toEqual({ type: 'integer' }); // what the server sends
  });

  it('documents a schema named in the plugin\'s schemas once, referenced where it is used, nested or not', async () => {
    const Item = v.object({ id: v.number(), tags: v.array(v.string()) });
    const app = await documented({ schemas: { Item } });
    app.post('/items', validate({ body: v.object({ item: Item }), response: { 201: Item } }), ok);
    app.get('/items', validate({ response: { 200: v.array(Item) } }), ok);
    const { doc } = await documentOf(app);
    const ref = { $ref: '#/components/schemas/Item' };
    expect((doc.paths['/items']!.post!.requestBody!.content['application/json']!.schema as any).properties.item).toEqual(ref);
    expect(doc.paths['/items']!.post!.responses['201']!.content!['application/json']!.schema).toEqual(ref);
    expect(doc.paths['/items']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({ type: 'array', items: ref });
    expect(Object.keys(doc.components!.schemas!)).toEqual(['Item', 'VeloxValidationError']);
  });
  it('leaves out checks that keep the type, and reports what it cannot express with its route', async () => {
    const app = await documented();
    app.post(
      '/v',
      validate({
        body: v.object({ name: v.pipe(v.string(), v.trim(), v.check((s) => s !== 'root'), v.minLength(2), v.brand('Name')) }),
        response: { 200: v.object({ at: v.date() }), 201: v.pipe(v.string(), v.transform(Number)) },
      }),
      ok,
    );
    const { doc } = await documentOf(app);
    const op = doc.paths['/v']!.post!;
    expect((op.requestBody!.content['application/json']!.schema as any).properties.name).toEqual({ type: 'string', minLength: 2 });
    expect(op.responses['200']!.content!['application/json']!.schema).toEqual({});
    expect(op.responses['201']!.content!['application/json']!.schema).toEqual({});
    expect(app.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^POST \/v: its response200 schema could not be converted .*"date" schema/),
      expect.stringMatching(/^POST \/v: its response201 schema could not be converted .*"transform" action/),
    ]);
  });
  it('says how to install the converter when @valibot/to-json-schema is missing', () => {
    // The plugin loads the converter with import(); without the package it has none to pass.
    const converter = new SchemaConverter(new Map(), undefined);
    expect(() => converter.convert(v.string(), 'input', 'x')).toThrow('pnpm add @valibot/to-json-schema');
  });
});

describe('ArkType 2 schemas', () => {
  it('documents constraints and optionals, input and output apart', async () => {
    const app = await documented();
    app.get(
      '/a/:id',
      validate({
        params: type({ id: 'string.integer.parse' }),
        query: type({ 'q?': '2 <= string <= 10', n: 'string | null', kind: "'a' | 'b'" }),
        response: { 200: type({ id: 'number.integer', pair: ['string', 'number'], 'email?': 'string.email' }) },
      }),
      ok,
    );
    const { doc } = await documentOf(app);
    const op = doc.paths['/a/{id}']!.get!;
    const p = byName(op.parameters);
    expect(p.id!).toMatchObject({ in: 'path', required: true, schema: { type: 'string', pattern: expect.any(String) } });
    expect(p.q).toEqual({ name: 'q', in: 'query', required: false, schema: { type: 'string', minLength: 2, maxLength: 10 } });
    expect(p.n).toEqual({ name: 'n', in: 'query', required: true, schema: { anyOf: [{ type: 'string' }, { type: 'null' }] } });
    expect(p.kind).toEqual({ name: 'kind', in: 'query', required: true, schema: { enum: ['a', 'b'] } });
    const out = op.responses['200']!.content!['application/json']!.schema as any;
    expect(out.properties.id).toEqual({ type: 'integer' });
    expect(out.properties.pair).toEqual({ type: 'array', minItems: 2, prefixItems: [{ type: 'string' }, { type: 'number' }], items: false });
    expect(out.required).toEqual(['id', 'pair']);
  });

  it('names a schema given in the plugin\'s schemas, and documents a morph by its declared output, or as any value without one', async () => {
    const Item = type({ id: 'number', name: 'string' });
    const app = await documented({ schemas: { Item } });
    app.get('/items/:id', validate({ response: { 200: Item } }), ok);
    app.get('/lengths', validate({ response: { 200: type({ n: 'string.numeric.parse' }).pipe((o) => o.n, type('number')) } }), ok);
    app.get('/morphs', validate({ query: type({ n: 'string.numeric.parse' }), response: { 200: type('string').pipe((s) => s.length) } }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/items/{id}']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Item' });
    expect(doc.components!.schemas!.Item).toEqual({ type: 'object', properties: { id: { type: 'number' }, name: { type: 'string' } }, required: ['id', 'name'] });
    expect(doc.paths['/lengths']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({ type: 'number' });
    // A morph with no declared output: ArkType gives any value ({}), and says nothing.
    expect(doc.paths['/morphs']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({});
    expect(byName(doc.paths['/morphs']!.get!.parameters).n!.schema).toMatchObject({ type: 'string' });
  });
});

describe('any Standard Schema', () => {
  /** A hand-written schema: its validate() takes anything. */
  function schema(jsonSchema?: StandardSchemaV1['~standard'] & object): StandardSchemaV1 {
    return { '~standard': { version: 1, vendor: 'handmade', validate: (value: unknown) => ({ value }), ...(jsonSchema ? { jsonSchema } : {}) } } as StandardSchemaV1;
  }

  it('uses the Standard JSON Schema interface of any library', async () => {
    const app = await documented();
    const body = schema({ input: () => ({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'string' } } }), output: () => ({ type: 'string' }) } as never);
    app.post('/x', validate({ body }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/x']!.post!.requestBody).toEqual({ required: false, content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } });
  });

  it('reports a schema that throws during conversion, and one with no converter, each with its route; the document still builds', async () => {
    const app = await documented();
    const throws = schema({
      input: () => {
        throw new Error('cannot do that');
      },
      output: () => ({}),
    } as never);
    app.post('/throws', validate({ body: throws }), ok);
    app.get('/none/:id', validate({ params: schema() }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/throws']!.post!.requestBody!.content['application/json']!.schema).toEqual({});
    expect(doc.paths['/none/{id}']!.get!.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(app.warnings.map((w) => [w.code, w.message])).toEqual([
      [OpenApiErrorCodes.SCHEMA, 'POST /throws: its body schema could not be converted to JSON Schema (cannot do that); the document gives it as any value'],
      [OpenApiErrorCodes.SCHEMA, expect.stringMatching(/^GET \/none\/:id: its params schema .*handmade schemas implement no JSON Schema converter/)],
    ]);
    expect(app.warnings[0].cause).toBeInstanceOf(Error);
  });

  it('writes what older drafts and OpenAPI 3.0 spell otherwise in 2020-12 terms: tuples as prefixItems, nullable as a null type', async () => {
    const app = await documented();
    const old = schema({
      input: () => ({ type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false }, name: { type: 'string', nullable: true }, n: { type: 'number', minimum: 0, exclusiveMinimum: true }, e: { enum: [{ items: [1] }] } }, definitions: { Thing: { type: 'string' } } }),
      output: () => ({}),
    } as never);
    app.post('/old', validate({ body: old }), ok);
    const { doc } = await documentOf(app);
    const body = doc.paths['/old']!.post!.requestBody!.content['application/json']!.schema as any;
    expect(body.properties.pair).toEqual({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false });
    expect(body.properties.name).toEqual({ type: ['string', 'null'] });
    expect(body.properties.n).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(body.properties.e).toEqual({ enum: [{ items: [1] }] }); // data is left alone
    expect(doc.components!.schemas!.Thing).toEqual({ type: 'string' });
  });
});
