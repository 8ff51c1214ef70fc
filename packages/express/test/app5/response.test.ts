/**
 * The response side of Express 5, compared: every app is built with express@5 and with
 * `@velox/express/5`, the same requests go to both over real sockets, and the answers (status,
 * headers, body) must be identical (see ../app/harness.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cookieParser from 'cookie-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyExpress, both, compare, type Probe } from '../app/harness.ts';

const five = { major: 5 } as const;

/** An error handler that answers with what the error says (no stack: it differs between the two). */
function reportErrors(app: any): void {
  app.use((err: any, _req: any, res: any, _next: any) => {
    res.status(err.status ?? 500).json({ name: err.name, message: err.message, status: err.status, code: err.code, types: err.types });
  });
}

let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'velox-express5-res-'));
  writeFileSync(join(dir, 'hello.txt'), 'hello file\n');
  writeFileSync(join(dir, 'page.html'), '<p>page</p>');
  writeFileSync(join(dir, 'data.json'), '{"a":1}');
  writeFileSync(join(dir, 'a b.txt'), 'spaced name');
  writeFileSync(join(dir, '.secret'), 'hidden');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'report.pdf'), '%PDF-1.4 fake');
  writeFileSync(join(dir, 'index.ejs'), '<h1><%= title %></h1><p><%= user %> on <%= site %></p>');
  writeFileSync(join(dir, 'plain.tpl'), 'hello {{name}} from {{site}}');
  mkdirSync(join(dir, 'users'));
  writeFileSync(join(dir, 'users', 'index.ejs'), 'users of <%= site %>');
  // A fixed modification time: both servers send the same Last-Modified and (send 1.x) ETag.
  const when = new Date('2024-01-02T03:04:05Z');
  for (const name of ['hello.txt', 'page.html', 'data.json', 'a b.txt', '.secret', 'sub/report.pdf']) utimesSync(join(dir, name), when, when);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('@velox/express/5 res.send, compared with express@5', () => {
  it('sends strings, Buffers, Uint8Arrays, objects, numbers and booleans (as JSON), null and undefined alike', async () => {
    const answers = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/string', (_req: any, res: any) => res.send('héllo'));
        app.get('/empty', (_req: any, res: any) => res.send(''));
        app.get('/long', (_req: any, res: any) => res.send('x'.repeat(2000)));
        app.get('/buffer', (_req: any, res: any) => res.send(Buffer.from('bytes')));
        app.get('/uint8', (_req: any, res: any) => res.send(new Uint8Array([104, 105, 33])));
        app.get('/uint8-view', (_req: any, res: any) => res.send(new Uint8Array(Buffer.from('xxabcxx').buffer.slice(0), 2, 3)));
        app.get('/uint8-typed', (_req: any, res: any) => res.type('txt').send(new Uint8Array([111, 107])));
        app.get('/object', (_req: any, res: any) => res.send({ a: 1, b: ['x', null] }));
        app.get('/array', (_req: any, res: any) => res.send([1, 'two']));
        app.get('/number', (_req: any, res: any) => res.send(404));
        app.get('/float', (_req: any, res: any) => res.send(1.5));
        app.get('/true', (_req: any, res: any) => res.send(true));
        app.get('/false', (_req: any, res: any) => res.send(false));
        app.get('/null', (_req: any, res: any) => res.send(null));
        app.get('/undefined', (_req: any, res: any) => res.send());
        app.get('/two-args', (_req: any, res: any) => res.send('body', 201));
        app.get('/typed', (_req: any, res: any) => res.type('text').send('plain'));
        app.get('/typed-charset', (_req: any, res: any) => res.set('Content-Type', 'text/plain; charset=iso-8859-1').send('latin'));
        app.get('/json-type-string', (_req: any, res: any) => res.type('json').send('{"raw":true}'));
        app.get('/204', (_req: any, res: any) => res.status(204).set('Content-Type', 'text/plain').send('dropped'));
        app.get('/205', (_req: any, res: any) => res.status(205).send('dropped'));
        app.get('/own-etag', (_req: any, res: any) => res.set('ETag', '"mine"').send('x'));
        app.get('/status-then-number', (_req: any, res: any) => res.status(201).send(7));
        return app;
      },
      [
        '/string',
        '/empty',
        '/long',
        '/buffer',
        '/uint8',
        '/uint8-view',
        '/uint8-typed',
        '/object',
        '/array',
        '/number',
        '/float',
        '/true',
        '/false',
        '/null',
        '/undefined',
        '/two-args',
        '/typed',
        '/typed-charset',
        '/json-type-string',
        '/204',
        '/205',
        '/own-etag',
        '/status-then-number',
        { method: 'HEAD', path: '/string' },
        { method: 'HEAD', path: '/object' },
        { method: 'HEAD', path: '/buffer' },
      ],
      five,
    );
    const number = answers[9]!;
    expect([number.status, number.headers['content-type'], number.body]).toEqual([200, 'application/json; charset=utf-8', '404']);
    expect([answers[11]!.body, answers[15]!.status]).toEqual(['true', 200]);
    expect(answers[4]!.headers['content-type']).toBe('application/octet-stream');
  });

  it('leaves out Content-Length where the app set Transfer-Encoding (Velox frames a whole body with Content-Length, as documented)', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/te', (_req: any, res: any) => res.set('Transfer-Encoding', 'chunked').send('hello'));
      return app;
    }, five);
    const [theirs, ours] = await pair.ask('/te');
    expect(theirs.headers['content-length']).toBeUndefined();
    expect(ours.headers['content-length']).toBe('5');
    await pair.same('/te', { ignore: ['content-length'] });
  });

  it('sends weak ETags by default, strong ones under etag "strong", none under etag false, and 304 to a matching If-None-Match', async () => {
    const tags: Record<string, string | undefined> = {};
    for (const etag of [undefined, 'weak', 'strong', false, true, (body: Buffer) => `"len-${body.length}"`]) {
      const pair = await both((express: AnyExpress) => {
        const app = express();
        if (etag !== undefined) app.set('etag', etag);
        app.get('/e', (_req: any, res: any) => res.send('some body'));
        app.get('/long', (_req: any, res: any) => res.send('é'.repeat(1200)));
        app.get('/json', (_req: any, res: any) => res.json({ a: 1 }));
        app.get('/buffer', (_req: any, res: any) => res.send(Buffer.from('buffer body')));
        app.get('/201', (_req: any, res: any) => res.status(201).send('some body'));
        return app;
      }, five);
      for (const path of ['/e', '/long', '/json', '/buffer', '/201']) {
        const first = await pair.same(path);
        tags[`${typeof etag === 'function' ? 'custom' : String(etag)} ${path}`] = first.headers.etag;
        await pair.same({ method: 'HEAD', path });
        if (first.headers.etag) {
          // fetch adds Cache-Control: no-cache to a conditional request (fresh() then says no) unless it has one.
          const fresh = await pair.same({ path, headers: { 'if-none-match': first.headers.etag, 'cache-control': 'max-age=0' } });
          await pair.same({ path, headers: { 'if-none-match': first.headers.etag } });
          await pair.same({ path, headers: { 'if-none-match': '"other"', 'cache-control': 'max-age=0' } });
          await pair.same({ method: 'HEAD', path, headers: { 'if-none-match': first.headers.etag, 'cache-control': 'max-age=0' } });
          if (path === '/e') expect(fresh.status).toBe(304);
        }
      }
    }
    expect(tags['undefined /e']).toMatch(/^W\/"/);
    expect(tags['strong /e']).toMatch(/^"/);
    expect(tags['false /e']).toBeUndefined();
    expect(tags['custom /e']).toBe('"len-9"');
  });
});

