import { Writable } from 'node:stream';
import { start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, type ErrorMiddleware, isPlaceholder, type Middleware, type Request, type Response, VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

const kTestTag = Symbol('test.tag');

declare module '../../src/index.ts' {
  interface Request {
    [kTestTag]: string;
  }
}

function tag(this: Request): string {
  return `tag of ${this.path}`;
}

describe('decorateRequest / decorateResponse with a symbol key', () => {
  it('adds the member under the symbol, accepts the same definition again and refuses another', async () => {
    const app = server();
    app.decorateRequest(kTestTag, { get: tag });
    app.decorateRequest(kTestTag, { get: tag });
    expect(() => app.decorateRequest(kTestTag, { get: () => 'other' })).toThrow(expect.objectContaining({ code: ErrorCodes.DECORATION_CONFLICT }));
    expect(() => app.decorateResponse(Symbol.iterator, { value: () => {} })).not.toThrow();
    app.get('/x', (req, res) => res.send(req[kTestTag]));
    const { url } = await start(app);
    expect(await (await fetch(`${url}/x`)).text()).toBe('tag of /x');
  });
});

describe('server.config', () => {
  it('gives the options as applied, defaults filled in, read-only and without the cookie secrets', () => {
    const plain = server();
    expect(plain.config).toEqual({
      maxBodyLength: 1024 * 1024,
      strict: false,
      trustProxy: false,
      trust: undefined,
      parseCookies: true,
      tls: false,
      exposeErrors: false,
      keepAliveHeader: false,
    });
    expect(Object.isFrozen(plain.config)).toBe(true);
    expect(plain.config).toBe(plain.config);
    const tuned = server({ trustProxy: 'loopback', strict: true, maxBodyLength: 10, cookieSecret: 'secret', parseCookies: false });
    const config = tuned.config;
    expect([config.trustProxy, config.strict, config.maxBodyLength, config.parseCookies]).toEqual(['loopback', true, 10, false]);
    expect(config.trust?.('127.0.0.1', 0)).toBe(true);
    expect(config.trust?.('10.0.0.1', 0)).toBe(false);
    expect(JSON.stringify(config)).not.toContain('secret');
    expect(() => {
      (config as { strict: boolean }).strict = false;
    }).toThrow(TypeError);
  });
});

describe('addErrorHandler', () => {
  it('runs error handlers in order, after onError hooks and before the error handler; next(err) passes on, next() is not found', async () => {
    const app = server();
    const seen: string[] = [];
    app.addHook('onError', (err) => seen.push(`hook ${(err as Error).message}`));
    const first: ErrorMiddleware = (err, req, res, next) => {
      seen.push(`first ${err.message}`);
      if (err.message === 'pass') return next(new Error('passed on'));
      if (err.message === 'nothing') return next();
      res.status(err.status ?? 500).json({ handledBy: 'first', message: err.message });
    };
    app.addErrorHandler(first);
    app.addErrorHandler((err, req, res, next) => {
      seen.push(`second ${err.message}`);
      next(err);
    });
    app.setErrorHandler((err, req, res) => res.status(599).json({ handledBy: 'server', message: err.message }));
    app.get('/boom', () => {
      throw Object.assign(new Error('boom'), { status: 409 });
    });
    app.get('/pass', (req, res, next) => next(new Error('pass')));
    app.get('/nothing', async () => {
      throw new Error('nothing');
    });
    const { url } = await start(app);
    const boom = await fetch(`${url}/boom`);
    expect([boom.status, await boom.json()]).toEqual([409, { handledBy: 'first', message: 'boom' }]);
    const pass = await fetch(`${url}/pass`);
    expect([pass.status, await pass.json()]).toEqual([599, { handledBy: 'server', message: 'passed on' }]);
    const nothing = await fetch(`${url}/nothing`);
    expect(nothing.status).toBe(404);
    expect(seen).toEqual(['hook boom', 'first boom', 'hook pass', 'first pass', 'second passed on', 'hook nothing', 'first nothing']);
  });

  it('runs a prefixed error handler only for requests under its prefix, and refuses a handler that is not a function', async () => {
    const app = server();
    app.addErrorHandler('/api', (err, req, res) => res.status(400).json({ api: err.message }));
    app.get('/api/x', () => {
      throw new Error('api error');
    });
    app.get('/web/x', () => {
      throw Object.assign(new Error('web error'), { status: 422 });
    });
    const { url } = await start(app);
    expect(await (await fetch(`${url}/api/x`)).json()).toEqual({ api: 'api error' });
    const web = await fetch(`${url}/web/x`);
    expect(web.status).toBe(422);
    expect(((await web.json()) as { message: string }).message).toBe('web error');
    expect(() => app.addErrorHandler('/api', 'nope' as never)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
  });
});

describe('server.handleError', () => {
  it('sends an error from outside the chain through the error path, and cuts a response whose head went out', async () => {
    const app = server();
    const seen: string[] = [];
    app.addHook('onError', (err) => seen.push((err as Error).message));
    app.addErrorHandler((err, req, res) => res.status(err.status).send(`handled ${err.message}`));
    app.get('/later', (req, res) => {
      setTimeout(() => app.handleError(Object.assign(new Error('late'), { status: 502 }), req, res), 10);
    });
    app.get('/streaming', (req, res) => {
      res.write('part');
      setTimeout(() => app.handleError(new Error('mid-stream'), req, res), 10);
    });
    const { url } = await start(app);
    const later = await fetch(`${url}/later`);
    expect([later.status, await later.text()]).toEqual([502, 'handled late']);
    const streaming = await fetch(`${url}/streaming`);
    await expect(streaming.text()).rejects.toThrow();
    expect(seen).toEqual(['late', 'mid-stream']);
  });
});

describe('extendUse', () => {
  it("offers use()'s arguments to the extensions in order, with the prefix; the first to take one has it", async () => {
    const app = server();
    const offered: string[] = [];
    const marker = { greeting: 'hi' };
    app.extendUse((item, prefix) => {
      offered.push(`first ${typeof item} ${prefix || '(none)'}`);
      return false;
    });
    app.extendUse((item, prefix) => {
      if (item !== marker) return false;
      app.get(`${prefix}/greeting`, (req, res) => res.send(marker.greeting));
      return true;
    });
    const plain: Middleware = (req, res, next) => {
      res.set('x-plain', 'ran');
      next();
    };
    app.use(plain);
    app.use('/words', marker as never);
    app.get('/words/other', (req, res) => res.send('other'));
    const { url } = await start(app);
    const r = await fetch(`${url}/words/greeting`);
    expect([r.headers.get('x-plain'), await r.text()]).toEqual(['ran', 'hi']);
    expect(offered).toEqual(['first function (none)', 'first object /words']);
  });

  it('refuses a function of four arguments that no extension took, naming nodeCompat and addErrorHandler', () => {
    const app = server();
    let thrown: unknown;
    try {
      app.use(((err: unknown, req: unknown, res: unknown, next: unknown) => next) as never);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(VeloxError);
    expect((thrown as VeloxError).code).toBe(ErrorCodes.PLUGIN_MISSING);
    expect((thrown as VeloxError).message).toContain("import { nodeCompat } from '@velox/express'; await app.register(nodeCompat)");
    expect((thrown as VeloxError).message).toContain('app.addErrorHandler()');
    app.extendUse((item) => typeof item === 'function' && item.length === 4);
    expect(() => app.use(((err: unknown, req: unknown, res: unknown, next: unknown) => next) as never)).not.toThrow();
    expect(() => app.extendUse('nope' as never)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
    expect(() => app.use(42 as never)).toThrow(/use\(\) takes middleware functions or routers, got number/);
  });
});

describe('wrapMiddleware', () => {
  it("passes each use() middleware and each route function through the wrappers, in order, when chains are built", async () => {
    const app = server();
    const wrapped: string[] = [];
    const calls: string[] = [];
    app.wrapMiddleware((fn) => {
      wrapped.push(`outer ${fn.name || 'anonymous'}`);
      return fn;
    });
    app.wrapMiddleware((fn) => {
      wrapped.push(`inner ${fn.name || 'anonymous'}`);
      if (fn.name !== 'audited') return fn;
      return (req, res, next) => {
        calls.push(`before ${req.path}`);
        return fn(req, res, next);
      };
    });
    app.use(function audited(req, res, next) {
      res.set('x-audited', 'yes');
      next();
    });
    app.get('/a', function handlerA(req, res) {
      res.send('a');
    });
    app.post('/b', function handlerB(req, res) {
      res.send('b');
    });
    expect(wrapped).toEqual([]);
    const { url } = await start(app);
    // audited applies to /a, /a's twin /a/ and HEAD, /b and /b/, and the not-found route: once per chain.
    expect(wrapped.filter((w) => w === 'outer audited').length).toBeGreaterThanOrEqual(3);
    expect(wrapped).toContain('inner handlerA');
    expect(wrapped).toContain('inner handlerB');
    expect(wrapped.indexOf('outer handlerA')).toBeLessThan(wrapped.indexOf('inner handlerA'));
    const a = await fetch(`${url}/a`);
    expect([a.headers.get('x-audited'), await a.text()]).toEqual(['yes', 'a']);
    expect(await (await fetch(`${url}/b`, { method: 'POST' })).text()).toBe('b');
    expect(calls).toEqual(['before /a', 'before /b']);
    expect(() => app.wrapMiddleware((fn) => fn)).toThrow(/before listen\(\)/);
  });

  it('refuses a wrapper that is not a function, and one that returns something else', async () => {
    const app = server();
    expect(() => app.wrapMiddleware(null as never)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
    app.wrapMiddleware(() => 'not a middleware' as never);
    app.get('/', (req, res) => res.send('x'));
    await expect(app.listen(0, '127.0.0.1')).rejects.toThrow(/must return a middleware function/);
  });
});

describe('req.bodyUsed, req.bodyComplete, req.cookiesAssigned', () => {
  it('tells whether the body was taken and has all arrived, without reading it', async () => {
    const app = server();
    app.post('/read', async (req, res) => {
      const before = [req.bodyUsed, req.bodyComplete];
      const text = await req.text();
      res.json({ before, after: [req.bodyUsed, req.bodyComplete], text });
    });
    app.post('/stream', (req, res) => {
      const before = req.bodyUsed;
      const chunks: Buffer[] = [];
      req.stream().pipe(
        new Writable({
          write(chunk, _enc, done) {
            chunks.push(chunk);
            done();
          },
          final(done) {
            res.json({ before, after: req.bodyUsed, complete: req.bodyComplete, size: Buffer.concat(chunks).length });
            done();
          },
        }),
      );
    });
    app.get('/none', (req, res) => res.json([req.bodyUsed, req.bodyComplete]));
    const { url } = await start(app);
    const read = await (await fetch(`${url}/read`, { method: 'POST', body: 'hello' })).json();
    expect(read).toEqual({ before: [false, expect.any(Boolean)], after: [true, true], text: 'hello' });
    expect(await (await fetch(`${url}/stream`, { method: 'POST', body: 'x'.repeat(100_000) })).json()).toEqual({
      before: false,
      after: true,
      complete: true,
      size: 100_000,
    });
    expect(await (await fetch(`${url}/none`)).json()).toEqual([false, true]);
  });

  it('tells cookies a middleware assigned from the ones Velox parsed, without parsing', async () => {
    const app = server();
    app.get('/parsed', (req, res) => {
      const before = req.cookiesAssigned;
      const a = req.cookies.a;
      res.json({ before, after: req.cookiesAssigned, a });
    });
    app.get('/assigned', (req, res) => {
      req.cookies = { mine: 'yes' };
      res.json({ assigned: req.cookiesAssigned });
    });
    const { url } = await start(app);
    const headers = { cookie: 'a=1' };
    expect(await (await fetch(`${url}/parsed`, { headers })).json()).toEqual({ before: false, after: false, a: '1' });
    expect(await (await fetch(`${url}/parsed`)).json()).toEqual({ before: false, after: false });
    expect(await (await fetch(`${url}/assigned`, { headers })).json()).toEqual({ assigned: true });
  });
});

describe('the Node.js/Express members without nodeCompat', () => {
  it('are placeholders that name the fix: methods throw when called, properties when read', async () => {
    const app = server({ exposeErrors: true });
    const fix = "import { nodeCompat } from '@velox/express'; await app.register(nodeCompat)";
    // Typed here as @velox/express's augmentation types them (core's own types do not have them).
    type NodeRequest = { pipe(destination: Writable): unknown; on(event: string, listener: () => void): unknown };
    app.get('/pipe', (req) => void (req as unknown as NodeRequest).pipe(new Writable()));
    app.get('/on', (req) => void (req as unknown as NodeRequest).on('data', () => {}));
    app.get('/app', (req, res) => res.json((req as unknown as { app: unknown }).app));
    app.get('/set-header', (req, res) => void (res as unknown as { setHeader(n: string, v: string): void }).setHeader('x', '1'));
    app.get('/write-head', (req, res) => {
      // What on-headers does: read res.writeHead to replace it.
      const previous = (res as unknown as { writeHead: unknown }).writeHead;
      res.send(typeof previous);
    });
    const { url } = await start(app);
    for (const [path, member] of [
      ['/pipe', 'req.pipe()'],
      ['/on', 'req.on()'],
      ['/app', 'req.app'],
      ['/set-header', 'res.setHeader()'],
      ['/write-head', 'res.writeHead'],
    ] as const) {
      const r = await fetch(`${url}${path}`);
      const body = (await r.json()) as { code: string; message: string };
      expect(r.status, path).toBe(500);
      expect(body.code, path).toBe(ErrorCodes.PLUGIN_MISSING);
      expect(body.message, path).toBe(`${member} needs the nodeCompat plugin of @velox/express: ${fix}`);
    }
    for (const name of ['pipe', 'on', 'app', 'socket', 'rawHeaders', 'xhr']) expect(isPlaceholder('request', name), name).toBe(true);
    for (const name of ['writeHead', 'setHeader', 'getHeader', '_header', 'format']) expect(isPlaceholder('response', name), name).toBe(true);
    // What stays in core is no placeholder.
    for (const name of ['stream', 'is', 'accepts', 'fresh', 'originalUrl', 'baseUrl']) expect(isPlaceholder('request', name), name).toBe(false);
    for (const name of ['set', 'get', 'hasHeader', 'getHeaders', 'vary', 'write', 'end', 'on', 'writable', 'destroyed']) {
      expect(isPlaceholder('response', name), name).toBe(false);
    }
  });

  it('lets a decoration replace a Node placeholder without a conflict', async () => {
    const local = server();
    const xhr = function (this: Request) {
      return this.get('x-requested-with') === 'XMLHttpRequest';
    };
    expect(() => local.decorateRequest('xhr', { get: xhr })).not.toThrow();
    expect(isPlaceholder('request', 'xhr', local)).toBe(false);
    local.get('/', (req, res: Response) => res.json((req as unknown as { xhr: boolean }).xhr));
    const { url } = await start(local);
    expect(await (await fetch(url, { headers: { 'x-requested-with': 'XMLHttpRequest' } })).json()).toBe(true);
  });
});
