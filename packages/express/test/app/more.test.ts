import { describe, expect, it } from 'vitest';
import { type AnyExpress, both, compare } from './harness.ts';

describe('express() odds and ends, compared with express@4', () => {
  it('routes a rewritten req.url, app.all, route.all, "*" and mount points given as arrays', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.use((req: any, _res: any, next: any) => {
          if (req.url.startsWith('/old/')) req.url = req.url.replace('/old/', '/new/');
          next();
        });
        app.get('/new/:x', (req: any, res: any) => res.json({ x: req.params.x, url: req.url, originalUrl: req.originalUrl }));
        app.use(['/a', '/b'], (req: any, res: any) => res.json({ baseUrl: req.baseUrl, path: req.path }));
        app.all('/any', (req: any, res: any) => res.send(req.method));
        app.route('/chain').all((req: any, _res: any, next: any) => {
          req.seen = 'all';
          next();
        }).get((req: any, res: any) => res.send(req.seen));
        app.get('*', (req: any, res: any) => res.json({ star: req.params[0] }));
        return app;
      },
      ['/old/5?q=1', '/a/x', '/b', '/any', { method: 'DELETE', path: '/any' }, '/chain', '/whatever/else'],
    );
  });

  it('sets types and headers as Express 4 does: type(), contentType(), set(object), getHeaders, res.end', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/type/:t', (req: any, res: any) => res.type(req.params.t).send('x'));
        app.get('/ct', (_req: any, res: any) => res.contentType('application/vnd.api+json').send('{}'));
        app.get('/set', (_req: any, res: any) => res.set({ 'X-A': 1, 'X-B': ['2', '3'], 'Content-Type': 'text/csv' }).send('a,b'));
        app.get('/get', (_req: any, res: any) => {
          res.set('X-One', '1');
          res.json({ headers: res.getHeaders(), has: res.hasHeader('x-one'), got: res.get('X-One') });
        });
        app.get('/end', (_req: any, res: any) => res.status(202).end());
        app.get('/end-body', (_req: any, res: any) => res.end('raw end'));
        return app;
      },
      ['/type/json', '/type/.html', '/type/png', '/type/js', '/type/application%2Fx-foo', '/type/nope', '/ct', '/set', '/get', '/end', '/end-body'],
    );
  });

  it('sends errors from res.json (BigInt), bad status codes and errors after the head went out the same way', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/bigint', (_req: any, res: any) => res.json({ n: 1n }));
        app.get('/bad-status', (_req: any, res: any) => res.status(1234).send('x'));
        app.use((err: any, _req: any, res: any, _next: any) => res.status(500).send(`caught ${err.name}`));
        return app;
      },
      ['/bigint', '/bad-status'],
    );
  });

  it('checks the Content-Type of bodies with req.is and skips parsers for other types', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.use(express.json({ type: ['application/json', 'application/*+json'] }));
        app.use(express.text({ type: 'text/*' }));
        app.post('/is', (req: any, res: any) => res.json({ json: req.is('json'), text: req.is('text/*'), any: req.is(['html', 'json']), body: req.body ?? null }));
        return app;
      },
      [
        { method: 'POST', path: '/is', headers: { 'content-type': 'application/vnd.x+json' }, body: '{"a":1}' },
        { method: 'POST', path: '/is', headers: { 'content-type': 'text/markdown' }, body: '# hi' },
        { method: 'POST', path: '/is', headers: { 'content-type': 'image/png' }, body: 'png' },
        { method: 'POST', path: '/is' },
      ],
    );
  });

  it('takes the deprecated app.param(fn) form, status codes given as strings, and gives req.headersDistinct', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.param((name: string, pattern: RegExp) => (req: any, _res: any, next: any, value: string) => {
          if (pattern.test(value)) {
            req.checked = `${name}=${value}`;
            next();
          } else next('route');
        });
        app.param('id', /^\d+$/);
        app.get('/n/:id', (req: any, res: any) => res.json({ checked: req.checked, distinct: req.headersDistinct['x-multi'] }));
        app.get('/n/:id', (_req: any, res: any) => res.send('not a number'));
        app.get('/string-status', (_req: any, res: any) => res.status('201').send('made'));
        return app;
      },
      [{ path: '/n/42', headers: { 'x-multi': 'a' } }, '/n/abc', '/string-status'],
    );
  });

  it('sends a body written in pieces after a declared Content-Length with that length, headersSent true from the first write', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/pieces', (_req: any, res: any) => {
          res.setHeader('Content-Length', '11');
          res.setHeader('Content-Type', 'text/plain');
          res.write('hello ');
          const sent = res.headersSent;
          res.write(Buffer.from('wor'));
          res.end('ld', () => {});
          if (!sent) throw new Error('headersSent should be true');
        });
        app.get('/undeclared', (_req: any, res: any) => {
          res.write('a');
          res.end('b');
        });
        return app;
      },
      ['/pieces', { method: 'HEAD', path: '/pieces' }, '/undeclared'],
    );
  });

  it('gives a top-level mergeParams router no parent params, and params of nested mounts', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        const top = express.Router({ mergeParams: true });
        top.get('/x/:id', (req: any, res: any) => res.json(req.params));
        app.use(top);
        const inner = express.Router({ mergeParams: true });
        inner.get('/:b', (req: any, res: any) => res.json(req.params));
        app.use('/a/:a', inner);
        app.get('/star/*', (req: any, res: any) => res.json(req.params));
        app.use((req: any, res: any) => res.json({ params: req.params ?? 'none' }));
        return app;
      },
      ['/x/1', '/a/1/2', '/star/deep/path', '/other'],
    );
  });

  it('ignores a second res.end(), as Node does, and keeps the connection', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/twice', (_req: any, res: any) => {
        res.end('once');
        res.end();
        res.end(() => {});
      });
      return app;
    });
    await pair.same('/twice');
    const [theirs, ours] = await pair.raw('GET /twice HTTP/1.1\r\nHost: x\r\n\r\nGET /twice HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(ours.split('HTTP/1.1 200').length).toBe(3);
    expect(theirs.split('HTTP/1.1 200').length).toBe(3);
  });

  it('reaches every app with methods added to express.request, express.response and express.application', async () => {
    await compare(
      (express: AnyExpress) => {
        express.request.shout = function (this: any) {
          return String(this.query.say ?? '').toUpperCase();
        };
        express.response.shouted = function (this: any, text: string) {
          return this.type('text').send(`${text}!`);
        };
        express.application.greeting = () => 'hi';
        const app = express();
        app.get('/shout', (req: any, res: any) => res.shouted(`${app.greeting()} ${req.shout()}`));
        return app;
      },
      ['/shout?say=hey'],
    );
  });
});