describe('@velox/express/5 res.json, res.jsonp and res.sendStatus, compared with express@5', () => {
  it('ignores the status of res.json(obj, status), and follows json spaces, json replacer and json escape', async () => {
    const [, withStatus, statusFirst, , , , , , fancy] = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/plain', (_req: any, res: any) => res.json({ a: '<b>&', secret: 1 }));
        app.get('/with-status', (_req: any, res: any) => res.json({ a: 1 }, 201));
        app.get('/status-first', (_req: any, res: any) => res.json(201, { a: 1 }));
        app.get('/status', (_req: any, res: any) => res.status(201).json(null));
        app.get('/undefined', (_req: any, res: any) => res.json(undefined));
        app.get('/string', (_req: any, res: any) => res.json('text'));
        app.get('/number', (_req: any, res: any) => res.json(42));
        app.get('/own-type', (_req: any, res: any) => res.type('text/x-json').json({ own: true }));
        const fancy = express();
        fancy.set('json spaces', 2);
        fancy.set('json replacer', (key: string, value: unknown) => (key === 'secret' ? undefined : value));
        fancy.set('json escape', true);
        fancy.get('/', (_req: any, res: any) => res.json({ a: '<b>&', secret: 1, list: [1, 2] }));
        fancy.get('/send', (_req: any, res: any) => res.send({ a: '<script>' }));
        app.use('/fancy', fancy);
        return app;
      },
      ['/plain', '/with-status', '/status-first', '/status', '/undefined', '/string', '/number', '/own-type', '/fancy', '/fancy/send'],
      five,
    );
    expect([withStatus!.status, withStatus!.body, statusFirst!.status, statusFirst!.body]).toEqual([200, '{"a":1}', 200, '201']);
    expect(fancy!.body).toBe('{\n  "a": "\\u003cb\\u003e\\u0026",\n  "list": [\n    1,\n    2\n  ]\n}');
  });

  it('sends JSONP with the default and a configured callback name, cleaning the callback', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/jsonp', (_req: any, res: any) => res.jsonp({ x: '\u2028\u2029' }));
        app.get('/jsonp-status', (_req: any, res: any) => res.jsonp({ x: 1 }, 201));
        app.get('/jsonp-undefined', (_req: any, res: any) => res.jsonp(undefined));
        app.get('/jsonp-number', (_req: any, res: any) => res.jsonp(3));
        const named = express();
        named.set('jsonp callback name', 'cb');
        named.set('json spaces', 1);
        named.set('json escape', true);
        named.get('/', (_req: any, res: any) => res.jsonp({ x: '<&>' }));
        app.use('/named', named);
        return app;
      },
      [
        '/jsonp',
        '/jsonp?callback=fn',
        '/jsonp?callback=a.b[0]%3Balert(1)',
        '/jsonp?callback=x&callback=y',
        '/jsonp?callback=',
        '/jsonp-status?callback=fn',
        '/jsonp-undefined?callback=fn',
        '/jsonp-undefined',
        '/jsonp-number?callback=fn',
        '/named',
        '/named?cb=done',
        '/named?callback=ignored',
      ],
      five,
    );
  });

  it('sends res.sendStatus with the status text, or the number for a code without one', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/status/:n', (req: any, res: any) => res.sendStatus(Number(req.params.n)));
        app.get('/typed', (_req: any, res: any) => res.type('json').sendStatus(201));
        return app;
      },
      ['/status/200', '/status/201', '/status/404', '/status/418', '/status/299', '/status/599', '/status/204', '/status/304', '/typed', { method: 'HEAD', path: '/status/404' }],
      five,
    );
  });

  it('refuses status codes that are no integer from 100 to 999: the error reaches the final handler (500)', async () => {
    const answers = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/string', (_req: any, res: any) => res.status('200').send('no'));
        app.get('/low', (_req: any, res: any) => res.status(99).send('no'));
        app.get('/high', (_req: any, res: any) => res.status(1000).send('no'));
        app.get('/fraction', (_req: any, res: any) => res.status(200.5).send('no'));
        app.get('/nan', (_req: any, res: any) => res.status(Number.NaN).send('no'));
        app.get('/send-status', (_req: any, res: any) => res.sendStatus(1000));
        app.get('/redirect', (_req: any, res: any) => res.redirect(99, '/x'));
        app.get('/redirect-string', (_req: any, res: any) => res.redirect('301', '/x'));
        app.get('/swapped', (_req: any, res: any) => res.redirect('/x', 301));
        app.get('/bigint', (_req: any, res: any) => res.json({ n: 1n }));
        app.get('/fine', (_req: any, res: any) => res.status(999).send('odd but fine'));
        return app;
      },
      ['/string', '/low', '/high', '/fraction', '/nan', '/send-status', '/redirect', '/redirect-string', '/swapped', '/bigint', '/fine'],
      five,
    );
    expect(answers.map((a) => a.status)).toEqual([500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 999]);
    expect(answers[0]!.body).toContain('<pre>Internal Server Error</pre>');
  });

  it('hands the RangeError and TypeError of res.status to error middleware', async () => {
    const [text, range] = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/string', (_req: any, res: any) => res.status('200').send('no'));
        app.get('/high', (_req: any, res: any) => res.status(1000).send('no'));
        app.get('/async', async (_req: any, res: any) => res.status(200.5).send('no'));
        reportErrors(app);
        return app;
      },
      ['/string', '/high', '/async'],
      five,
    );
    expect(JSON.parse(text!.body)).toEqual({ name: 'TypeError', message: 'Invalid status code: "200". Status code must be an integer.' });
    expect(JSON.parse(range!.body).name).toBe('RangeError');
  });
});

