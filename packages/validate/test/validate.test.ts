import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ErrorCodes, type Middleware } from '@velox/core';
import { get, listen } from '@velox/test-utils';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidateErrorCodes, validate } from '../src/index.ts';
import { server } from './helpers.ts';

const json = (body: unknown, init: RequestInit = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
  ...init,
});

describe('validate() with Zod 4', () => {
  const schemas = {
    params: z.object({ id: z.coerce.number().int() }),
    query: z.object({ verbose: z.enum(['yes', 'no']).default('no') }),
    body: z.object({ name: z.string().min(1), tags: z.array(z.string()).default([]) }),
  };

  it('hands the converted params, query and body to the handler', async () => {
    const app = server();
    app.post('/users/:id', validate(schemas), (req, res) => res.json({ params: req.params, query: req.query, body: req.body }));
    const base = await listen(app);
    const answer = await get(`${base}/users/42`, json({ name: 'Ada', extra: true }));
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ params: { id: 42 }, query: { verbose: 'no' }, body: { name: 'Ada', tags: [] } });
  });

  it('answers 400 with the issues of every part at once, without reaching the handler', async () => {
    const app = server();
    let reached = false;
    app.post('/users/:id', validate(schemas), (_req, res) => {
      reached = true;
      res.send('no');
    });
    const base = await listen(app);
    const answer = await get(`${base}/users/abc?verbose=maybe`, json({ name: '', tags: [1] }));
    expect(answer.status).toBe(400);
    const body = answer.json();
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: 'Request validation failed', code: 'VELOX_ERR_VALIDATION' });
    expect(body.issues.map((i: { in: string; path: unknown[] }) => [i.in, i.path])).toEqual([
      ['params', ['id']],
      ['query', ['verbose']],
      ['body', ['name']],
      ['body', ['tags', 0]],
    ]);
    for (const issue of body.issues) expect(issue.message).toEqual(expect.any(String));
    expect(reached).toBe(false);
  });
});

describe('validate() with Valibot', () => {
  const schemas = {
    params: v.object({ id: v.pipe(v.string(), v.transform(Number), v.number(), v.integer()) }),
    query: v.object({ page: v.optional(v.pipe(v.string(), v.transform(Number)), '1') }),
    body: v.object({ email: v.pipe(v.string(), v.email()), age: v.pipe(v.number(), v.minValue(18)) }),
  };

  it('hands the converted params, query and body to the handler', async () => {
    const app = server();
    app.post('/accounts/:id', validate(schemas), (req, res) => res.json({ params: req.params, query: req.query, body: req.body }));
    const base = await listen(app);
    const answer = await get(`${base}/accounts/7?page=3`, json({ email: 'ada@example.com', age: 36 }));
    expect(answer.json()).toEqual({ params: { id: 7 }, query: { page: 3 }, body: { email: 'ada@example.com', age: 36 } });
  });

  it('answers 400 listing where each problem is', async () => {
    const app = server();
    app.post('/accounts/:id', validate(schemas), (_req, res) => res.send('no'));
    const base = await listen(app);
    const answer = await get(`${base}/accounts/x1`, json({ email: 'nope', age: 12 }));
    expect(answer.status).toBe(400);
    expect(answer.json().issues.map((i: { in: string; path: unknown[] }) => `${i.in}:${i.path.join('.')}`)).toEqual([
      'params:id',
      'body:email',
      'body:age',
    ]);
  });
});

