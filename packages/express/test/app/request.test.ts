import { describe, expect, it } from 'vitest';
import { type AnyExpress, both, compare } from './harness.ts';

const dump = (req: any) => ({
  hostname: req.hostname ?? null,
  ip: req.ip,
  ips: req.ips,
  protocol: req.protocol,
  secure: req.secure,
  subdomains: req.subdomains,
});

describe('express() req, compared with express@4', () => {
  it('parses the query with qs by default, and follows the query parser setting', async () => {
    const probes = ['/q?a=1&a=2&b[c]=3&d[]=x&e=%20y', '/q', '/q?x[y][z]=1&arr[1]=b&arr[0]=a'];
    for (const parser of [undefined, 'simple', false, 'extended']) {
      await compare((express: AnyExpress) => {
        const app = express();
        if (parser !== undefined) app.set('query parser', parser);
        app.get('/q', (req: any, res: any) => res.json(req.query));
        return app;
      }, probes);
    }
    await compare((express: AnyExpress) => {
      const app = express();
      app.set('query parser', (text: string) => ({ raw: text }));
      app.get('/q', (req: any, res: any) => res.json(req.query));
      return app;
    }, probes);
  });

  it('reads hostname, ip, ips, protocol, secure and subdomains under trust proxy', async () => {
    const headers = { 'x-forwarded-for': '10.0.0.1, 10.0.0.2', 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'a.b.example.com:8080, other', host: 'tobi.ferrets.example.com:3000' };
    for (const trust of [undefined, true, 'loopback', 1, 2, '10.0.0.2, loopback', (addr: string) => addr === '127.0.0.1']) {
      await compare(
        (express: AnyExpress) => {
          const app = express();
          if (trust !== undefined) app.set('trust proxy', trust);
          app.get('/who', (req: any, res: any) => res.json(dump(req)));
          return app;
        },
        [{ path: '/who', headers }, { path: '/who', headers: { host: '[::1]:3000' } }, { path: '/who', headers: { host: '127.0.0.1:9' } }],
      );
    }
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('subdomain offset', 3);
        app.get('/who', (req: any, res: any) => res.json(dump(req)));
        return app;
      },
      [{ path: '/who', headers }],
    );
  });

  it('keeps repeated header lines as Node does: req.headers, rawHeaders, headersDistinct, get()', async () => {
    const pair = await both((ex: AnyExpress) => {
      const app = ex();
      app.get('/h', (req: any, res: any) => {
        const { host: _host, ...headers } = req.headers;
        res.json({
          headers,
          raw: req.rawHeaders.filter((_v: string, i: number, all: string[]) => all[i - (i % 2)] !== 'host'),
          distinct: { x: req.headersDistinct['x-tag'], type: req.headersDistinct['content-type'] },
          get: [req.get('set-cookie'), req.get('content-type'), req.get('cookie'), req.get('x-tag'), req.get('user-agent')],
        });
      });
      return app;
    });
    const [theirs, ours] = await pair.raw(
      'GET /h HTTP/1.1\r\nhost: x\r\nx-tag: a\r\nset-cookie: s=1\r\ncontent-type: text/plain\r\ncookie: c=1\r\nx-tag: b\r\n' +
        'set-cookie: s=2\r\ncontent-type: application/json\r\ncookie: d=2\r\nuser-agent: one\r\nuser-agent: two\r\n\r\n',
    );
    const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(bodyOf(ours)).toEqual(bodyOf(theirs));
    expect(bodyOf(ours).headers).toEqual({
      'x-tag': 'a, b',
      'set-cookie': ['s=1', 's=2'],
      'content-type': 'text/plain',
      cookie: 'c=1; d=2',
      'user-agent': 'one',
    });
  });

  it('answers req.get, accepts*, is, fresh, stale, range, route, params and xhr', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/info/:id', (req: any, res: any) => {
          res.set('ETag', '"abc"');
          res.json({
            ua: req.get('User-Agent') ?? null,
            referrer: req.get('Referrer') ?? null,
            header: req.header('x-custom') ?? null,
            accepts: req.accepts(['json', 'html']),
            acceptsList: req.accepts(),
            lang: req.acceptsLanguages('en', 'fr'),
            enc: req.acceptsEncodings('gzip', 'br'),
            charset: req.acceptsCharsets('utf-8'),
            is: req.is('json'),
            fresh: req.fresh,
            stale: req.stale,
            range: req.range(1000) ?? null,
            combined: req.range(1000, { combine: true }) ?? null,
            route: req.route.path,
            params: req.params,
            xhr: req.xhr,
            path: req.path,
          });
        });
        return app;
      },
      [
        { path: '/info/1', headers: { 'user-agent': 'ua', referer: 'http://r/', 'x-custom': 'c', accept: 'text/html;q=0.5, application/json', 'accept-language': 'fr', 'accept-encoding': 'br', range: 'bytes=0-10,5-20' } },
        { path: '/info/2', headers: { 'if-none-match': '"abc"', 'x-requested-with': 'XMLHttpRequest', range: 'bytes=2000-3000' } },
        { path: '/info/3', headers: { range: 'nope' } },
      ],
    );
  });

  it('is a readable stream for express.json, urlencoded, text and raw with their options and errors', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.post('/json', express.json(), (req: any, res: any) => res.json({ body: req.body }));
        app.post('/strict', express.json({ strict: false }), (req: any, res: any) => res.json({ body: req.body }));
        app.post('/small', express.json({ limit: 10 }), (req: any, res: any) => res.json({ body: req.body }));
        app.post('/form', express.urlencoded({ extended: true }), (req: any, res: any) => res.json({ body: req.body }));
        app.post('/form-simple', express.urlencoded({ extended: false }), (req: any, res: any) => res.json({ body: req.body }));
        app.post('/text', express.text(), (req: any, res: any) => res.json({ body: req.body }));
        app.post('/raw', express.raw(), (req: any, res: any) => res.json({ length: req.body.length, isBuffer: Buffer.isBuffer(req.body) }));
        app.post('/pipe', (req: any, res: any) => {
          const chunks: Buffer[] = [];
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('end', () => res.send(`got ${Buffer.concat(chunks).length}`));
        });
        return app;
      },
      [
        { method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' },
        { method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: '{"a":' },
        { method: 'POST', path: '/json', headers: { 'content-type': 'text/plain' }, body: '{"a":1}' },
        { method: 'POST', path: '/json', headers: { 'content-type': 'application/json' }, body: '"x"' },
        { method: 'POST', path: '/strict', headers: { 'content-type': 'application/json' }, body: '"x"' },
        { method: 'POST', path: '/small', headers: { 'content-type': 'application/json' }, body: '{"a":"0123456789"}' },
        { method: 'POST', path: '/form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a[b]=1&c=2&c=3' },
        { method: 'POST', path: '/form-simple', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a[b]=1&c=2&c=3' },
        { method: 'POST', path: '/text', headers: { 'content-type': 'text/plain' }, body: 'hello' },
        { method: 'POST', path: '/raw', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(3000, 1) },
        { method: 'POST', path: '/pipe', body: 'x'.repeat(70_000) },
      ],
    );
  });
});