describe('@velox/express/5 res headers: type, set, append, links, vary, compared with express@5', () => {
  it('sets types from extensions and full types with res.type and res.contentType (mime-types 3)', async () => {
    const types = ['js', '.js', 'json', 'html', 'txt', 'text', 'png', 'md', 'mjs', 'csv', 'xml', 'svg', 'wasm', 'unknownext', 'application/vnd.api+json', 'text/plain; charset=latin1', 'image/x-custom'];
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/type/:i', (req: any, res: any) => res.type(types[Number(req.params.i)]).send('body'));
        app.get('/ct/:i', (req: any, res: any) => res.contentType(types[Number(req.params.i)]).send(Buffer.from('bytes')));
        app.get('/end/:i', (req: any, res: any) => res.type(types[Number(req.params.i)]).end('ended'));
        return app;
      },
      types.flatMap((_t, i) => [`/type/${i}`, `/ct/${i}`, `/end/${i}`]),
      five,
    );
  });

  it("completes res.set('Content-Type') through mime-types (charsets added, an unknown bare word kept as express@5 keeps it)", async () => {
    const values = ['application/json', 'text/html', 'text/plain', 'text/css', 'application/javascript', 'image/png', 'text/plain; charset=ascii', 'application/x-unknown', 'json', 'html', 'bogus', 'Application/JSON', 'text/html;charset=utf-8'];
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/set/:i', (req: any, res: any) => res.set('Content-Type', values[Number(req.params.i)]).end('x'));
        app.get('/lower/:i', (req: any, res: any) => res.header('content-type', values[Number(req.params.i)]).send('x'));
        app.get('/object/:i', (req: any, res: any) => res.set({ 'Content-Type': values[Number(req.params.i)], 'X-Other': 'y' }).send(Buffer.from('x')));
        app.get('/unknown-read', (_req: any, res: any) => {
          res.set('Content-Type', 'bogus');
          res.end(JSON.stringify([res.get('Content-Type'), res.getHeader('content-type'), res.hasHeader('Content-Type')]));
        });
        app.get('/unknown-then-known', (_req: any, res: any) => res.set('Content-Type', 'bogus').set('Content-Type', 'text/plain').send(String(res.get('content-type'))));
        app.get('/unknown-json', (_req: any, res: any) => res.set('Content-Type', 'bogus').json({ typed: 'again' }));
        app.get('/setHeader', (_req: any, res: any) => {
          res.setHeader('Content-Type', 'application/json');
          res.end('{}');
        });
        app.get('/array', (_req: any, res: any) => {
          try {
            res.set('Content-Type', ['text/html', 'text/plain']);
            res.send('no');
          } catch (err: any) {
            res.status(500).send(`${err.name}: ${err.message}`);
          }
        });
        return app;
      },
      [...values.flatMap((_v, i) => [`/set/${i}`, `/lower/${i}`, `/object/${i}`]), '/unknown-read', '/unknown-then-known', '/unknown-json', '/setHeader', '/array'],
      five,
    );
  });

  it('sets headers from an object, numbers and arrays, appends, and reads them back with res.get', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/object', (_req: any, res: any) =>
          res
            .set({ 'X-One': '1', 'X-Number': 2, 'X-List': ['a', 'b'], 'Content-Type': 'text/plain' })
            .send(JSON.stringify({ one: res.get('x-one'), number: res.get('X-Number'), list: res.get('x-list'), type: res.get('content-type') })),
        );
        app.get('/append', (_req: any, res: any) =>
          res
            .append('X-List', 'a')
            .append('X-List', ['b', 'c'])
            .append('X-Single', ['only'])
            .append('Link', '<http://localhost/>')
            .append('Link', '<http://localhost:3000/>')
            .append('Set-Cookie', 'foo=bar; Path=/; HttpOnly')
            .append('Set-Cookie', ['a=1', 'b=2'])
            .send('ok'),
        );
        app.get('/append-first', (_req: any, res: any) => res.append('X-Fresh', ['1', '2']).append('Warning', '199 Miscellaneous warning').send('ok'));
        app.get('/header', (_req: any, res: any) => res.header('X-Alias', 'yes').send(String(res.header === res.set)));
        return app;
      },
      ['/object', '/append', '/append-first', '/header'],
      five,
    );
  });

  it('sets Link with res.links, arrays of targets included, appending to what is there', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/links', (_req: any, res: any) => res.links({ next: '/p/2', last: '/p/9' }).links({ prev: '/p/0' }).send('ok'));
        app.get('/array', (_req: any, res: any) =>
          res.links({ pages: ['http://api.example.com/users?page=1', 'http://api.example.com/users?page=2'], next: 'http://api.example.com/users?page=3' }).send('ok'),
        );
        app.get('/after-set', (_req: any, res: any) => res.set('Link', '<a>; rel="first"').links({ more: ['b', 'c'] }).send('ok'));
        app.get('/empty', (_req: any, res: any) => res.links({}).send('ok'));
        return app;
      },
      ['/links', '/array', '/after-set', '/empty'],
      five,
    );
  });

  it('adds to Vary with res.vary, and refuses res.vary() without a field (500 in production)', async () => {
    const [vary, , , none, empty, reported] = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/vary', (_req: any, res: any) => res.vary('Origin').vary('Accept').vary('origin').send('x'));
        app.get('/list', (_req: any, res: any) => res.vary(['Accept-Encoding', 'User-Agent']).send('x'));
        app.get('/star', (_req: any, res: any) => res.vary('*').vary('Origin').send('x'));
        app.get('/none', (_req: any, res: any) => res.vary().send('x'));
        app.get('/empty', (_req: any, res: any) => res.vary('').send('x'));
        const reported = express();
        reported.get('/', (_req: any, res: any) => res.vary().send('x'));
        reportErrors(reported);
        app.use('/reported', reported);
        return app;
      },
      ['/vary', '/list', '/star', '/none', '/empty', '/reported'],
      five,
    );
    expect(vary!.headers.vary).toBe('Origin, Accept');
    expect([none!.status, empty!.status, JSON.parse(reported!.body).message]).toEqual([500, 500, 'field argument is required']);
  });
});