describe('validate() body media type', () => {
  const body = z.object({ n: z.number() });

  it('answers 415 VELOX_ERR_UNSUPPORTED_MEDIA_TYPE to a cross-site form post of valid JSON as text/plain', async () => {
    const app = server();
    let reached = false;
    app.post('/x', validate({ body }), (_req, res) => {
      reached = true;
      res.send('no');
    });
    const base = await listen(app);
    const answer = await get(`${base}/x`, {
      method: 'POST',
      body: '{"n":1}',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://evil.example' },
    });
    expect(answer.status).toBe(415);
    expect(answer.json()).toMatchObject({ statusCode: 415, code: ErrorCodes.UNSUPPORTED_MEDIA_TYPE });
    expect(reached).toBe(false);
  });

  it('answers 415 to a JSON body without a Content-Type, and to form types', async () => {
    const app = server();
    app.post('/x', validate({ body }), (_req, res) => res.send('no'));
    const base = await listen(app);
    const untyped = await get(`${base}/x`, { method: 'POST', body: new TextEncoder().encode('{"n":1}') });
    expect([untyped.status, untyped.json().message]).toEqual([415, 'Expected a JSON body with Content-Type: application/json, got no Content-Type']);
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/json']) {
      expect([type, (await get(`${base}/x`, json({ n: 1 }, { headers: { 'content-type': type } }))).status]).toEqual([type, 415]);
    }
  });

  it('accepts application/json with parameters and +json types', async () => {
    const app = server();
    app.post('/x', validate({ body }), (req, res) => res.json(req.body));
    const base = await listen(app);
    for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/merge-patch+json']) {
      const answer = await get(`${base}/x`, json({ n: 2 }, { headers: { 'content-type': type } }));
      expect([type, answer.status, answer.json()]).toEqual([type, 200, { n: 2 }]);
    }
  });

  it('checks an empty body as undefined whatever its type', async () => {
    const app = server();
    app.post('/optional', validate({ body: body.optional() }), (req, res) => res.json({ body: req.body ?? null }));
    const base = await listen(app);
    const answer = await get(`${base}/optional`, { method: 'POST', headers: { 'content-type': 'text/plain' } });
    expect([answer.status, answer.json()]).toEqual([200, { body: null }]);
  });

  it('parses a body of any type, or none, with { anyType: true }', async () => {
    const app = server();
    app.post('/beacon', validate({ body }, { anyType: true }), (req, res) => res.json(req.body));
    const base = await listen(app);
    const plain = await get(`${base}/beacon`, { method: 'POST', body: '{"n":3}', headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    expect([plain.status, plain.json()]).toEqual([200, { n: 3 }]);
    const untyped = await get(`${base}/beacon`, { method: 'POST', body: new TextEncoder().encode('{"n":4}') });
    expect([untyped.status, untyped.json()]).toEqual([200, { n: 4 }]);
    const bad = await get(`${base}/beacon`, { method: 'POST', body: 'nope', headers: { 'content-type': 'text/plain' } });
    expect([bad.status, bad.json().issues]).toEqual([400, [{ in: 'body', path: [], message: 'Body is not valid JSON' }]]);
  });

  it('throws VELOX_ERR_VALIDATE_INVALID_OPTION for options that are not an object or a boolean anyType', () => {
    expect(() => validate({ body }, null as any)).toThrow(expect.objectContaining({ code: ValidateErrorCodes.INVALID_OPTION }));
    expect(() => validate({ body }, { anyType: 'yes' as any })).toThrow(expect.objectContaining({ code: ValidateErrorCodes.INVALID_OPTION }));
  });
});

describe('validate() body reading', () => {
  const body = z.object({ n: z.number() });

  it('answers 400 for a body that is not JSON, with the other parts checked too', async () => {
    const app = server();
    app.post('/x/:id', validate({ params: z.object({ id: z.uuid() }), body }), (_req, res) => res.send('no'));
    const base = await listen(app);
    const answer = await get(`${base}/x/123`, json('{"n": 1,'));
    expect(answer.status).toBe(400);
    expect(answer.json().code).toBe('VELOX_ERR_VALIDATION');
    expect(answer.json().issues).toEqual([
      { in: 'params', path: ['id'], message: expect.any(String) },
      { in: 'body', path: [], message: 'Body is not valid JSON' },
    ]);
  });

  it('checks an empty body as undefined: 400 for a required schema, accepted by an optional one', async () => {
    const app = server();
    app.post('/required', validate({ body }), (_req, res) => res.send('no'));
    app.post('/optional', validate({ body: body.optional() }), (req, res) => res.json({ body: req.body ?? null }));
    const base = await listen(app);
    const required = await get(`${base}/required`, { method: 'POST' });
    expect(required.status).toBe(400);
    expect(required.json().issues).toEqual([{ in: 'body', path: [], message: expect.any(String) }]);
    expect((await get(`${base}/optional`, { method: 'POST' })).json()).toEqual({ body: null });
  });

  it('passes on body errors that are not about validation, such as 413', async () => {
    const app = server({ maxBodyLength: 16 });
    app.post('/small', validate({ body }), (_req, res) => res.send('no'));
    const base = await listen(app);
    const answer = await get(`${base}/small`, json({ n: 1, padding: 'x'.repeat(100) }));
    expect(answer.status).toBe(413);
    expect(answer.json().code).toBe('VELOX_ERR_BODY_TOO_LARGE');
  });

  it('checks a body an earlier middleware already parsed into req.body', async () => {
    const app = server();
    const parsed: Middleware = (req, _res, next) => {
      req.body = { n: '5' };
      next();
    };
    app.post('/pre', parsed, validate({ body: z.object({ n: z.coerce.number() }) }), (req, res) => res.json(req.body));
    const base = await listen(app);
    expect((await get(`${base}/pre`, { method: 'POST' })).json()).toEqual({ n: 5 });
  });
});

describe('validate() headers and cookies', () => {
  it('puts converted headers and cookies in req.validHeaders and req.validCookies, leaving the raw ones', async () => {
    const app = server();
    app.get(
      '/h',
      validate({
        headers: z.object({ 'x-count': z.coerce.number() }),
        cookies: z.object({ theme: z.enum(['dark', 'light']) }),
      }),
      (req, res) =>
        res.json({ headers: req.validHeaders, cookies: req.validCookies, rawCount: req.headers['x-count'], agent: req.get('user-agent') ?? null }),
    );
    const base = await listen(app);
    const answer = await get(`${base}/h`, { headers: { 'x-count': '3', cookie: 'theme=dark; other=1', 'user-agent': 'test' } });
    expect(answer.json()).toEqual({ headers: { 'x-count': 3 }, cookies: { theme: 'dark' }, rawCount: '3', agent: 'test' });
    const bad = await get(`${base}/h`, { headers: { cookie: 'theme=pink' } });
    expect(bad.json().issues.map((i: { in: string; path: unknown[] }) => `${i.in}:${i.path.join('.')}`)).toEqual([
      'headers:x-count',
      'cookies:theme',
    ]);
  });
});

