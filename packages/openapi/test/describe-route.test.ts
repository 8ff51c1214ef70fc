import { isMetadataOnly } from '@velox/core';
import { Router } from '@velox/router';
import { get, listen } from '@velox/test-utils';
import { validate } from '@velox/validate';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeRoute, OpenApiErrorCodes } from '../src/index.ts';
import { documented, documentOf, server } from './helpers.ts';

const ok = (_req: unknown, res: { send(body: string): void }) => res.send('ok');

describe('describeRoute()', () => {
  it('documents summary, description, tags, operationId and deprecated', async () => {
    const app = await documented();
    app.get('/items/:id', describeRoute({ summary: 'One item', description: 'The **item**, by id', tags: ['items', 'shop'], operationId: 'getItem', deprecated: true }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/items/{id}']!.get).toEqual({
      tags: ['items', 'shop'],
      summary: 'One item',
      description: 'The **item**, by id',
      operationId: 'getItem',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { default: { description: 'Default response' } },
      deprecated: true,
    });
  });

  it('adds responses to validate()\'s: a description, a schema, a media type, a range', async () => {
    const app = await documented();
    const Item = z.object({ id: z.number() });
    app.get(
      '/items/:id',
      describeRoute({
        responses: {
          200: 'The item',
          401: 'Not signed in',
          404: { description: 'No such item', schema: z.object({ error: z.string() }) },
          '5XX': { description: 'Something broke' },
        },
      }),
      validate({ response: { 200: Item } }),
      ok,
    );
    app.get('/export', describeRoute({ responses: { 200: { description: 'The items as CSV', schema: z.string(), contentType: 'text/csv' } } }), ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/items/{id}']!.get!.responses).toEqual({
      200: { description: 'The item', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'], additionalProperties: false } } } },
      401: { description: 'Not signed in' },
      404: { description: 'No such item', content: { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'], additionalProperties: false } } } },
      '5XX': { description: 'Something broke' },
    });
    expect(doc.paths['/export']!.get!.responses).toEqual({ 200: { description: 'The items as CSV', content: { 'text/csv': { schema: { type: 'string' } } } } });
  });

  it('costs nothing per request: a metadata-only middleware that core leaves out of the chain', async () => {
    const marker = describeRoute({ summary: 'x' });
    expect(isMetadataOnly(marker)).toBe(true);
    const app = await documented();
    const ran: unknown[] = [];
    app.wrapMiddleware((fn) => {
      ran.push(fn);
      return fn;
    });
    app.get('/a', marker, ok);
    const base = await listen(app);
    expect((await get(`${base}/a`)).text).toBe('ok');
    expect(ran).not.toContain(marker);
    expect(ran).toContain(ok);
  });

  it('merges a router\'s markers with its routes\': tags add up, the route\'s fields win', async () => {
    const app = await documented();
    const r = new Router();
    r.use(describeRoute({ tags: ['admin'], summary: 'Admin', deprecated: true }));
    r.get('/users', describeRoute({ tags: ['users'], summary: 'Users', deprecated: false }), ok);
    app.use('/admin', r);
    const { doc } = await documentOf(app);
    const op = doc.paths['/admin/users']!.get!;
    expect(op.tags).toEqual(['admin', 'users']);
    expect(op.summary).toBe('Users');
    expect(op.deprecated).toBeUndefined();
  });

  it('throws VELOX_ERR_OPENAPI_INVALID_OPTION at once for a field it does not have or a value of the wrong type', () => {
    const bad: Array<[unknown, RegExp]> = [
      ['One item', /takes an object/],
      [{ sumary: 'x' }, /no field "sumary"/],
      [{ summary: '' }, /non-empty string/],
      [{ operationId: 3 }, /non-empty string/],
      [{ tags: 'items' }, /list of names/],
      [{ hide: 'yes' }, /true or false/],
      [{ methods: ['GET'] }, /lower-case methods/],
      [{ security: [3] }, /scheme names/],
      [{ responses: { 2000: 'x' } }, /"2000".*'4XX'/],
      [{ responses: { 200: { schema: {} } } }, /Standard Schema/],
      [{ responses: { 200: { contentType: 'csv' } } }, /media type/],
      [{ responses: { 200: 5 } }, /description or/],
    ];
    for (const [options, message] of bad) {
      expect(() => describeRoute(options as never), JSON.stringify(options)).toThrow(expect.objectContaining({ code: OpenApiErrorCodes.INVALID_OPTION, message: expect.stringMatching(message) }));
    }
    expect(() => describeRoute()).not.toThrow();
  });

  it('needs a handler after it: a route of markers only is refused by core', () => {
    const app = server();
    expect(() => app.get('/a', describeRoute({ summary: 'x' }) as never)).toThrow(expect.objectContaining({ code: 'VELOX_ERR_INVALID_OPTION' }));
  });
});