describe('@velox/express/5 res.format and res.attachment, compared with express@5', () => {
  it('negotiates with res.format: extensions and full types, default, and 406 without a default', async () => {
    const answers = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/f', (_req: any, res: any) =>
          res.format({
            text: () => res.send('text'),
            'application/json': () => res.json({ kind: 'json' }),
            'text/html; level=1': () => res.send('<b>html</b>'),
          }),
        );
        app.get('/d', (_req: any, res: any) => res.format({ html: () => res.send('<b>html</b>'), default: () => res.status(406).send('nothing') }));
        app.get('/only-default', (_req: any, res: any) => res.format({ default: (_q: any, r: any) => r.send('default only') }));
        app.get('/unknown-ext', (_req: any, res: any) => res.format({ weirdext: () => res.send('weird') }));
        const reported = express();
        reported.get('/', (_req: any, res: any) => res.format({ json: () => res.json({}), png: () => res.end() }));
        reportErrors(reported);
        app.use('/reported', reported);
        return app;
      },
      [
        '/f',
        { path: '/f', headers: { accept: 'text/plain' } },
        { path: '/f', headers: { accept: 'application/json' } },
        { path: '/f', headers: { accept: 'text/html' } },
        { path: '/f', headers: { accept: 'text/*;q=0.5, application/json;q=0.9' } },
        { path: '/f', headers: { accept: 'image/png' } },
        { method: 'HEAD', path: '/f', headers: { accept: 'image/png' } },
        { path: '/d', headers: { accept: 'image/png' } },
        { path: '/d', headers: { accept: 'text/html' } },
        { path: '/only-default', headers: { accept: 'text/html' } },
        '/unknown-ext',
        { path: '/unknown-ext', headers: { accept: 'application/octet-stream' } },
        { path: '/reported', headers: { accept: 'text/csv' } },
      ],
      five,
    );
    expect(answers[5]!.status).toBe(406);
    expect(JSON.parse(answers[12]!.body)).toEqual({ name: 'NotAcceptableError', message: 'Not Acceptable', status: 406, types: ['application/json', 'image/png'] });
  });

  it('sets Content-Disposition with res.attachment from a base name (and its type), or without a name', async () => {
    const [path] = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/path', (_req: any, res: any) => res.attachment('dir/a b.pdf').send(Buffer.from('%PDF')));
        app.get('/deep', (_req: any, res: any) => res.attachment('/var/www/files/report.json').send({ a: 1 }));
        app.get('/plain', (_req: any, res: any) => res.attachment('notes.txt').send('text'));
        app.get('/none', (_req: any, res: any) => res.attachment().send('x'));
        app.get('/empty', (_req: any, res: any) => res.attachment('').send('x'));
        app.get('/no-ext', (_req: any, res: any) => res.attachment('README').send('x'));
        app.get('/unknown', (_req: any, res: any) => res.attachment('data.unknownext').send(Buffer.from('x')));
        app.get('/quote', (_req: any, res: any) => res.attachment('say "hi".txt').send('x'));
        app.get('/trailing', (_req: any, res: any) => res.attachment('dir/').send('x'));
        return app;
      },
      ['/path', '/deep', '/plain', '/none', '/empty', '/no-ext', '/unknown', '/quote', '/trailing'],
      five,
    );
    expect([path!.headers['content-disposition'], path!.headers['content-type']]).toEqual(['attachment; filename="a b.pdf"', 'application/pdf']);
  });
});

