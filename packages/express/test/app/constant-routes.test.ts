import { channel } from 'node:diagnostics_channel';
import { channelNames } from '@velox/core';
import { later, raw, until } from '@velox/test-utils';
import express4 from 'express4';
import { describe, expect, it } from 'vitest';
import { isConstantHandler } from '../../src/app/constant.ts';
import velox from '../../src/index.ts';
import { listenExpress as listen } from './harness.ts';

/** Counts the requests that run JavaScript (core publishes request:start for each), from now on. */
function jsRequests(): { count(): number; stop(): void } {
  let n = 0;
  const onStart = () => {
    n += 1;
  };
  channel(channelNames.requestStart).subscribe(onStart);
  later(() => channel(channelNames.requestStart).unsubscribe(onStart));
  return { count: () => n, stop: () => channel(channelNames.requestStart).unsubscribe(onStart) };
}

/** Whether GET `path` is now answered without JavaScript: polls until a request publishes nothing. */
async function answeredByUws(base: string, path: string): Promise<void> {
  const seen = jsRequests();
  await until(async () => {
    const before = seen.count();
    await (await fetch(base + path)).arrayBuffer();
    return seen.count() === before;
  }, `GET ${path} to be answered by uWS`);
  seen.stop();
}

/** Headers of an answer, less those that say which server answered. */
function headersOf(res: Response, leaveOut: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of res.headers) if (!['date', 'uwebsockets', ...leaveOut].includes(name)) out[name] = value;
  return out;
}

describe('constant routes (Express 4 entry)', () => {
  it('answers `app.get(path, (req, res) => res.send(text))` from uWS with Express\'s headers but ETag, Connection and Keep-Alive', async () => {
    const build = (express: any) => {
      const app = express();
      app.get('/', (req: any, res: any) => res.send('Hi'));
      app.get('/json', (req: any, res: any) => res.set('X-Kind', 'fixed').json({ ok: true, list: [1, 'two', null] }));
      return app;
    };
    const ours = await listen(build(velox));
    const theirs = await listen(build(express4));
    for (const path of ['/', '/json']) {
      await answeredByUws(ours, path);
      const [a, b] = await Promise.all([fetch(ours + path), fetch(theirs + path)]);
      expect(a.status).toBe(200);
      expect(headersOf(a)).toEqual(headersOf(b, ['etag', 'connection', 'keep-alive']));
      expect(a.headers.get('etag')).toBeNull();
      expect(await a.text()).toBe(await b.text());
    }
  });

  it('answers HEAD with the same head and no body, and a conditional GET with the whole 200 (no validator was sent)', async () => {
    const app = velox();
    app.get('/', (req: any, res: any) => res.send('Hi'));
    const base = await listen(app);
    await answeredByUws(base, '/');
    const port = Number(new URL(base).port);
    const { text } = await raw(port, 'HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nIf-None-Match: W/"2-nOO9QiTIwXgNtWtBJezz8kv3SLc"\r\n\r\n');
    const [head, second] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toContain('Content-Length: 2');
    expect(head!.toLowerCase()).toContain('content-type: text/html; charset=utf-8');
    expect(second).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.endsWith('\r\n\r\nHi')).toBe(true);
  });

  it('leaves to the normal path every route that could answer differently, or that something runs before', async () => {
    const app = velox();
    const greeting = 'from a variable';
    app.get('/constant', (req: any, res: any) => res.send('constant'));
    app.get('/reads-request', (req: any, res: any) => res.send(req.query.name ?? 'none'));
    app.get('/closure', (req: any, res: any) => res.send(greeting));
    app.get('/status', (req: any, res: any) => res.status(201).send('created'));
    app.get('/cookie', (req: any, res: any) => res.cookie('a', 'b').send('cookie'));
    app.get('/async', async (req: any, res: any) => res.send('async'));
    app.get('/two', (req: any, res: any, next: any) => next(), (req: any, res: any) => res.send('two'));
    app.get('/shadowed', (req: any, res: any) => res.send('first'));
    app.get('/shadowed', (req: any, res: any) => res.send('second'));
    app.get('/:any/after', (req: any, res: any) => res.send('param'));
    app.get('/x/after', (req: any, res: any) => res.send('fixed but reached by /:any/after first'));
    app.use((req: any, res: any, next: any) => next());
    app.get('/after-middleware', (req: any, res: any) => res.send('after'));
    const base = await listen(app);
    await answeredByUws(base, '/constant');
    // /shadowed's first route is constant, and nothing before it matches: uWS answers it.
    await answeredByUws(base, '/shadowed');
    expect(await (await fetch(`${base}/shadowed`)).text()).toBe('first');
    const seen = jsRequests();
    const expected: Record<string, [number, string]> = {
      '/reads-request?name=ada': [200, 'ada'],
      '/closure': [200, 'from a variable'],
      '/status': [201, 'created'],
      '/cookie': [200, 'cookie'],
      '/async': [200, 'async'],
      '/two': [200, 'two'],
      '/x/after': [200, 'param'],
      '/after-middleware': [200, 'after'],
    };
    for (const [path, [status, body]] of Object.entries(expected)) {
      const before = seen.count();
      const res = await fetch(base + path);
      expect([path, res.status, await res.text()]).toEqual([path, status, body]);
      expect([path, seen.count() - before]).toEqual([path, 1]);
    }
  });

  it("is off with app.set('velox constant routes', false), with app.param(), with a replaced res.send and with strict routing", async () => {
    const builds: Array<(app: any) => void> = [
      (app) => app.set('velox constant routes', false),
      (app) => app.param('id', (req: any, res: any, next: any) => next()),
      (app) => {
        const send = app.response.send;
        app.response.send = function (this: any, body: unknown) {
          return send.call(this, `${String(body)}!`);
        };
      },
      (app) => app.enable('strict routing'),
    ];
    for (const [i, change] of builds.entries()) {
      const app = velox();
      change(app);
      app.get('/', (req: any, res: any) => res.send('Hi'));
      const base = await listen(app);
      // Give a constant route the time it would take to be mounted, then check JavaScript still answers.
      await new Promise((done) => setTimeout(done, 200));
      const seen = jsRequests();
      const res = await fetch(`${base}/`);
      expect([i, res.status, await res.text()]).toEqual([i, 200, i === 2 ? 'Hi!' : 'Hi']);
      expect([i, seen.count()]).toEqual([i, 1]);
      seen.stop();
    }
  });
});

