import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '@velox/test-utils';
import cookieParser from 'cookie-parser';
import { describe, expect, it } from 'vitest';
import { type AnyExpress, both, compare } from './harness.ts';

describe('express() res, compared with express@4', () => {
  it('sends strings, Buffers, objects, numbers, null and undefined with Express 4 types, lengths and weak ETags', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/string', (_req: any, res: any) => res.send('héllo'));
        app.get('/long', (_req: any, res: any) => res.send('x'.repeat(2000)));
        app.get('/buffer', (_req: any, res: any) => res.send(Buffer.from('bytes')));
        app.get('/object', (_req: any, res: any) => res.send({ a: 1 }));
        app.get('/array', (_req: any, res: any) => res.send([1, 'two']));
        app.get('/number', (_req: any, res: any) => res.send(404));
        app.get('/null', (_req: any, res: any) => res.send(null));
        app.get('/undefined', (_req: any, res: any) => res.send());
        app.get('/bool', (_req: any, res: any) => res.send(true));
        app.get('/typed', (_req: any, res: any) => res.type('text').send('plain'));
        app.get('/typed-charset', (_req: any, res: any) => res.set('Content-Type', 'text/plain; charset=iso-8859-1').send('latin'));
        app.get('/two-args', (_req: any, res: any) => res.send(201, 'created'));
        app.get('/204', (_req: any, res: any) => res.status(204).set('Content-Type', 'text/plain').send('dropped'));
        app.get('/205', (_req: any, res: any) => res.status(205).send('dropped'));
        app.get('/own-etag', (_req: any, res: any) => res.set('ETag', '"mine"').send('x'));
        return app;
      },
      ['/string', '/long', '/buffer', '/object', '/array', '/number', '/null', '/undefined', '/bool', '/typed', '/typed-charset', '/two-args', '/204', '/205', '/own-etag', { method: 'HEAD', path: '/string' }],
    );
  });

  it('answers 304 to a fresh conditional GET, and follows the etag setting', async () => {
    for (const etag of [undefined, false, 'strong', (body: Buffer) => `"${body.length}"`]) {
      const pair = await both((express: AnyExpress) => {
        const app = express();
        if (etag !== undefined) app.set('etag', etag);
        app.get('/e', (_req: any, res: any) => res.send('some body'));
        return app;
      });
      const first = await pair.same('/e');
      if (first.headers.etag) await pair.same({ path: '/e', headers: { 'if-none-match': first.headers.etag } });
    }
  });

  it('sends JSON with json replacer, json spaces and json escape, and JSONP with the callback name', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('json spaces', 2);
        app.set('json replacer', (key: string, value: unknown) => (key === 'secret' ? undefined : value));
        app.set('json escape', true);
        app.set('jsonp callback name', 'cb');
        app.get('/json', (_req: any, res: any) => res.json({ a: '<b>&', secret: 1 }));
        app.get('/json-status', (_req: any, res: any) => res.status(201).json(null));
        app.get('/jsonp', (_req: any, res: any) => res.jsonp({ x: '\u2028' }));
        app.get('/undefined', (_req: any, res: any) => res.json(undefined));
        return app;
      },
      ['/json', '/json-status', '/jsonp', '/jsonp?cb=foo', '/jsonp?cb=a.b[0]%3Balert(1)', '/jsonp?cb=x&cb=y', '/undefined'],
    );
  });

  it('sends sendStatus, redirects (with back and HEAD), location, links, append and attachment like Express 4', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/status/:n', (req: any, res: any) => res.sendStatus(Number(req.params.n)));
        app.get('/redirect', (_req: any, res: any) => res.redirect('/to?x=<y>'));
        app.get('/redirect-301', (_req: any, res: any) => res.redirect(301, 'http://example.com/ä b'));
        app.get('/back', (_req: any, res: any) => res.redirect('back'));
        app.get('/location', (_req: any, res: any) => res.location('/a b%20c').send('ok'));
        app.get('/links', (_req: any, res: any) => res.links({ next: '/p/2', last: '/p/9' }).links({ prev: '/p/0' }).send('ok'));
        app.get('/append', (_req: any, res: any) => res.append('X-List', 'a').append('X-List', ['b', 'c']).send('ok'));
        app.get('/attachment', (_req: any, res: any) => res.attachment('docs/report.pdf').send(Buffer.from('%PDF')));
        app.get('/attachment-none', (_req: any, res: any) => res.attachment().send('x'));
        app.get('/vary', (_req: any, res: any) => res.vary('Accept').vary('Origin').send('x'));
        return app;
      },
      [
        '/status/200',
        '/status/404',
        '/status/299',
        '/redirect',
        { path: '/redirect', headers: { accept: 'text/html' } },
        { path: '/redirect', headers: { accept: 'application/json' } },
        { method: 'HEAD', path: '/redirect' },
        '/redirect-301',
        '/back',
        { path: '/back', headers: { referer: '/from' } },
        '/location',
        '/links',
        '/append',
        '/attachment',
        '/attachment-none',
        '/vary',
      ],
    );
  });

  it('negotiates with res.format, answering 406 without a default', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/f', (_req: any, res: any) =>
          res.format({
            text: () => res.send('text'),
            'application/json': () => res.json({ kind: 'json' }),
          }),
        );
        app.get('/d', (_req: any, res: any) => res.format({ html: () => res.send('<b>html</b>'), default: () => res.status(406).send('nothing') }));
        app.use((err: any, _req: any, res: any, _next: any) => res.status(err.status).json({ message: err.message, types: err.types }));
        return app;
      },
      [
        { path: '/f', headers: { accept: 'text/plain' } },
        { path: '/f', headers: { accept: 'application/json' } },
        { path: '/f', headers: { accept: 'image/png' } },
        { path: '/d', headers: { accept: 'image/png' } },
        { path: '/d', headers: { accept: 'text/html' } },
      ],
    );
  });

  it('sets and clears cookies: JSON values, maxAge, signed with cookie-parser secret, read back through cookie-parser', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.use(cookieParser('s3cret'));
        app.get('/set', (_req: any, res: any) =>
          res
            .cookie('plain', 'a b', { httpOnly: true })
            .cookie('obj', { x: 1 })
            .cookie('signed', 'v', { signed: true, sameSite: 'lax' })
            .cookie('aged', '1', { maxAge: 60_000, path: '/p', domain: 'example.com', secure: true })
            .clearCookie('old')
            .send('set'),
        );
        app.get('/read', (req: any, res: any) => res.json({ cookies: req.cookies, signed: req.signedCookies, secret: req.secret }));
        return app;
      },
      ['/set', { path: '/read', headers: { cookie: 'plain=a%20b; obj=j%3A%7B%22x%22%3A1%7D; signed=s%3Av.2qYDZXcoEHSN9c2Ul/6W/ncCJWYNbyGt/9dySkq0bZM; bad=s%3Av.wrong' } }],
    );
  });

  it('serializes every cookie option in Express 4\'s order', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.get('/all', (_req: any, res: any) =>
          res
            .cookie('a', 'v 1', { domain: 'example.com', path: '/x', expires: new Date('2030-01-02T03:04:05Z'), httpOnly: true, secure: true, sameSite: 'strict', priority: 'high', partitioned: true })
            .cookie('b', 'v', { sameSite: true })
            .cookie('c', 'v', { sameSite: 'none', secure: true })
            .cookie('d', 'a+b', { encode: String })
            .clearCookie('e', { path: '/x', domain: 'example.com' })
            .send('ok'),
        );
        return app;
      },
      ['/all'],
    );
  });

  it('refuses a signed cookie without cookie-parser as Express 4 does', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        app.get('/signed', (_req: any, res: any) => res.cookie('a', 'b', { signed: true }).send('no'));
        app.use((err: any, _req: any, res: any, _next: any) => res.status(500).send(err.message));
        return app;
      },
      ['/signed'],
    );
  });

  it("refuses what Express 4's cookie 0.7 refuses, with its messages, and gives res.locals no prototype", async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.set('env', 'production');
        const attempt = (res: any, fn: () => void) => {
          try {
            fn();
            res.send('set');
          } catch (err) {
            res.status(500).json({ name: (err as Error).name, message: (err as Error).message });
          }
        };
        app.get('/max-nan', (_req: any, res: any) => attempt(res, () => res.cookie('a', 'b', { maxAge: 'soon' })));
        app.get('/max-inf', (_req: any, res: any) => attempt(res, () => res.cookie('a', 'b', { maxAge: Number.POSITIVE_INFINITY })));
        app.get('/encode', (_req: any, res: any) => attempt(res, () => res.cookie('a', 'b', { encode: 'yes' })));
        app.get('/domain', (_req: any, res: any) => attempt(res, () => res.cookie('a', 'b', { domain: 'bad domain' })));
        app.get('/name', (_req: any, res: any) => attempt(res, () => res.cookie('bad name', 'b')));
        app.get('/locals', (_req: any, res: any) => res.json({ proto: Object.getPrototypeOf(res.locals) === null, keys: Object.keys(res.locals) }));
        return app;
      },
      ['/max-nan', '/max-inf', '/encode', '/domain', '/name', '/locals'],
    );
  });

  it('keeps res.locals and app.locals, and reports headersSent', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.locals.site = 'demo';
        app.use((_req: any, res: any, next: any) => {
          res.locals.user = 'ana';
          next();
        });
        app.get('/l', (req: any, res: any) => {
          const before = res.headersSent;
          res.write(JSON.stringify({ site: req.app.locals.site, user: res.locals.user, before }));
          const after = res.headersSent;
          res.end(JSON.stringify({ after }));
        });
        app.get('/node', (_req: any, res: any) => {
          res.setHeader('X-Node', ['1', '2']);
          res.writeHead(202, { 'Content-Type': 'text/plain' });
          res.end('node style');
        });
        return app;
      },
      ['/l'],
    );
    // Node sends a body after writeHead() chunked; uWS always sends Content-Length.
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/node', (_req: any, res: any) => {
        res.setHeader('X-Node', ['1', '2']);
        res.writeHead(202, { 'Content-Type': 'text/plain' });
        res.end('node style');
      });
      return app;
    });
    await pair.same('/node', { ignore: ['content-length'] });
  });

  it('sends files with sendFile and download, with options and callbacks', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'hello.txt'), 'hello file\n');
    await writeFile(join(dir, 'page.html'), '<p>page</p>');
    await mkdir(join(dir, 'sub'));
    const build = (express: AnyExpress) => {
      const app = express();
      app.set('env', 'production');
      app.get('/abs', (_req: any, res: any) => res.sendFile(join(dir, 'hello.txt')));
      app.get('/root/:name', (req: any, res: any) => res.sendFile(req.params.name, { root: dir, headers: { 'x-file': 'yes' } }));
      app.get('/missing', (_req: any, res: any) => res.sendFile(join(dir, 'none.txt')));
      app.get('/callback', (_req: any, res: any) => res.sendFile(join(dir, 'none.txt'), (err: any) => res.status(err ? 410 : 200).send(err ? 'gone' : 'ok')));
      app.get('/relative', (_req: any, res: any) => res.sendFile('hello.txt'));
      app.get('/download', (_req: any, res: any) => res.download(join(dir, 'hello.txt')));
      app.get('/download-named', (_req: any, res: any) => res.download(join(dir, 'hello.txt'), 'rapport été.txt'));
      app.use((err: any, _req: any, res: any, _next: any) => res.status(err.status ?? 500).send(`error ${err.status ?? 500}: ${err instanceof TypeError ? err.message : ''}`));
      return app;
    };
    const pair = await both(build);
    const ignore = ['last-modified', 'etag'];
    for (const path of ['/abs', '/root/page.html', '/missing', '/callback', '/relative', '/download']) {
      await pair.same(path, { ignore });
    }
    // Node writes header values as Latin-1 bytes, uWS as UTF-8: a Latin-1 file name differs on the wire.
    const [, named] = await pair.ask('/download-named');
    expect(Buffer.from(named.headers['content-disposition']!, 'latin1').toString('utf8')).toBe('attachment; filename="rapport été.txt"');
    const ranged = await pair.same({ path: '/abs', headers: { range: 'bytes=0-4' } }, { ignore });
    expect(ranged.status).toBe(206);
  });

  it('renders views with app.engine, views, view engine and the ejs engine, res.render and app.render', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'index.ejs'), '<h1><%= title %></h1><p><%= user %> on <%= site %></p>');
    await mkdir(join(dir, 'users'));
    await writeFile(join(dir, 'users', 'index.ejs'), 'users of <%= site %>');
    await writeFile(join(dir, 'plain.tpl'), 'hello {{name}}');
    const build = (express: AnyExpress) => {
      const app = express();
      app.set('env', 'production');
      app.set('views', dir);
      app.set('view engine', 'ejs');
      app.engine('tpl', (path: string, options: any, cb: any) => {
        import('node:fs').then(({ readFile }) => readFile(path, 'utf8', (err, text) => cb(err, text?.replace('{{name}}', options.name))));
      });
      app.locals.site = 'demo';
      app.get('/', (_req: any, res: any) => {
        res.locals.user = 'ana';
        res.render('index', { title: 'Home' });
      });
      app.get('/users', (_req: any, res: any) => res.render('users'));
      app.get('/tpl', (_req: any, res: any) => res.render('plain.tpl', { name: 'bob' }));
      app.get('/cb', (_req: any, res: any) => res.render('index', { title: 'CB', user: 'x' }, (err: any, html: string) => res.send(`[${err ? 'err' : html}]`)));
      app.get('/missing', (_req: any, res: any) => res.render('nope'));
      app.get('/app-render', (_req: any, res: any) => app.render('index', { title: 'T', user: 'u' }, (_err: any, html: string) => res.send(html)));
      app.use((err: any, _req: any, res: any, _next: any) => res.status(500).send(err.message.replace(dir, '<dir>')));
      return app;
    };
    await compare(build, ['/', '/users', '/tpl', '/cb', '/missing', '/app-render']);
  });
});