describe('@velox/express/5 res.cookie and res.clearCookie, compared with express@5', () => {
  it('sets plain, JSON, maxAge and signed cookies, and reads them back through cookie-parser', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.use(cookieParser('s3cret'));
        app.get('/set', (_req: any, res: any) =>
          res
            .cookie('plain', 'a b', { httpOnly: true })
            .cookie('obj', { x: 1 })
            .cookie('num', 5)
            .cookie('signed', 'v', { signed: true, sameSite: 'lax' })
            .cookie('signed-obj', { y: [1] }, { signed: true })
            .cookie('aged', '1', { maxAge: 60_000, path: '/p', domain: 'example.com', secure: true })
            .cookie('aged-string', '1', { maxAge: '90000' })
            .cookie('aged-zero', '1', { maxAge: 0 })
            .send('set'),
        );
        app.get('/read', (req: any, res: any) => res.json({ cookies: req.cookies, signed: req.signedCookies, secret: req.secret }));
        return app;
      },
      ['/set', { path: '/read', headers: { cookie: 'plain=a%20b; obj=j%3A%7B%22x%22%3A1%7D; signed=s%3Av.2qYDZXcoEHSN9c2Ul/6W/ncCJWYNbyGt/9dySkq0bZM; bad=s%3Av.wrong' } }],
      five,
    );
  });

  it('serializes every cookie option the same way, and refuses a signed cookie without a secret and invalid names, values and options', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/all', (_req: any, res: any) =>
          res
            .cookie('a', 'v 1', { domain: 'example.com', path: '/x', expires: new Date('2030-01-02T03:04:05Z'), httpOnly: true, secure: true, sameSite: 'strict', priority: 'high', partitioned: true })
            .cookie('b', 'v', { sameSite: true })
            .cookie('c', 'v', { sameSite: 'none', secure: true })
            .cookie('d', 'a+b', { encode: String })
            .send('ok'),
        );
        app.get('/signed', (_req: any, res: any) => res.cookie('a', 'b', { signed: true }).send('no'));
        const bad: Record<string, [string, unknown, object?]> = {
          'max-age-nan': ['a', 'b', { maxAge: 'soon' }],
          'max-age-infinite': ['a', 'b', { maxAge: Number.POSITIVE_INFINITY }],
          'max-age-null': ['a', 'b', { maxAge: null }],
          name: ['a b', 'v'],
          value: ['a', 'x y', { encode: String }],
          encode: ['a', 'b', { encode: 'yes' }],
          domain: ['a', 'b', { domain: 'bad domain' }],
          path: ['a', 'b', { path: 'a;b' }],
          expires: ['a', 'b', { expires: 'tomorrow' }],
          'expires-invalid': ['a', 'b', { expires: new Date(Number.NaN) }],
          priority: ['a', 'b', { priority: 'urgent' }],
          'same-site': ['a', 'b', { sameSite: 'sometimes' }],
          'signed-and-bad': ['a', 'b', { signed: true, maxAge: 'soon' }],
        };
        app.get('/bad/:case', (req: any, res: any) => {
          const [name, value, options] = bad[req.params.case]!;
          res.cookie(name, value, options).send('set');
        });
        reportErrors(app);
        return app;
      },
      ['/all', '/signed', '/bad/max-age-nan', '/bad/max-age-infinite', '/bad/max-age-null', '/bad/name', '/bad/value', '/bad/encode', '/bad/domain', '/bad/path', '/bad/expires', '/bad/expires-invalid', '/bad/priority', '/bad/same-site', '/bad/signed-and-bad'],
      five,
    );
  });

  it('clears cookies with an expiry in the past, ignoring maxAge and expires given (Express 5)', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/clear', (_req: any, res: any) =>
          res
            .clearCookie('plain')
            .clearCookie('scoped', { path: '/x', domain: 'example.com', httpOnly: true, secure: true, sameSite: 'strict' })
            .clearCookie('aged', { maxAge: 60_000 })
            .clearCookie('expiring', { expires: new Date('2030-01-01T00:00:00Z') })
            .clearCookie('both', { maxAge: 1000, expires: new Date('2031-01-01T00:00:00Z'), path: '/both' })
            .send('cleared'),
        );
        return app;
      },
      ['/clear'],
      five,
    );
    // The harness blanks Expires: the date itself must be the epoch's first millisecond on both.
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/clear', (_req: any, res: any) => res.clearCookie('aged', { maxAge: 60_000, expires: new Date('2030-01-01T00:00:00Z') }).send('x'));
      return app;
    }, five);
    const [theirs, ours] = await Promise.all([fetch(`${pair.express}/clear`), fetch(`${pair.velox}/clear`)]);
    expect(ours.headers.getSetCookie()).toEqual(theirs.headers.getSetCookie());
    expect(theirs.headers.getSetCookie()).toEqual(['aged=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
  });
});

