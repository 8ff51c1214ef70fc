/**
 * Express 5's request, compared with express@5: the query getter and its parsers, host with its
 * port, hostname, protocol/ip/subdomains under trust proxy, the removed `req.param()`, bodies
 * through body-parser 2 (`req.body` undefined without a parser, urlencoded not extended).
 */
import { describe, expect, it } from 'vitest';
import { jsonReads } from '../../src/app/json.ts';
import { type AnyExpress, both, compare } from '../app/harness.ts';

const five = { major: 5 as const };

describe('express/5 request, compared with express@5', () => {
  it("parses the query with the 'simple' parser by default, 'extended' and a function when set, nothing when off", async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        const show = (req: any, res: any) => {
          // Each read parses anew in Express 5: two reads are two objects.
          const first = req.query;
          res.json({ q: first, proto: Object.getPrototypeOf(first) === null, same: first === req.query });
        };
        app.get('/simple', show);
        const extended = express();
        extended.set('query parser', 'extended');
        extended.get('/', show);
        app.use('/extended', extended);
        const off = express();
        off.set('query parser', false);
        off.get('/', show);
        app.use('/off', off);
        const own = express();
        own.set('query parser', (text: string | null) => ({ text }));
        own.get('/', show);
        app.use('/own', own);
        return app;
      },
      ['/simple?a=1&a=2&b[c]=3&d', '/simple', '/simple?', '/extended/?a[b]=1&c[]=2&c[]=3', '/off/?a=1', '/own/?x=%20y', '/own/'],
      five,
    );
  });

  it('refuses an assignment to req.query (a getter in Express 5) and keeps nothing written into it', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/assign', (req: any, res: any) => {
          try {
            req.query = { replaced: true };
            res.json({ assigned: true, q: req.query });
          } catch (err) {
            res.json({ threw: (err as Error).name });
          }
        });
        app.get('/mutate', (req: any, res: any) => {
          req.query.added = 'x';
          res.json(req.query);
        });
        return app;
      },
      ['/assign?a=1', '/mutate?a=1'],
      five,
    );
  });

  it('reads host with its port, hostname, protocol, ip, ips and subdomains under trust proxy', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      const show = (req: any, res: any) =>
        res.json({ host: req.host, hostname: req.hostname, protocol: req.protocol, secure: req.secure, ip: req.ip, ips: req.ips, subdomains: req.subdomains });
      app.get('/plain', show);
      const trusting = express();
      trusting.set('trust proxy', true);
      trusting.get('/', show);
      app.use('/trusting', trusting);
      return app;
    }, five);
    // Raw bytes: fetch writes its own Host line. Velox writes header names in lower case, in
    // its own order: the lines are compared as a set, case-folded.
    const lines = (text: string) => text.split('\r\n').map((l) => l.toLowerCase()).sort();
    const ask = async (path: string, headers: string[]) => {
      const [theirs, ours] = await pair.raw(`GET ${path} HTTP/1.1\r\n${headers.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`);
      expect(theirs).toMatch(/^HTTP\/1\.1 200/);
      expect(lines(ours), path).toEqual(lines(theirs));
    };
    const forwarded = ['Host: www.shop.example.com:8080', 'X-Forwarded-Host: api.shop.example.com:8443, other', 'X-Forwarded-Proto: https', 'X-Forwarded-For: 10.0.0.1, 10.0.0.2'];
    await ask('/plain', forwarded);
    await ask('/trusting/', forwarded);
    await ask('/trusting/', ['Host: [::1]:3000']);
    await ask('/trusting/', ['Host: a.b.example.com']);
  });

  it('has no req.param() (removed in Express 5) and keeps get/accepts/is/fresh/range', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.set('env', 'production');
      app.get('/param/:id', (req: any, res: any) => res.json({ type: typeof req.param }));
      app.get('/helpers', (req: any, res: any) =>
        res.json({
          ua: req.get('user-agent'),
          ref: req.get('referrer'),
          accepts: req.accepts(['json', 'html']),
          charsets: req.acceptsCharsets('utf-8'),
          languages: req.acceptsLanguages('fr', 'en'),
          encodings: req.acceptsEncodings('gzip'),
          is: req.is('json'),
          fresh: req.fresh,
          stale: req.stale,
          range: req.range(1000),
          xhr: req.xhr,
          path: req.path,
        }),
      );
      return app;
    }, five);
    await pair.same('/param/1');
    await pair.same({
      path: '/helpers?x=1',
      headers: { 'user-agent': 'probe', referer: '/from', accept: 'text/html', 'accept-language': 'en', 'accept-encoding': 'gzip', range: 'bytes=0-99', 'x-requested-with': 'XMLHttpRequest' },
    });
  });

  it('parses bodies with body-parser 2: json, urlencoded (not extended by default), text, raw, and leaves req.body undefined without one', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.set('env', 'production');
      app.post('/none', (req: any, res: any) => res.json({ body: req.body === undefined ? 'undefined' : req.body }));
      app.post('/json', express.json(), (req: any, res: any) => res.json({ body: req.body === undefined ? 'undefined' : req.body }));
      app.post('/form', express.urlencoded(), (req: any, res: any) => res.json(req.body));
      app.post('/form-ext', express.urlencoded({ extended: true }), (req: any, res: any) => res.json(req.body));
      app.post('/text', express.text(), (req: any, res: any) => res.json({ text: req.body }));
      app.post('/raw', express.raw(), (req: any, res: any) => res.json({ length: req.body.length, isBuffer: Buffer.isBuffer(req.body) }));
      app.post('/small', express.json({ limit: 10 }), (req: any, res: any) => res.json(req.body));
      app.use((err: any, req: any, res: any, _next: any) => res.status(err.status ?? 500).json({ type: err.type, status: err.status, body: req.body === undefined ? 'undefined' : req.body }));
      return app;
    }, five);
    await pair.same({ method: 'POST', path: '/none', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    await pair.same({ method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' });
    await pair.same({ method: 'POST', path: '/json', headers: { 'content-type': 'text/plain' }, body: '{"a":1}' });
    await pair.same({ method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: '{bad' });
    await pair.same({ method: 'POST', path: '/form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a[b]=1&c=2&c=3' });
    await pair.same({ method: 'POST', path: '/form-ext', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a[b]=1&c=2&c=3' });
    await pair.same({ method: 'POST', path: '/text', headers: { 'content-type': 'text/plain' }, body: 'héllo' });
    await pair.same({ method: 'POST', path: '/raw', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(300, 7) });
    await pair.same({ method: 'POST', path: '/small', headers: { 'content-type': 'application/json' }, body: '{"long":"0123456789"}' });
    // The short road's cases (a plain JSON body of declared length) and its hand-over to body-parser 2.
    const before = jsonReads();
    await pair.same({ method: 'POST', path: '/json', headers: { 'content-type': 'application/json', 'content-length': '0' }, body: '' });
    await pair.same({ method: 'POST', path: '/json', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '\ufeff[1,"é"]' });
    await pair.same({ method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: '"a string"' });
    await pair.same({ method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: ' \n{"spaced":true}' });
    await pair.same({ method: 'POST', path: '/json', headers: { 'content-type': 'application/json; charset=latin1' }, body: '{"a":1}' });
    // Four of these were read through Velox (the string and the padded object parsed by it too;
    // the string handed to body-parser 2 for its error), the latin1 one by body-parser 2 alone.
    const after = jsonReads();
    expect(after.quick - before.quick).toBe(4);
    expect(after.replayed - before.replayed).toBe(1);
  });
});