describe('express() res.send: what it remembers of short texts and of the MIME table', () => {
  it('sends the same ETag and Content-Length as express@4 for repeated, unicode, long and conditional texts, under weak, strong and custom etag settings', async () => {
    const long = 'x'.repeat(1500);
    const pair = await both((express: AnyExpress) => {
      const app = express();
      const strong = express();
      strong.set('etag', 'strong');
      const custom = express();
      custom.set('etag', (body: Buffer) => `"len-${body.length}"`);
      for (const a of [app, strong, custom]) {
        a.get('/hi', (_req: any, res: any) => res.send('Hi'));
        a.get('/uni', (_req: any, res: any) => res.send('héllo wörld ✓'));
        a.get('/long', (_req: any, res: any) => res.send(long));
        a.get('/typed', (_req: any, res: any) => res.type('json').send('{"a":1}'));
      }
      app.use('/strong', strong);
      app.use('/custom', custom);
      return app;
    });
    for (let round = 0; round < 3; round++) {
      for (const prefix of ['', '/strong', '/custom']) {
        for (const path of ['/hi', '/uni', '/long', '/typed']) await pair.same(`${prefix}${path}`, { ignore: ['date'] });
      }
    }
    const [first] = await pair.ask('/uni');
    expect(first.headers.etag).toMatch(/^W\//);
    await pair.same({ path: '/uni', headers: { 'if-none-match': first.headers.etag! } });
  });

  it("gives res.send(text) the html type the MIME table has now, and calls an app's own res.type", async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/t', (_req: any, res: any) => res.send('text'));
      app.get('/define', (_req: any, res: any) => {
        express.static.mime.define({ 'text/x-velox-html': ['html'] }, true);
        res.send('defined');
      });
      app.get('/restore', (_req: any, res: any) => {
        express.static.mime.define({ 'text/html': ['html'] }, true);
        res.send('restored');
      });
      const own = express();
      own.response.type = function type(this: any, name: string) {
        this.set('x-own-type', name);
        return this.set('Content-Type', name === 'html' ? 'text/plain' : name);
      };
      own.get('/', (_req: any, res: any) => res.send('own'));
      app.use('/own', own);
      return app;
    });
    expect((await pair.same('/t')).headers['content-type']).toBe('text/html; charset=utf-8');
    await pair.same('/define');
    try {
      expect((await pair.same('/t')).headers['content-type']).toBe('text/x-velox-html; charset=utf-8');
    } finally {
      await pair.same('/restore');
    }
    expect((await pair.same('/t')).headers['content-type']).toBe('text/html; charset=utf-8');
    const own = await pair.same('/own');
    expect([own.headers['x-own-type'], own.headers['content-type']]).toEqual(['html', 'text/plain; charset=utf-8']);
  });

  it('follows express.static.mime.define() made after a type was looked up, as express@4 does', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/t', (_req: any, res: any) => res.type('vlxtest').send('body'));
      app.get('/define', (_req: any, res: any) => {
        express.static.mime.define({ 'application/x-velox-test': ['vlxtest'] }, true);
        res.send('defined');
      });
      return app;
    });
    const before = await pair.same('/t', { ignore: ['date'] });
    await pair.same('/define', { ignore: ['date'] });
    const after = await pair.same('/t', { ignore: ['date'] });
    expect([before.headers['content-type'], after.headers['content-type']]).toEqual(['application/octet-stream; charset=utf-8', 'application/x-velox-test; charset=utf-8']);
  });
});