describe('@velox/express/5 res.location and res.redirect, compared with express@5', () => {
  it("takes 'back' as a literal URL in res.location and res.redirect, Referer or not", async () => {
    const [, back, , redirectBack] = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/location-back', (_req: any, res: any) => res.location('back').send('ok'));
        app.get('/redirect-back', (_req: any, res: any) => res.redirect('back'));
        app.get('/location', (_req: any, res: any) => res.location('/a b%20c?q=ä#frag').send('ok'));
        app.get('/location-url', (_req: any, res: any) => res.location('http://example.com/ä b').sendStatus(201));
        app.get('/location-object', (_req: any, res: any) => res.location(new URL('http://example.com/a b')).send('ok'));
        return app;
      },
      [
        '/location-back',
        { path: '/location-back', headers: { referer: 'http://example.com/from' } },
        '/redirect-back',
        { path: '/redirect-back', headers: { referer: '/from' } },
        '/location',
        '/location-url',
        '/location-object',
      ],
      five,
    );
    expect([back!.headers.location, redirectBack!.headers.location, redirectBack!.body]).toEqual(['back', 'back', 'Found. Redirecting to back']);
  });

  it('redirects with 302 or a given status, with bodies for Accept html, text and others, and none for HEAD', async () => {
    const answers = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/redirect', (_req: any, res: any) => res.redirect('/to?x=<y>&z="1"'));
        app.get('/redirect-301', (_req: any, res: any) => res.redirect(301, 'http://example.com/ä b'));
        app.get('/redirect-307', (_req: any, res: any) => res.redirect(307, '/again'));
        app.get('/redirect-399', (_req: any, res: any) => res.redirect(399, '/odd'));
        app.get('/relative', (_req: any, res: any) => res.redirect('../login'));
        app.get('/no-url', (_req: any, res: any) => res.redirect());
        return app;
      },
      [
        '/redirect',
        { path: '/redirect', headers: { accept: 'text/html' } },
        { path: '/redirect', headers: { accept: 'text/plain' } },
        { path: '/redirect', headers: { accept: 'application/json' } },
        { path: '/redirect', headers: { accept: 'text/html;q=0.5, text/plain' } },
        { method: 'HEAD', path: '/redirect' },
        { method: 'HEAD', path: '/redirect', headers: { accept: 'text/html' } },
        '/redirect-301',
        { path: '/redirect-301', headers: { accept: 'text/plain' } },
        { path: '/redirect-301', headers: { accept: 'image/png' } },
        '/redirect-307',
        { path: '/redirect-399', headers: { accept: 'text/plain' } },
        '/relative',
        '/no-url',
      ],
      five,
    );
    expect(answers[1]!.body).toBe('<!DOCTYPE html><head><title>Found</title></head><body><p>Found. Redirecting to /to?x=%3Cy%3E&amp;z=%221%22</p></body>');
    expect([answers[5]!.status, answers[5]!.body, answers[7]!.status]).toEqual([302, '', 301]);
  });
});

