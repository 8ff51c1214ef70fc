import { type Mountable, type Request, type Response, Server, type TypedMiddleware } from '@velox/core';
import { describe, expectTypeOf, it } from 'vitest';
import { LiveDirectory, type LiveFile, type ServeStatic, sendFile, serveStatic } from '../src/index.ts';

describe('types', () => {
  it('serveStatic returns a Mountable with ready() and close()', () => {
    const files = serveStatic('./public', { cache: { maxFileSize: 1, maxSize: 2 }, dotfiles: 'deny', compress: { threshold: 10 } });
    expectTypeOf(files).toEqualTypeOf<ServeStatic>();
    expectTypeOf(files).toMatchTypeOf<Mountable>();
    expectTypeOf(files.ready()).toEqualTypeOf<Promise<void>>();
    expectTypeOf(files.close()).toEqualTypeOf<Promise<void>>();
  });

  it('LiveDirectory.get gives a LiveFile or undefined, and events are typed', () => {
    const views = new LiveDirectory('./views', { filter: (path) => path.endsWith('.html') });
    expectTypeOf(views.get('/a.html')).toEqualTypeOf<LiveFile | undefined>();
    expectTypeOf<LiveFile['content']>().toEqualTypeOf<Buffer>();
    views.on('change', (file, previous) => {
      expectTypeOf(file).toEqualTypeOf<LiveFile>();
      expectTypeOf(previous).toEqualTypeOf<LiveFile>();
    });
    // @ts-expect-error not an event
    views.on('explode', () => {});
  });

  it('sendFile takes a request, a response and a path', () => {
    expectTypeOf<Parameters<typeof sendFile>>().toMatchTypeOf<[Request<unknown, unknown>, Response, string, ...unknown[]]>();
    expectTypeOf<Request>().toMatchTypeOf<Parameters<typeof sendFile>[0]>();
    expectTypeOf(sendFile).returns.toEqualTypeOf<Promise<void>>();
  });

  it('sendFile takes the req of a route with typed middlewares, such as validate()', () => {
    const app = null as unknown as Server;
    const root = '/srv/avatars';
    // The type validate({ params: z.object({ file: z.string() }), body: … }) has (checked in
    // @velox/validate's type tests), without making this package depend on a validator.
    const validated = ((_req, _res, next) => next()) as TypedMiddleware<{ params: { file: string }; body: { size: number } }>;
    app.get('/avatars/:file', validated, (req, res) => {
      expectTypeOf(req.params.file).toBeString();
      expectTypeOf(req.body.size).toBeNumber();
      return sendFile(req, res, req.params.file, { root });
    });
    app.get('/plain/:file', (req, res) => sendFile(req, res, req.params.file, { root }));
  });
});

describe('sendFile from a route whose params a schema converted', () => {
  it('accepts a request with non-string params and query', () => {
    const app = new Server();
    const toNumber = ((req, res, next) => next()) as TypedMiddleware<{ params: { id: number }; query: { page: number } }>;
    app.get('/files/:id', toNumber, (req, res) => {
      expectTypeOf(req.params.id).toEqualTypeOf<number>();
      return sendFile(req, res, `${req.params.id}.txt`, { root: '/srv' });
    });
  });
});
