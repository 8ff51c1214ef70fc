/**
 * Express 5's application, compared with express@5: settings, `app.router`, the removed members,
 * `express.static` (serve-static 2), `app.listen()` handing its error to the callback, and a
 * sub-app's prototypes and settings.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import realExpress5 from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import express5 from '../../src/five.ts';
import { type AnyExpress, both, compare } from '../app/harness.ts';

const five = { major: 5 as const };
const dir = mkdtempSync(join(tmpdir(), 'velox-express5-'));
writeFileSync(join(dir, 'site.css'), 'body { color: red }\n');
writeFileSync(join(dir, '.secret'), 'hidden');
mkdirSync(join(dir, 'docs'));
writeFileSync(join(dir, 'docs', 'index.html'), '<h1>docs</h1>');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What an app object offers, as names and types, for the members Express 5 removed or added. */
function surface(app: any): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['del', 'lazyrouter', '_router', 'router', 'param', 'all', 'route', 'listen', 'handle', 'render', 'engine']) out[name] = typeof app[name];
  return out;
}

describe('express/5 application, compared with express@5', () => {
  it('has the members Express 5 has: app.router, no app.del, app._router or app.lazyrouter', () => {
    expect(surface(express5())).toEqual(surface(realExpress5()));
    expect(typeof (express5.request as any).param).toBe(typeof (realExpress5.request as any).param);
    expect(typeof (express5.response as any).sendfile).toBe(typeof (realExpress5.response as any).sendfile);
    expect(Object.getPrototypeOf(express5().settings)).toBe(null);
  });

  it('keeps settings as Express 5 does: defaults, enable/disable, inherited by sub-apps', () => {
    const keys = ['x-powered-by', 'etag', 'env', 'query parser', 'subdomain offset', 'trust proxy', 'jsonp callback name', 'view cache'];
    const read = (app: any) => Object.fromEntries(keys.map((k) => [k, app.get(k)]));
    expect(read(express5())).toEqual(read(realExpress5()));
    const pick = (make: any) => {
      const parent = make();
      parent.set('json spaces', 2).disable('x-powered-by');
      const child = make();
      parent.use('/c', child);
      return [child.get('json spaces'), child.enabled('x-powered-by'), child.disabled('etag'), parent.get('constructor')];
    };
    expect(pick(express5)).toEqual(pick(realExpress5));
  });

  it('serves files with serve-static 2 (dotfiles ignored, directory redirect, index), sub-app settings on the wire', async () => {
    await compare(
      (express: AnyExpress) => {
        const app = express();
        app.use('/static', express.static(dir));
        app.use('/dot', express.static(dir, { dotfiles: 'allow' }));
        const sub = express();
        sub.disable('x-powered-by');
        sub.set('json spaces', 2);
        sub.get('/', (_req: any, res: any) => res.json({ a: [1] }));
        app.use('/sub', sub);
        return app;
      },
      ['/static/site.css', '/static/.secret', '/dot/.secret', '/static/docs', '/static/docs/', '/static/missing.css', '/sub'],
      five,
    );
  });

  it('answers an Express 5 app with a conditional request and HEAD of a static file as Express 5 does', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.use(express.static(dir, { maxAge: '1d', immutable: true }));
      return app;
    }, five);
    const first = await pair.same('/site.css', { ignore: ['last-modified'] });
    await pair.same({ path: '/site.css', headers: { 'if-none-match': first.headers.etag! } }, { ignore: ['last-modified'] });
    await pair.same({ method: 'HEAD', path: '/site.css' }, { ignore: ['last-modified'] });
    await pair.same({ path: '/site.css', headers: { range: 'bytes=0-3' } }, { ignore: ['last-modified'] });
  });

  it("hands listen()'s error to its callback (Express 5), and serves after a good listen", async () => {
    const first = express5();
    first.get('/', (_req: any, res: any) => res.send('up'));
    const server = await new Promise<any>((resolve, reject) => {
      const s = first.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
    });
    const port = server.address().port;
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('up');
    const second = express5();
    const err = await new Promise<any>((resolve) => {
      second.listen(port, '127.0.0.1', (e?: Error) => resolve(e));
    });
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('EADDRINUSE');
    await new Promise((r) => server.close(r));
  });
});
