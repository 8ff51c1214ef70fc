import { Router } from '@velox/router';
import { freePort, get, listen, until } from '@velox/test-utils';
import { validate } from '@velox/validate';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeRoute, OpenApiErrorCodes, openapi } from '../src/index.ts';
import { documented, documentOf, expectValid, fetchDocument, INFO, operations, server } from './helpers.ts';

const ok = (_req: unknown, res: { send(body: string): void }) => res.send('ok');

describe('openapi: the document', () => {
  it('serves an OpenAPI 3.1 document as application/json at /openapi.json, with the info given', async () => {
    const app = await documented();
    app.get('/items', ok);
    const { doc } = await documentOf(app);
    expect(doc.openapi).toBe('3.1.1');
    expect(doc.info).toEqual(INFO);
    expect(operations(doc)).toEqual(['GET /items']);
  });

  it('documents a route with neither validate() nor describeRoute() with a default response that has a description', async () => {
    const app = await documented();
    app.delete('/cart', ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/cart']!.delete).toEqual({ operationId: 'deleteCart', responses: { default: { description: 'Default response' } } });
  });

  it('is built once: the same bytes and ETag every time, and 304 for a matching If-None-Match', async () => {
    const app = await documented();
    app.get('/a', ok);
    const base = await listen(app);
    const first = await get(`${base}/openapi.json`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const second = await get(`${base}/openapi.json`);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('etag')).toBe(etag);
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await get(`${base}/openapi.json`, { headers: { 'if-none-match': header } });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe('');
      expect(cached.headers.get('etag')).toBe(etag);
    }
    expect((await get(`${base}/openapi.json`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    const head = await get(`${base}/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(first.text)));
    expect(head.text).toBe('');
  });

  it('holds the routes registered before listen(), whether before or after the plugin, and no route added later', async () => {
    const app = server();
    app.get('/before', ok);
    await app.register(openapi, { info: INFO });
    app.get('/after', ok);
    const base = await listen(app);
    app.get('/late', ok);
    const doc = await fetchDocument(base);
    expect(operations(doc)).toEqual(['GET /before', 'GET /after']);
    expect((await get(`${base}/late`)).text).toBe('ok');
  });

  it('is built at its first request when that comes before listen() has built it', async () => {
    const app = server();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    app.addHook('onListen', () => held); // runs before the plugin's own onListen hook, which builds the document
    await app.register(openapi, { info: INFO });
    app.get('/a', ok);
    const port = await freePort();
    const listening = app.listen(port, '127.0.0.1');
    await until(() => app.listening, 'the server listening');
    const doc = await fetchDocument(`http://127.0.0.1:${port}`);
    expect(operations(doc)).toEqual(['GET /a']);
    release();
    await listening;
    expect(await fetchDocument(`http://127.0.0.1:${port}`)).toEqual(doc);
  });

  it('leaves out its own routes, the HEAD every GET answers, and trailing-slash twins', async () => {
    const app = await documented();
    app.get('/items', ok);
    app.get('/users/', ok);
    app.head('/big', ok);
    const { doc } = await documentOf(app);
    expect(operations(doc)).toEqual(['GET /items', 'GET /users/', 'HEAD /big']);
  });

  it('documents both spellings when a strict server has a route for each', async () => {
    const app = await documented({}, { strict: true });
    app.get('/a', ok);
    app.get('/a/', ok);
    const { doc } = await documentOf(app);
    expect(operations(doc)).toEqual(['GET /a', 'GET /a/']);
  });

  it('leaves out any() and /* catch-alls unless a describeRoute() names them', async () => {
    const app = await documented();
    app.any('/proxy', ok);
    app.get('/files/*', ok);
    app.get('/assets/*', describeRoute({ tags: ['static'] }), ok);
    app.get('/downloads/*', describeRoute({ summary: 'A file' }), ok);
    app.any('/echo', describeRoute({ operationId: 'echo', methods: ['get', 'post'] }), ok);
    const { doc } = await documentOf(app);
    expect(operations(doc)).toEqual(['GET /downloads/{wildcard}', 'GET /echo', 'POST /echo']);
    expect(doc.paths['/downloads/{wildcard}']!.get!.parameters).toEqual([
      { name: 'wildcard', in: 'path', required: true, schema: { type: 'string' }, description: "The rest of the path, slashes included (req.params['*'])" },
    ]);
    expect(doc.paths['/echo']!.get!.operationId).toBe('echoGet');
    expect(doc.paths['/echo']!.post!.operationId).toBe('echoPost');
  });

  it('documents the routes of nested routers with their prefixes as path templates, each path parameter required with its type', async () => {
    const app = await documented();
    const lines = new Router();
    lines.get('/:lineNo', validate({ params: z.object({ lineNo: z.coerce.number().int().min(1) }) }), ok);
    const orders = new Router();
    orders.use('/:orderId/lines', lines);
    const v2 = new Router();
    v2.use('/orders', orders);
    app.use('/shop/v2', v2);
    const { doc } = await documentOf(app);
    const op = doc.paths['/shop/v2/orders/{orderId}/lines/{lineNo}']!.get!;
    expect(op.operationId).toBe('getShopV2OrdersByOrderIdLinesByLineNo');
    expect(op.parameters).toEqual([
      { name: 'orderId', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'lineNo', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
    ]);
  });

  it('documents a path parameter with no schema as a required string', async () => {
    const app = await documented();
    app.get('/users/:userId/posts/:postId', validate({ params: z.object({ postId: z.coerce.number() }) }), ok);
    app.get('/tags/:tag', ok);
    const { doc } = await documentOf(app);
    expect(doc.paths['/users/{userId}/posts/{postId}']!.get!.parameters).toEqual([
      { name: 'userId', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'postId', in: 'path', required: true, schema: { type: 'number' } },
    ]);
    expect(doc.paths['/tags/{tag}']!.get!.parameters).toEqual([{ name: 'tag', in: 'path', required: true, schema: { type: 'string' } }]);
  });

  it('leaves out a hidden route under a visible router, and a router can hide its routes but one', async () => {
    const app = await documented();
    const admin = new Router();
    admin.use(describeRoute({ tags: ['admin'] }));
    admin.get('/users', ok);
    admin.get('/debug', describeRoute({ hide: true }), ok);
    const internal = new Router();
    internal.use(describeRoute({ hide: true }));
    internal.get('/metrics', ok);
    internal.get('/health', describeRoute({ hide: false, summary: 'Health' }), ok);
    app.use('/admin', admin);
    app.use('/internal', internal);
    const { doc, base } = await documentOf(app);
    expect(operations(doc)).toEqual(['GET /admin/users', 'GET /internal/health']);
    expect(doc.paths['/admin/users']!.get!.tags).toEqual(['admin']);
    expect((await get(`${base}/admin/debug`)).text).toBe('ok');
  });

  it('documents routes that plugins add', async () => {
    const app = await documented();
    await app.register((s) => {
      s.get('/health', describeRoute({ summary: 'Health' }), ok);
    });
    const { doc } = await documentOf(app);
    expect(doc.paths['/health']!.get!.summary).toBe('Health');
  });

  it('serves the document at another path, and declares servers, tags, externalDocs', async () => {
    const app = await documented({
      path: '/api/spec.json',
      servers: [{ url: 'https://api.example.com' }],
      tags: [{ name: 'items', description: 'Things for sale' }],
      externalDocs: { url: 'https://example.com/docs' },
    });
    app.get('/a', ok);
    const { doc, base } = await documentOf(app, '/api/spec.json');
    expect(doc.servers).toEqual([{ url: 'https://api.example.com' }]);
    expect(doc.tags).toEqual([{ name: 'items', description: 'Things for sale' }]);
    expect(doc.externalDocs).toEqual({ url: 'https://example.com/docs' });
    expect((await get(`${base}/openapi.json`)).status).toBe(404);
  });
});

describe('the checks every document of these tests passes', () => {
  it('reject a document OpenAPI 3.1 refuses, a nullable, a $ref to nothing, and a schema that is not JSON Schema', async () => {
    const doc = (more: object) => ({ openapi: '3.1.1', info: INFO, paths: {}, ...more }) as never;
    await expect(expectValid({ openapi: '3.1.1', info: { title: 'x' }, paths: {} } as never)).rejects.toThrow();
    await expect(expectValid(doc({ components: { schemas: { A: { type: 'string', nullable: true } } } }))).rejects.toThrow(/nullable/);
    await expect(expectValid(doc({ components: { schemas: { A: { $ref: '#/components/schemas/B' } } } }))).rejects.toThrow(/resolve/); // the validator resolves references
    await expect(expectValid(doc({ components: { schemas: { A: { type: 'text' } } } }))).rejects.toThrow();
    await expectValid(doc({ components: { schemas: { A: { type: ['string', 'null'] } } } }));
  });
});

describe('openapi: nothing per request', () => {
  it('adds no request, send or response hook and no middleware: other routes run what they ran without it', async () => {
    const plain = server();
    const app = await documented();
    const hooksOf = (s: object) => {
      const key = Object.getOwnPropertySymbols(s).find((k) => k.description === 'velox.hooks')!;
      const hooks = (s as Record<symbol, Record<string, unknown[]>>)[key]!;
      return Object.fromEntries(Object.entries(hooks).map(([name, list]) => [name, list.length]));
    };
    expect(hooksOf(app)).toEqual({ ...hooksOf(plain), onRoute: 1, onListen: 1 });
    const chain: unknown[] = [];
    app.wrapMiddleware((fn) => {
      chain.push(fn);
      return fn;
    });
    const handler = (_req: unknown, res: { send(body: string): void }) => res.send('ok');
    app.get('/a', describeRoute({ summary: 'A' }), validate({ response: { 200: z.string() } }), handler);
    const base = await listen(app);
    expect((await get(`${base}/a`)).text).toBe('ok');
    // Every function any chain runs: /a's handler (for /a and its twin /a/), the plugin's own routes' handlers, and core's not-found route.
    const plugins = app.routeDefinitions().filter((r) => r.path === '/openapi.json' || r.path.startsWith('/docs')).flatMap((r) => r.handlers);
    expect(chain.filter((fn) => fn !== handler && !plugins.includes(fn as never)).map((fn) => (fn as Function).name)).toEqual(['notFound']);
    expect(chain.filter((fn) => fn === handler)).toHaveLength(2);
  });
});

describe('openapi: security', () => {
  it('declares security schemes once and references them per route, with a default for every route', async () => {
    const app = await documented({
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        session: { type: 'apiKey', in: 'cookie', name: 'sid' },
      },
      security: 'bearer',
    });
    app.get('/me', describeRoute({ security: 'session' }), ok);
    app.get('/either', describeRoute({ security: ['bearer', 'apiKey'] }), ok);
    app.get('/both', describeRoute({ security: [{ apiKey: [], session: [] }] }), ok);
    app.get('/public', describeRoute({ security: [] }), ok);
    app.get('/default', ok);
    const { doc } = await documentOf(app);
    expect(doc.components?.securitySchemes).toEqual({
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      session: { type: 'apiKey', in: 'cookie', name: 'sid' },
    });
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/me']!.get!.security).toEqual([{ session: [] }]);
    expect(doc.paths['/either']!.get!.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(doc.paths['/both']!.get!.security).toEqual([{ apiKey: [], session: [] }]);
    expect(doc.paths['/public']!.get!.security).toEqual([]);
    expect(doc.paths['/default']!.get!.security).toBeUndefined();
  });

  it('throws VELOX_ERR_OPENAPI_UNKNOWN_SECURITY at registration for a scheme that is not declared, naming the route', async () => {
    const app = await documented({ securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } });
    expect(() => app.get('/me', describeRoute({ security: 'sesion' }), ok)).toThrow(
      expect.objectContaining({ code: OpenApiErrorCodes.UNKNOWN_SECURITY, message: expect.stringMatching(/GET \/me .*"sesion".*declares bearer/) }),
    );
  });
});

describe('openapi: bad input', () => {
  it('throws VELOX_ERR_OPENAPI_DUPLICATE_OPERATION_ID naming both routes when a second route takes an operationId', async () => {
    const app = await documented();
    app.get('/items/:id', describeRoute({ operationId: 'getItem' }), ok);
    expect(() => app.get('/products/:id', describeRoute({ operationId: 'getItem' }), ok)).toThrow(
      expect.objectContaining({
        code: OpenApiErrorCodes.DUPLICATE_OPERATION_ID,
        message: expect.stringContaining('GET /products/:id and GET /items/:id both have the operationId "getItem"'),
      }),
    );
  });

  it('finds duplicate operationIds among routes registered before the plugin too', async () => {
    const app = server();
    app.get('/a', describeRoute({ operationId: 'same' }), ok);
    app.post('/b', describeRoute({ operationId: 'same' }), ok);
    expect(() => app.register(openapi, { info: INFO })).toThrow(expect.objectContaining({ code: OpenApiErrorCodes.DUPLICATE_OPERATION_ID, message: expect.stringContaining('POST /b and GET /a') }));
  });

  it('gives a generated operationId a number when a given one or another generated one has it', async () => {
    const app = await documented({}, { strict: true });
    app.get('/items', ok); // getItems
    app.post('/x', describeRoute({ operationId: 'getItems2' }), ok);
    app.get('/items/', ok); // getItems too: becomes getItems3
    const { doc } = await documentOf(app);
    expect(doc.paths['/items']!.get!.operationId).toBe('getItems');
    expect(doc.paths['/items/']!.get!.operationId).toBe('getItems3');
    expect(doc.paths['/x']!.post!.operationId).toBe('getItems2');
  });

  it('throws VELOX_ERR_OPENAPI_PATH_TAKEN when path is a route already, and core refuses a route added later at the path', async () => {
    const app = server();
    app.get('/openapi.json', ok);
    expect(() => app.register(openapi, { info: INFO })).toThrow(expect.objectContaining({ code: OpenApiErrorCodes.PATH_TAKEN, message: expect.stringContaining("openapi's path (/openapi.json) is already a route") }));
    const other = await documented();
    expect(() => other.get('/openapi.json', ok)).toThrow(expect.objectContaining({ code: 'VELOX_ERR_DUPLICATE_ROUTE' }));
    expect(() => other.get('/docs/', ok)).toThrow(expect.objectContaining({ code: 'VELOX_ERR_DUPLICATE_ROUTE' }));
  });

  it('throws VELOX_ERR_OPENAPI_PATH_TAKEN when the ui path is a route already', async () => {
    const app = server();
    app.get('/docs', ok);
    expect(() => app.register(openapi, { info: INFO })).toThrow(expect.objectContaining({ code: OpenApiErrorCodes.PATH_TAKEN, message: expect.stringContaining('ui (/docs)') }));
    const free = server();
    free.get('/docs', ok);
    await free.register(openapi, { info: INFO, ui: false });
  });

  it('throws VELOX_ERR_OPENAPI_INVALID_OPTION for bad options, saying what to write', async () => {
    const bad = [
      [undefined, /needs info/],
      [{}, /needs info with a title and a version/],
      [{ info: { title: 'x' } }, /needs info/],
      [{ info: INFO, path: 'openapi.json' }, /starting with "\/"/],
      [{ info: INFO, path: '/:doc' }, /no parameter/],
      [{ info: INFO, ui: '/docs', path: '/docs/openapi.json' }, /different paths/],
      [{ info: INFO, uii: false }, /no option "uii"/],
      [{ info: INFO, securitySchemes: { b: { type: 'http' } } }, /needs a scheme/],
      [{ info: INFO, securitySchemes: { k: { type: 'apiKey', in: 'body', name: 'k' } } }, /header, query or cookie/],
      [{ info: INFO, securitySchemes: { k: { type: 'basic' } } }, /the types are/],
      [{ info: INFO, security: 'bearer' }, /does not declare/],
      [{ info: INFO, schemas: { 'An Item': z.string() } }, /cannot name a component/],
      [{ info: INFO, schemas: { Item: {} } }, /needs a Standard Schema/],
      [{ info: INFO, servers: ['https://x'] }, /list of \{ url \}/],
    ] as const;
    for (const [options, message] of bad) {
      const app = server();
      expect(() => app.register(openapi, options as never), JSON.stringify(options)).toThrow(expect.objectContaining({ code: OpenApiErrorCodes.INVALID_OPTION, message: expect.stringMatching(message) }));
    }
  });

  it('refuses to be registered after listen()', async () => {
    const app = server();
    await listen(app);
    expect(() => app.register(openapi, { info: INFO })).toThrow(expect.objectContaining({ code: OpenApiErrorCodes.INVALID_OPTION, message: expect.stringContaining('before listen()') }));
  });
});
