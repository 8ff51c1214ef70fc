import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { parseResponses, raw, sleep, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, type Request, type Response, Server, VeloxError } from '../../src/index.ts';
import { server } from '../helpers.ts';

declare module '../../src/index.ts' {
  interface Request {
    testGreeting(): string;
    readonly testCounter: number;
  }
  interface Response {
    testOk(): void;
  }
  interface Server {
    testVersion: string;
  }
}

function testGreeting(this: Request): string {
  return `hello ${this.get('x-name') ?? 'you'}`;
}
const counters = new WeakMap<Request, number>();
function testCounter(this: Request): number {
  const n = (counters.get(this) ?? 0) + 1;
  counters.set(this, n);
  return n;
}
function testOk(this: Response): void {
  this.status(200).json({ ok: true });
}

describe('decorateRequest / decorateResponse / decorate', () => {
  it('adds methods and accessors that handlers use, on every server', async () => {
    const a = server();
    const b = server();
    for (const app of [a, b]) {
      app.decorateRequest('testGreeting', { value: testGreeting });
      app.decorateRequest('testCounter', { get: testCounter });
      app.decorateResponse('testOk', { value: testOk });
      app.get('/', (req, res) => res.send(`${req.testGreeting()} ${req.testCounter} ${req.testCounter}`));
      app.get('/ok', (req, res) => res.testOk());
    }
    const { url: ua } = await start(a);
    const { url: ub } = await start(b);
    expect(await (await fetch(ua, { headers: { 'x-name': 'ana' } })).text()).toBe('hello ana 1 2');
    expect(await (await fetch(ub)).text()).toBe('hello you 1 2');
    expect(await (await fetch(`${ub}/ok`)).json()).toEqual({ ok: true });
  });

  it('refuses a name core already uses, and another definition under a taken name', () => {
    const app = server();
    expect(() => app.decorateRequest('path', { get: testCounter })).toThrow(
      expect.objectContaining({ code: ErrorCodes.DECORATION_CONFLICT }),
    );
    expect(() => app.decorateResponse('json', { value: testOk })).toThrow(/already has a property "json"/);
    app.decorateRequest('testGreeting', { value: testGreeting });
    expect(() => app.decorateRequest('testGreeting', { value: () => 'other' })).toThrow(/another definition/);
  });

  it('refuses a definition that is neither a value nor an accessor', () => {
    const app = server();
    expect(() => app.decorateRequest('x1', {} as never)).toThrow(expect.objectContaining({ code: ErrorCodes.INVALID_OPTION }));
    expect(() => app.decorateRequest('x2', { value: 1, get: testCounter } as never)).toThrow(/either \{ value \} or \{ get/);
  });

  it('decorates one server only with decorate()', () => {
    const a = server();
    const b = server();
    a.decorate('testVersion', '1.2.3');
    expect(a.testVersion).toBe('1.2.3');
    expect((b as { testVersion?: string }).testVersion).toBeUndefined();
    expect(() => a.decorate('testVersion', 'again')).toThrow(expect.objectContaining({ code: ErrorCodes.DECORATION_CONFLICT }));
    expect(() => a.decorate('listen', () => {})).toThrow(/already has a property "listen"/);
  });
});

describe('res.beforeHead', () => {
  it('holds the answer until the task settles, and lets it set headers', async () => {
    const app = server();
    let stored = '';
    app.post('/save', async (req, res) => {
      const body = await req.text();
      res.beforeHead(async (r) => {
        await sleep(50);
        stored = body;
        r.set('x-stored', 'yes');
      });
      res.redirect('/done');
      expect(res.finished).toBe(false);
    });
    app.get('/done', (req, res) => res.send(stored));
    const { url } = await start(app);
    const r = await fetch(`${url}/save`, { method: 'POST', body: 'payload', redirect: 'manual' });
    expect(r.status).toBe(302);
    expect(r.headers.get('x-stored')).toBe('yes');
    expect(r.headers.get('location')).toBe('/done');
    // The write landed before the answer left: the next request sees it.
    expect(await (await fetch(`${url}/done`)).text()).toBe('payload');
  });

  it('runs synchronous tasks at once, in order, and tasks added by tasks', async () => {
    const app = server();
    app.get('/', (req, res) => {
      const order: string[] = [];
      res.beforeHead(() => {
        order.push('a');
        res.beforeHead(() => {
          order.push('c');
          res.set('x-order', order.join(''));
        });
      });
      res.beforeHead(() => {
        order.push('b');
      });
      res.send('sync');
      expect(res.finished).toBe(true);
    });
    const { url } = await start(app);
    const r = await fetch(url);
    expect(await r.text()).toBe('sync');
    expect(r.headers.get('x-order')).toBe('abc');
  });

  it('replaces the answer with the error handler when a task rejects', async () => {
    const app = server();
    app.get('/', (req, res) => {
      res.beforeHead(async () => {
        await sleep(10);
        throw new VeloxError('APP_STORE_DOWN', 'store is down', { status: 503, expose: true });
      });
      res.set('location', '/elsewhere').cookie('a', 'b').status(302).send('should not be seen');
    });
    const { url } = await start(app);
    const r = await fetch(url, { redirect: 'manual' });
    expect(r.status).toBe(503);
    expect(r.headers.get('location')).toBeNull();
    expect(r.headers.get('set-cookie')).toBeNull();
    expect(await r.json()).toMatchObject({ statusCode: 503, code: 'APP_STORE_DOWN', message: 'store is down' });
  });

  it('replaces the answer when a task throws synchronously', async () => {
    const app = server();
    app.setErrorHandler((err, req, res) => res.status(500).send(`caught ${err.message}`));
    app.get('/', (req, res) => {
      res.beforeHead(() => {
        throw new Error('boom');
      });
      res.send('nope');
    });
    const { url } = await start(app);
    const r = await fetch(url);
    expect(r.status).toBe(500);
    expect(await r.text()).toBe('caught boom');
  });

  it('queues writes while it holds, keeps their order, and emits drain after', async () => {
    const app = server();
    let drained = 0;
    const returned: boolean[] = [];
    app.get('/', (req, res) => {
      res.beforeHead(() => sleep(30));
      res.on('drain', () => drained++);
      returned.push(res.write('a'), res.write('b'));
      res.end('c');
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).text()).toBe('abc');
    expect(returned).toEqual([false, false]);
    expect(drained).toBeGreaterThan(0);
  });

  it('throws when end() is called twice while it holds', async () => {
    const app = server();
    let second: unknown;
    app.get('/', (req, res) => {
      res.beforeHead(() => sleep(10));
      res.send('first');
      try {
        res.send('second');
      } catch (err) {
        second = err;
      }
    });
    const { url } = await start(app);
    expect(await (await fetch(url)).text()).toBe('first');
    expect((second as VeloxError).code).toBe(ErrorCodes.HEADERS_SENT);
  });

  it('holds res.stream() too, and destroys the source when the task fails', async () => {
    const app = server();
    let destroyed = false;
    app.get('/ok', async (req, res) => {
      res.beforeHead(() => sleep(10));
      await res.stream(Readable.from([Buffer.from('he'), Buffer.from('llo')]), { size: 5 });
    });
    app.get('/fail', async (req, res) => {
      res.beforeHead(() => Promise.reject(new VeloxError('APP_X', 'no', { status: 409 })));
      const source = Readable.from(['never']);
      source.on('close', () => {
        destroyed = true;
      });
      await res.stream(source);
    });
    const { url } = await start(app);
    expect(await (await fetch(`${url}/ok`)).text()).toBe('hello');
    const r = await fetch(`${url}/fail`);
    expect(r.status).toBe(409);
    expect(destroyed).toBe(true);
  });

  it('runs for a HEAD request without sending a body', async () => {
    const app = server();
    app.get('/', (req, res) => {
      res.beforeHead(async () => {
        await sleep(5);
        res.set('x-held', '1');
      });
      res.send('body');
    });
    const { port } = await start(app);
    const { text } = await raw(port, 'HEAD / HTTP/1.1\r\nHost: x\r\n\r\n');
    const [answer] = parseResponses(text);
    expect(answer!.status).toBe(200);
    expect(answer!.headers['x-held']).toBe('1');
    expect(answer!.headers['content-length']).toBe('4');
    expect(answer!.body).toBe('');
  });

  it('drops the waiting answer quietly when the client leaves meanwhile', async () => {
    const app = server();
    let settled = false;
    let responses = 0;
    app.addHook('onResponse', () => {
      responses++;
    });
    app.get('/', (req, res) => {
      res.beforeHead(async () => {
        await sleep(150);
        settled = true;
      });
      res.send('late');
    });
    app.get('/after', (req, res) => res.send('alive'));
    const { port, url } = await start(app);
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.on('connect', resolve));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(30);
    socket.destroy();
    for (let i = 0; i < 100 && !settled; i++) await sleep(20);
    expect(settled).toBe(true);
    await sleep(20);
    expect(responses).toBe(0);
    expect(await (await fetch(`${url}/after`)).text()).toBe('alive');
  });

  it('cannot be added once the head went out', async () => {
    const app = server();
    let thrown: unknown;
    app.get('/', (req, res) => {
      res.write('x');
      try {
        res.beforeHead(() => {});
      } catch (err) {
        thrown = err;
      }
      res.end();
    });
    const { url } = await start(app);
    await (await fetch(url)).text();
    expect((thrown as VeloxError).code).toBe(ErrorCodes.HEADERS_SENT);
  });
});

describe('server.logger', () => {
  it('is the logger from the options, console by default, and undefined with logger: false', () => {
    const lines: unknown[][] = [];
    const logger = { error: (...args: unknown[]) => lines.push(args), warn: (...args: unknown[]) => lines.push(args) };
    const app = server({ logger });
    app.logger?.warn('from a plugin');
    expect(app.logger).toBe(logger);
    expect(lines).toEqual([['from a plugin']]);
    expect(server({ logger: false }).logger).toBeUndefined();
    expect(new Server().logger).toBe(console);
  });
});