describe('@velox/express/5 res.sendFile and res.download, compared with express@5', () => {
  it('sends a file by absolute path, through root, with headers, maxAge and the etag setting, and 404 through next(err) for a missing one', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.set('env', 'production');
      app.get('/abs', (_req: any, res: any) => res.sendFile(join(dir, 'hello.txt')));
      app.get('/abs-spaced', (_req: any, res: any) => res.sendFile(join(dir, 'a b.txt')));
      app.get('/root/:name', (req: any, res: any) => res.sendFile(req.params.name, { root: dir, headers: { 'x-file': 'yes', 'Cache-Control': 'no-store' } }));
      app.get('/nested', (_req: any, res: any) => res.sendFile('sub/report.pdf', { root: dir }));
      app.get('/age', (_req: any, res: any) => res.sendFile(join(dir, 'data.json'), { maxAge: '2h' }));
      app.get('/age-number', (_req: any, res: any) => res.sendFile(join(dir, 'data.json'), { maxAge: 60_000, immutable: true }));
      app.get('/no-modified', (_req: any, res: any) => res.sendFile(join(dir, 'data.json'), { lastModified: false, cacheControl: false }));
      app.get('/missing', (_req: any, res: any) => res.sendFile(join(dir, 'none.txt')));
      app.get('/escape', (_req: any, res: any) => res.sendFile('../etc/passwd', { root: dir }));
      app.get('/directory', (_req: any, res: any) => res.sendFile(join(dir, 'sub')));
      app.get('/relative', (_req: any, res: any) => res.sendFile('hello.txt'));
      app.get('/dot/:how', (req: any, res: any) => res.sendFile('.secret', { root: dir, ...(req.params.how === 'default' ? {} : { dotfiles: req.params.how }) }));
      const noEtag = express();
      noEtag.set('etag', false);
      noEtag.get('/', (_req: any, res: any) => res.sendFile(join(dir, 'hello.txt')));
      app.use('/no-etag', noEtag);
      const missing = express();
      missing.get('/', (_req: any, res: any) => res.sendFile(join(dir, 'none.txt')));
      reportErrors(missing);
      app.use('/missing-reported', missing);
      app.use((req: any, res: any) => res.status(404).send(`fell through: ${req.path}`));
      return app;
    }, five);
    const probes: Probe[] = [
      { path: '/abs' },
      { path: '/abs-spaced' },
      { path: '/root/page.html' },
      { path: '/root/data.json' },
      { path: '/nested' },
      { path: '/age' },
      { path: '/age-number' },
      { path: '/no-modified' },
      { path: '/missing' },
      { path: '/missing-reported' },
      { path: '/escape' },
      { path: '/directory' },
      { path: '/relative' },
      { path: '/dot/default' },
      { path: '/dot/allow' },
      { path: '/dot/deny' },
      { path: '/dot/ignore' },
      { path: '/no-etag' },
      { method: 'HEAD', path: '/abs' },
      { path: '/abs', headers: { range: 'bytes=0-4' } },
      { path: '/abs', headers: { range: 'bytes=50-60' } },
    ];
    for (const probe of probes) await pair.same(probe);
    const first = await pair.same('/abs');
    expect(first.headers.etag).toMatch(/^W\//);
    expect((await pair.same('/no-etag')).headers.etag).toBeUndefined();
    // fetch adds Cache-Control: no-cache to a conditional request unless it has one.
    const fresh = { 'cache-control': 'max-age=0' };
    expect((await pair.same({ path: '/abs', headers: { ...fresh, 'if-none-match': first.headers.etag! } })).status).toBe(304);
    expect((await pair.same({ path: '/abs', headers: { ...fresh, 'if-modified-since': first.headers['last-modified']! } })).status).toBe(304);
    expect((await pair.same({ path: '/no-etag', headers: { ...fresh, 'if-none-match': first.headers.etag! } })).status).toBe(200);
    expect((await pair.same({ path: '/abs', headers: { ...fresh, 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('calls the callback of res.sendFile with the error or nothing, and throws for a path that is no absolute one', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/callback-missing', (_req: any, res: any) =>
          res.sendFile(join(dir, 'none.txt'), (err: any) => res.status(err ? 410 : 200).json({ err: err ? { status: err.status, code: err.code, name: err.name } : null })),
        );
        app.get('/callback-ok', (_req: any, res: any) =>
          res.sendFile(join(dir, 'hello.txt'), (err: any) => {
            if (err) res.status(500).end('bad');
          }),
        );
        app.get('/callback-options', (_req: any, res: any) =>
          res.sendFile('page.html', { root: dir }, (err: any) => {
            if (err) res.status(500).end('bad');
          }),
        );
        app.get('/callback-dir', (_req: any, res: any) => res.sendFile(join(dir, 'sub'), (err: any) => res.status(400).send(err ? err.code : 'none')));
        app.get('/relative', (_req: any, res: any) => res.sendFile('hello.txt'));
        app.get('/no-path', (_req: any, res: any) => res.sendFile());
        app.get('/not-string', (_req: any, res: any) => res.sendFile(42));
        reportErrors(app);
        return app;
      },
      ['/callback-missing', '/callback-ok', '/callback-options', '/callback-dir', '/relative', '/no-path', '/not-string'],
      five,
    );
  });

  it('sends attachments with res.download: a base name, a given name, options, a callback, and a path through directories', async () => {
    const answers = await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/download', (_req: any, res: any) => res.download(join(dir, 'hello.txt')));
        app.get('/named', (_req: any, res: any) => res.download(join(dir, 'hello.txt'), 'report.txt'));
        app.get('/named-path', (_req: any, res: any) => res.download(join(dir, 'hello.txt'), 'some/dir/notes.md'));
        app.get('/deep', (_req: any, res: any) => res.download(join(dir, 'sub', 'report.pdf')));
        app.get('/root', (_req: any, res: any) => res.download('sub/report.pdf', 'r.pdf', { root: dir, headers: { 'X-Extra': '1', 'content-disposition': 'inline' } }));
        app.get('/options-only', (_req: any, res: any) => res.download(join(dir, 'data.json'), { maxAge: '1d', headers: { 'X-Opt': 'y' } }));
        app.get('/callback', (_req: any, res: any) => res.download(join(dir, 'none.txt'), (err: any) => res.status(err ? 404 : 200).send(err ? `missing ${err.code}` : 'ok')));
        app.get('/named-callback', (_req: any, res: any) =>
          res.download(join(dir, 'data.json'), 'd.json', (err: any) => {
            if (err) res.status(500).end();
          }),
        );
        app.get('/options-callback', (_req: any, res: any) =>
          res.download('page.html', 'p.html', { root: dir }, (err: any) => {
            if (err) res.status(500).end();
          }),
        );
        app.get('/missing', (_req: any, res: any) => res.download(join(dir, 'none.txt')));
        app.get('/spaced', (_req: any, res: any) => res.download(join(dir, 'a b.txt')));
        return app;
      },
      ['/download', '/named', '/named-path', '/deep', '/root', '/options-only', '/callback', '/named-callback', '/options-callback', '/missing', '/spaced', { method: 'HEAD', path: '/download' }],
      five,
    );
    expect(answers.slice(0, 5).map((a) => a.headers['content-disposition'])).toEqual([
      'attachment; filename=hello.txt',
      'attachment; filename=report.txt',
      'attachment; filename=notes.md',
      'attachment; filename=report.pdf',
      'attachment; filename=r.pdf',
    ]);
    expect([answers[4]!.headers['x-extra'], answers[9]!.status]).toEqual(['1', 404]);
  });
});