describe('validate() and the error handler', () => {
  it('sends a VeloxError with the issues in details to a custom error handler', async () => {
    const app = server();
    app.setErrorHandler((err, _req, res) => res.status(422).json({ code: err.code, status: err.status, issues: err.details.issues }));
    app.get('/q', validate({ query: z.object({ n: z.coerce.number() }) }), (_req, res) => res.send('no'));
    const base = await listen(app);
    const answer = await get(`${base}/q?n=abc`);
    expect(answer.status).toBe(422);
    expect(answer.json()).toEqual({
      code: ValidateErrorCodes.VALIDATION,
      status: 400,
      issues: [{ in: 'query', path: ['n'], message: expect.any(String) }],
    });
  });
});

describe('validate() with asynchronous schemas', () => {
  it('waits for schemas that answer with a promise, and reports their issues in part order', async () => {
    const app = server();
    const slowTrue = z.object({ id: z.string().refine(async (id) => id !== 'taken', 'already taken') });
    app.post(
      '/names/:id',
      validate({ params: slowTrue, body: v.objectAsync({ n: v.pipeAsync(v.number(), v.checkAsync(async (n) => n > 0, 'must be positive')) }) }),
      (req, res) => res.json({ params: req.params, body: req.body }),
    );
    const base = await listen(app);
    expect((await get(`${base}/names/free`, json({ n: 2 }))).json()).toEqual({ params: { id: 'free' }, body: { n: 2 } });
    const bad = await get(`${base}/names/taken`, json({ n: -1 }));
    expect(bad.json().issues).toEqual([
      { in: 'params', path: ['id'], message: 'already taken' },
      { in: 'body', path: ['n'], message: 'must be positive' },
    ]);
  });

  it('continues in the same tick when every schema answers synchronously', async () => {
    const app = server();
    let order: string[] = [];
    const before: Middleware = (_req, _res, next) => {
      order = [];
      queueMicrotask(() => order.push('microtask'));
      next();
    };
    app.get('/sync/:id', before, validate({ params: z.object({ id: z.string() }) }), (_req, res) => {
      order.push('handler');
      res.json(order);
    });
    const base = await listen(app);
    expect((await get(`${base}/sync/1`)).json()).toEqual(['handler']);
  });
});

describe('validate() with a validator that throws', () => {
  const throwing: StandardSchemaV1 = {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: () => {
        throw new Error('validator bug');
      },
    },
  };

  it('sends an error thrown at once to the error handler, with or without a body', async () => {
    const app = server();
    app.post('/body', validate({ body: throwing }), (_req, res) => res.send('no'));
    app.get('/query', validate({ query: throwing }), (_req, res) => res.send('no'));
    const base = await listen(app);
    expect((await get(`${base}/body`, json({ n: 1 }))).status).toBe(500);
    expect((await get(`${base}/query`)).status).toBe(500);
  });

  it('sends a rejected validation (Zod retries a throwing transform asynchronously) to the error handler', async () => {
    const app = server();
    const rejecting = z.object({ n: z.number() }).transform(() => {
      throw new Error('validator bug');
    });
    app.post('/body', validate({ body: rejecting }), (_req, res) => res.send('no'));
    const base = await listen(app);
    expect((await get(`${base}/body`, json({ n: 1 }))).status).toBe(500);
  });
});

describe('validate() with any Standard Schema', () => {
  it('works with a hand-written schema, with path segments given as { key }', async () => {
    const even: StandardSchemaV1<unknown, { n: number }> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value) => {
          const n = Number((value as { n?: string }).n);
          return n % 2 === 0 ? { value: { n } } : { issues: [{ message: 'odd', path: [{ key: 'n' }] }] };
        },
      },
    };
    const app = server();
    app.get('/even', validate({ query: even }), (req, res) => res.json(req.query));
    const base = await listen(app);
    expect((await get(`${base}/even?n=4`)).json()).toEqual({ n: 4 });
    expect((await get(`${base}/even?n=3`)).json().issues).toEqual([{ in: 'query', path: ['n'], message: 'odd' }]);
  });
});

describe('validate() options', () => {
  it('throws at start-up on something that is not a Standard Schema, an unknown part, or no schema', () => {
    expect(() => validate({ body: {} as any })).toThrow(expect.objectContaining({ code: ValidateErrorCodes.INVALID_OPTION }));
    expect(() => validate({ param: z.object({}) } as any)).toThrow(/no part "param"/);
    expect(() => validate({})).toThrow(/at least one schema/);
    expect(() => validate(null as any)).toThrow(/object of schemas/);
  });
});
