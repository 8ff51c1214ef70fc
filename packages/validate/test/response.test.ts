import { isMetadataOnly } from '@velox/core';
import { get, listen } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidateErrorCodes, validate, validationOf } from '../src/index.ts';
import { server } from './helpers.ts';

const Item = z.object({ id: z.number(), name: z.string() });
const NotFound = z.object({ error: z.string() });

/** A logger that keeps what it is given. */
function recorder() {
  const warnings: any[] = [];
  return { warnings, logger: { error: () => {}, warn: (w: unknown) => warnings.push(w) } };
}

describe('validate({ response })', () => {
  it('documents only by default: a body that breaks the schema goes out, and nothing is logged', async () => {
    const { warnings, logger } = recorder();
    const app = server({ logger });
    app.get('/items/:id', validate({ params: z.object({ id: z.coerce.number() }), response: { 200: Item } }), (req, res) =>
      res.json({ id: 'not a number' }),
    );
    const base = await listen(app);
    expect((await get(`${base}/items/1`)).json()).toEqual({ id: 'not a number' });
    expect(warnings).toEqual([]);
  });

  it('is metadata only when it has no request schema: core leaves it out of the chain', async () => {
    const check = validate({ response: { 200: Item, 204: null } });
    expect(isMetadataOnly(check)).toBe(true);
    const app = server();
    app.get('/items', check, (_req, res) => res.json([]));
    const base = await listen(app);
    expect((await get(`${base}/items`)).json()).toEqual([]);
  });

  it('hands its schemas and options to validationOf(), for @velox/openapi', () => {
    const params = z.object({ id: z.coerce.number() });
    const check = validate({ params, response: { 200: Item, '4XX': NotFound } }, { anyType: true });
    expect(validationOf(check)).toEqual({
      schemas: { params, response: { 200: Item, '4XX': NotFound } },
      options: { anyType: true, checkResponses: false },
    });
    expect(validationOf((_req: unknown, _res: unknown, next: () => void) => next())).toBeUndefined();
  });

  it('throws VELOX_ERR_VALIDATE_INVALID_OPTION for a bad status key, a non-schema, or an empty map', () => {
    const code = { code: ValidateErrorCodes.INVALID_OPTION };
    expect(() => validate({ response: { 2000: Item } })).toThrow(expect.objectContaining({ ...code, message: expect.stringContaining("'4XX'") }));
    expect(() => validate({ response: { ok: Item } as any })).toThrow(expect.objectContaining(code));
    expect(() => validate({ response: { 200: {} as any } })).toThrow(expect.objectContaining({ ...code, message: expect.stringContaining('Standard Schema') }));
    expect(() => validate({ response: {} })).toThrow(expect.objectContaining(code));
    expect(() => validate({ response: Item as any })).toThrow(expect.objectContaining(code));
    expect(() => validate({ response: { 200: Item } }, { checkResponses: 'yes' as any })).toThrow(expect.objectContaining(code));
  });
});

describe('validate({ response }, { checkResponses: true })', () => {
  it('logs VELOX_ERR_VALIDATE_RESPONSE_MISMATCH for a body its status schema rejects, and sends the body as it is', async () => {
    const { warnings, logger } = recorder();
    const app = server({ logger });
    app.get('/items/:id', validate({ params: z.object({ id: z.coerce.number() }), response: { 200: Item, 404: NotFound } }, { checkResponses: true }), (req, res) =>
      req.params.id === 1 ? res.json({ id: 1, name: 'one' }) : res.status(404).json({ error: 404 }),
    );
    const base = await listen(app);
    expect((await get(`${base}/items/1`)).json()).toEqual({ id: 1, name: 'one' });
    expect(warnings).toEqual([]);
    const missing = await get(`${base}/items/2`);
    expect(missing.status).toBe(404);
    expect(missing.json()).toEqual({ error: 404 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      code: ValidateErrorCodes.RESPONSE_MISMATCH,
      message: 'GET /items/2 answered 404 with a body its response schema rejects',
      details: { issues: [{ in: 'response', path: ['error'], message: expect.any(String) }] },
    });
  });

  it('picks the exact status, then its range, then default; a status with no schema is not checked', async () => {
    const { warnings, logger } = recorder();
    const app = server({ logger });
    const check = validate({ response: { 201: Item, '4XX': NotFound, default: z.object({ fallback: z.literal(true) }) } }, { checkResponses: true });
    expect(isMetadataOnly(check)).toBe(false);
    app.get('/:status', check, (req, res) => res.status(Number(req.params.status)).json({ other: true }));
    const base = await listen(app);
    for (const status of [201, 409, 500]) await get(`${base}/${status}`);
    expect(warnings.map((w) => w.message)).toEqual([
      'GET /201 answered 201 with a body its response schema rejects',
      'GET /409 answered 409 with a body its response schema rejects',
      'GET /500 answered 500 with a body its response schema rejects',
    ]);
    expect(warnings.map((w) => w.details.issues[0].path)).toEqual([['id'], ['error'], ['fallback']]);
  });

  it('reports a body sent for a status whose schema is null (no body)', async () => {
    const { warnings, logger } = recorder();
    const app = server({ logger });
    app.delete('/x', validate({ response: { 200: null } }, { checkResponses: true }), (_req, res) => res.json({ gone: true }));
    const base = await listen(app);
    await get(`${base}/x`, { method: 'DELETE' });
    expect(warnings[0].details.issues[0].message).toMatch(/no body/);
  });
});
