/**
 * Behaviours found by running the ultimate-express-style comparison scripts against
 * `@velox/express`, each checked here against express@4 with our own apps and requests.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { tempDir } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import velox from '../../src/index.ts';
import { type AnyExpress, both, type Probe } from './harness.ts';

describe('express() compatibility fixes, compared with express@4', () => {
  it('with `catch async errors` on, a rejected handler or error handler reaches the error middlewares', async () => {
    // Express 4 has no such setting (express-async-errors patches it in): its app passes the
    // rejection to next() by hand, ours relies on the setting; the answers must match.
    const pair = await both((express: AnyExpress) => {
      const ours = express === velox;
      const app = express();
      app.set('env', 'production');
      app.set('catch async errors', true);
      const byHand = (fn: (...a: any[]) => Promise<unknown>) => (ours ? fn : (...a: any[]) => fn(...a).catch(a[a.length - 1]));
      const router = express.Router();
      router.get(
        '/nested',
        byHand(async () => {
          throw Object.assign(new Error('nested failure'), { status: 418 });
        }),
      );
      app.use([router]);
      app.get(
        '/top',
        byHand(async (_req: any, _res: any, _next: any) => {
          await Promise.resolve();
          throw new Error('top failure');
        }),
      );
      // A rejection without a reason reaches them as an Error, as in Express 5.
      app.get('/void', ours ? () => Promise.reject(undefined) : (_req: any, _res: any, next: any) => next(new Error('Rejected promise')));
      app.get('/chain', (_req: any, _res: any, next: any) => next(new Error('first')));
      const rethrow = async (err: any) => {
        throw new Error(`second after ${err.message}`);
      };
      app.use('/chain', ours ? (err: any, _req: any, _res: any, _next: any) => rethrow(err) : (err: any, _req: any, _res: any, next: any) => rethrow(err).catch(next));
      app.use((err: any, _req: any, res: any, _next: any) => res.status(err.status ?? 500).send(`caught: ${err.message}`));
      return app;
    });
    for (const path of ['/nested', '/top', '/void', '/chain']) await pair.same(path);
    expect((await pair.ask('/chain'))[0].body).toBe('caught: second after first');
    const [theirs] = await pair.ask('/top');
    expect(theirs).toMatchObject({ status: 500, body: 'caught: top failure' });
  });

  it('leaves a rejected handler alone without `catch async errors`, as Express 4 does', async () => {
    const seen: unknown[] = [];
    const onRejection = (reason: unknown) => seen.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const pair = await both((express: AnyExpress) => {
        const app = express();
        app.get('/late', async (_req: any, res: any) => {
          res.send('answered');
          throw new Error('after the answer');
        });
        return app;
      });
      await pair.same('/late');
      await new Promise((r) => setTimeout(r, 50));
      // One unhandled rejection from each app: neither sent it to the error middlewares.
      expect(seen.map((e) => (e as Error).message)).toEqual(['after the answer', 'after the answer']);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('answers without the uWebSockets header, as Node does', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/', (_req: any, res: any) => res.send('plain'));
      return app;
    });
    for (const base of [pair.express, pair.velox]) {
      const res = await fetch(`${base}/`);
      expect([res.status, res.headers.get('uwebsockets'), await res.text()]).toEqual([200, null, 'plain']);
    }
  });

  it('res.sendFile fails as send 0.19 does: ENOENT errors, traversal, null bytes, dotfiles, ranges, the callback', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'pub'));
    await writeFile(join(dir, 'pub', 'page.txt'), 'the page body, long enough for ranges');
    await writeFile(join(dir, 'pub', '.hidden'), 'secret');
    await writeFile(join(dir, 'pub', 'two words.txt'), 'spaced');
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.set('env', 'production');
      app.get('/root/*', (req: any, res: any) => res.sendFile(req.params[0], { root: join(dir, 'pub') }));
      app.get('/abs/:name', (req: any, res: any) => res.sendFile(join(dir, 'pub', req.params.name), { dotfiles: req.query.dot }));
      app.get('/nul', (_req: any, res: any) => res.sendFile(`${join(dir, 'pub', 'page.txt')}\0`));
      app.get('/up', (_req: any, res: any) => res.sendFile('pub/../../page.txt', { root: dir }));
      app.get('/cb/:name', (req: any, res: any) =>
        res.sendFile(join(dir, 'pub', req.params.name), (err: any) => {
          if (err) res.status(299).json({ code: err.code, status: err.status, syscall: err.syscall, message: err.message.replace(dir, '<dir>') });
        }),
      );
      app.use((err: any, _req: any, res: any, _next: any) =>
        res.status(err.status ?? 500).json({ name: err.name, code: err.code, expose: err.expose, message: err.message.replace(dir, '<dir>') }),
      );
      return app;
    });
    const probes: Array<Probe | string> = [
      '/root/page.txt',
      '/root/missing.txt',
      '/root/two%20words.txt',
      '/abs/.hidden?dot=deny',
      '/abs/.hidden?dot=allow',
      '/abs/.hidden',
      '/nul',
      '/up',
      '/cb/missing.txt',
      '/cb/page.txt',
      { path: '/root/page.txt', headers: { range: 'bytes=4-7' } },
      { path: '/root/page.txt', headers: { range: 'bytes=4-7', 'if-range': '"not-the-etag"' } },
      { path: '/root/page.txt', headers: { range: 'bytes=900-' } },
    ];
    const answers = [];
    for (const probe of probes) answers.push(await pair.same(probe));
    expect(answers.map((a) => a.status)).toEqual([200, 404, 200, 403, 200, 404, 400, 403, 299, 200, 206, 200, 416]);
    expect(JSON.parse(answers[8]!.body)).toMatchObject({ code: 'ENOENT', status: 404, syscall: 'stat' });
  });

  it("res.setHeader checks names and values as Node's does; res.set and res.header take objects", async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      const attempts: Record<string, (res: any) => void> = {
        object: (res) => res.setHeader({ 'x-a': '1' }),
        empty: (res) => res.setHeader('', 'v'),
        space: (res) => res.setHeader('x bad', 'v'),
        undef: (res) => res.setHeader('x-u', undefined),
        newline: (res) => res.setHeader('x-n', 'a\nb'),
        list: (res) => res.setHeader('x-list', ['p', 'q']),
        number: (res) => res.setHeader('x-num', 7),
        setObject: (res) => res.set({ 'x-a': '1', 'x-b': ['2', '3'] }),
        headerObject: (res) => res.header({ 'x-c': 'c' }),
      };
      app.get('/:what', (req: any, res: any) => {
        try {
          attempts[req.params.what]!(res);
          res.json({ ok: true, a: res.get('x-a') ?? null, list: res.getHeader('x-list') ?? null });
        } catch (err: any) {
          res.status(500).json({ name: err.name, code: err.code, message: err.message });
        }
      });
      return app;
    });
    const statuses = [];
    for (const what of ['object', 'empty', 'space', 'undef', 'newline', 'list', 'number', 'setObject', 'headerObject']) statuses.push((await pair.same(`/${what}`)).status);
    expect(statuses).toEqual([500, 500, 500, 500, 500, 200, 200, 200, 200]);
  });

  it('req.headers is a plain object a middleware may replace, and req.get reads the replacement', async () => {
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.use((req: any, _res: any, next: any) => {
        const copy = { ...req.headers };
        delete copy['x-drop'];
        copy['x-added'] = 'yes';
        req.headers = copy;
        next();
      });
      app.get('/', (req: any, res: any) =>
        res.json({
          plain: Object.getPrototypeOf(req.headers) === Object.prototype,
          printed: inspect(req.headers).startsWith('{'),
          drop: req.get('x-drop') ?? null,
          added: req.get('x-added'),
          keep: req.headers['x-keep'],
        }),
      );
      return app;
    });
    const answer = await pair.same({ path: '/', headers: { 'x-drop': '1', 'x-keep': '2' } });
    expect(JSON.parse(answer.body)).toEqual({ plain: true, printed: true, drop: null, added: 'yes', keep: '2' });
  });

  it('req.ip still reads in the callback of res.end, after the answer went out', async () => {
    const seen: string[] = [];
    const pair = await both((express: AnyExpress) => {
      const app = express();
      app.get('/', (req: any, res: any) => {
        res.write('part;');
        res.end('end', () => seen.push(`${express === velox ? 'velox' : 'express'} ${req.ip}`));
      });
      return app;
    });
    await pair.same('/');
    for (let i = 0; i < 50 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen.sort()).toEqual(['express 127.0.0.1', 'velox 127.0.0.1']);
  });

  it('res.socket and res.connection read null in the callback of res.end, as Node detaches the socket', async () => {
    const seen: string[] = [];
    const pair = await both((express: AnyExpress) => {
      const app = express();
      const name = express === velox ? 'velox' : 'express';
      app.get('/', (_req: any, res: any) => {
        const before = [res.socket !== null, res.connection === res.socket];
        res.end('bye', () => seen.push(`${name} ${JSON.stringify([...before, res.socket, res.connection])}`));
      });
      app.get('/no-args', (_req: any, res: any) => {
        res.write('x');
        res.end(() => seen.push(`${name} bare ${res.socket}`));
      });
      return app;
    });
    await pair.same('/');
    await pair.same('/no-args');
    for (let i = 0; i < 50 && seen.length < 4; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen.sort()).toEqual(['express [true,true,null,null]', 'express bare null', 'velox [true,true,null,null]', 'velox bare null']);
  });
});