describe('@velox/express/5 res.render and res.locals, compared with express@5', () => {
  it('renders with an engine defined by app.engine and with ejs, merging app.locals, res.locals and options', async () => {
    const build = (express: AnyExpress) => {
      const app = express();
      app.set('env', 'production');
      app.set('views', dir);
      app.set('view engine', 'ejs');
      app.engine('tpl', (path: string, options: any, cb: any) => {
        readFile(path, 'utf8').then(
          (text) => cb(null, text.replace('{{name}}', options.name).replace('{{site}}', options.site)),
          (err) => cb(err),
        );
      });
      app.engine('fail', (_path: string, _options: any, cb: any) => cb(new Error('engine failed')));
      app.locals.site = 'demo';
      app.use((_req: any, res: any, next: any) => {
        res.locals.user = 'ana';
        next();
      });
      app.get('/', (_req: any, res: any) => res.render('index', { title: 'Home' }));
      app.get('/override', (_req: any, res: any) => res.render('index', { title: 'Over', user: 'bob', site: 'elsewhere' }));
      app.get('/users', (_req: any, res: any) => res.render('users'));
      app.get('/tpl', (_req: any, res: any) => res.render('plain.tpl', { name: 'bob' }));
      app.get('/cb', (_req: any, res: any) => res.render('index', { title: 'CB' }, (err: any, html: string) => res.type('txt').send(`[${err ? 'err' : html}]`)));
      app.get('/cb-only', (_req: any, res: any) => res.render('users', (err: any, html: string) => res.send(`{${err ? 'err' : html}}`)));
      app.get('/status', (_req: any, res: any) => res.status(201).render('plain.tpl', { name: 'x' }));
      app.get('/missing', (_req: any, res: any) => res.render('nope'));
      app.get('/fail', (_req: any, res: any) => res.render('x.fail'));
      app.get('/locals', (_req: any, res: any) => {
        res.locals.extra = 1;
        res.json({ locals: res.locals, proto: Object.getPrototypeOf(res.locals) === null, app: app.locals.site });
      });
      app.use((err: any, _req: any, res: any, _next: any) => res.status(500).send(err.message.replaceAll(dir, '<dir>')));
      return app;
    };
    const answers = await compare(build, ['/', '/override', '/users', '/tpl', '/cb', '/cb-only', '/status', '/missing', '/fail', '/locals'], five);
    expect(answers.slice(0, 4).map((a) => a.body)).toEqual(['<h1>Home</h1><p>ana on demo</p>', '<h1>Over</h1><p>bob on elsewhere</p>', 'users of demo', 'hello bob from demo']);
    expect(JSON.parse(answers[9]!.body)).toEqual({ locals: { user: 'ana', extra: 1 }, proto: true, app: 'demo' });
  });
});