describe('isConstantHandler()', () => {
  it('takes setters then one final call on res with literal arguments, in arrows and function expressions', () => {
    const yes = [
      (req: any, res: any) => res.send('Hi'),
      (_req: any, res: any) => res.json({ ok: true, n: -1, list: [1, 'a', null, false], nested: { 'a-b': `text` } }),
      (req: any, res: any) => {
        res.set('X-A', 'b');
        res.type('json').status(200).send('{}');
      },
      function named(req: any, res: any) {
        res.header('X-A', 'b').end('done');
      },
      (req: any, res: any, next: any) => res.sendStatus(200),
    ];
    for (const fn of yes) expect([String(fn), isConstantHandler(fn)]).toEqual([String(fn), true]);
  });

  it('refuses anything that could vary or do more', () => {
    const value = 'v';
    const no: unknown[] = [
      (req: any, res: any) => res.send(req.path),
      (req: any, res: any) => res.send(value),
      (req: any, res: any) => res.send(`${value}`),
      (req: any, res: any) => res.send(Date.now()),
      (req: any, res: any) => res.send(new Date().toISOString()),
      (req: any, res: any) => {
        res.send('a');
        res.send('b');
      },
      (req: any, res: any) => {
        res.set('X-A', 'b');
      },
      (req: any, res: any) => res.cookie('a', 'b').send('c'),
      (req: any, res: any) => res.redirect('/'),
      (req: any, res: any) => res.json({ [value]: 1 }),
      (req: any, res: any) => res.json({ ...{ a: 1 } }),
      (req: any, res: any) => res.json({ get a() { return 1; } }),
      (req: any, res: any) => res?.send('a'),
      (req: any, res: any) => res['send']('a'),
      (req: any, res: any) => req.res.send('a'),
      async (req: any, res: any) => res.send('a'),
      (res: any) => res.send('a'),
      ({ query }: any, res: any) => res.send('a'),
      (req: any, res: any = {}) => res.send('a'),
      (res: any, res2: any) => res.send('a'),
      (req: any, res: any) => res.send(/re/),
      (req: any, res: any) => res.send('a') || console.log('side effect'),
      { handler(req: any, res: any) { res.send('a'); } }.handler,
      ((req: any, res: any) => res.send('a')).bind(null),
      'not a function',
    ];
    for (const fn of no) expect([String(fn), isConstantHandler(fn)]).toEqual([String(fn), false]);
  });
});
