import { describe, expectTypeOf, it } from 'vitest';
import type { Middleware, ParamsOf, Query, Request, RouteRequest, Server, TypedMiddleware, WebSocketRoute } from '../../src/index.ts';

declare module '../../src/index.ts' {
  interface Request {
    user?: { id: string };
  }
  interface Response {
    renderPage?: (name: string) => void;
  }
}

const app = null as unknown as Server;

describe('route types', () => {
  it('infers req.params from the pattern', () => {
    app.get('/users/:id/posts/:postId', (req, res) => {
      expectTypeOf(req.params).toEqualTypeOf<{ id: string; postId: string }>();
      // @ts-expect-error: a misspelt parameter is a type error
      req.params.postid;
      res.send('ok');
    });
    expectTypeOf<ParamsOf<'/files/*'>>().toEqualTypeOf<{ '*': string }>();
    expectTypeOf<ParamsOf<'/plain'>>().toEqualTypeOf<{}>();
  });

  it('passes through plain middlewares and merges typed ones', () => {
    const plain: Middleware = (_req, _res, next) => next();
    const withUser = ((_req, _res, next) => next()) as TypedMiddleware<{ account: { name: string } }>;
    app.get('/a/:x', plain, withUser, (req) => {
      expectTypeOf(req.account).toEqualTypeOf<{ name: string }>();
      expectTypeOf(req.params.x).toBeString();
    });
  });

  it('lets plugins augment Request and Response', () => {
    app.get('/', (req, res) => {
      expectTypeOf(req.user).toEqualTypeOf<{ id: string } | undefined>();
      expectTypeOf(res.renderPage).toEqualTypeOf<((name: string) => void) | undefined>();
    });
  });

  it('types req.json() as T (any by default), with or without options', () => {
    app.post('/j', async (req) => {
      expectTypeOf(await req.json<{ a: number }>({ anyType: true })).toEqualTypeOf<{ a: number }>();
      expectTypeOf(await req.json()).toBeAny();
      // @ts-expect-error: anyType is a boolean
      req.json({ anyType: 1 });
    });
  });
});

/** A function that takes any request with string params, as plugins' helpers do. */
declare function takesRequest(req: Request): void;
/** A function that takes a request whatever its params and query are. */
declare function takesAnyRequest(req: Request<unknown, unknown>): void;
/** Typed middlewares as a validator would declare them. */
const withAccount = ((_req, _res, next) => next()) as TypedMiddleware<{ account: { name: string } }>;
const withNumbers = ((_req, _res, next) => next()) as TypedMiddleware<{ params: { id: number }; query: { page: number } }>;

describe('RouteRequest', () => {
  it('keeps the req of a plain route assignable to Request and to Request<its params>', () => {
    app.get('/x/:id', (req) => {
      expectTypeOf(req).toEqualTypeOf<Request<{ id: string }>>();
      expectTypeOf(req).toExtend<Request>();
      expectTypeOf(req).toExtend<Request<{ id: string }>>();
      expectTypeOf(req.query).toEqualTypeOf<Query>();
      takesRequest(req);
    });
    app.post('/plain', (req) => takesRequest(req));
  });

  it('keeps req a Request when a typed middleware adds to it', () => {
    app.get('/a/:x', withAccount, (req) => {
      expectTypeOf(req).toEqualTypeOf<Request<{ x: string }> & { account: { name: string } }>();
      expectTypeOf(req).toExtend<Request>();
      expectTypeOf(req).toExtend<Request<{ x: string }>>();
      expectTypeOf(takesRequest).toBeCallableWith(req);
      takesRequest(req);
    });
    expectTypeOf<RouteRequest<'/a/:x', [typeof withAccount]>>().toExtend<Request<{ x: string }, Query>>();
  });

  it('puts params and query from a typed middleware in Request<Params, Query>', () => {
    app.get('/n/:id', withNumbers, (req) => {
      expectTypeOf(req).toEqualTypeOf<Request<{ id: number }, { page: number }>>();
      expectTypeOf(req.params.id).toBeNumber();
      expectTypeOf(req.query.page).toBeNumber();
      takesAnyRequest(req);
      // @ts-expect-error: params.id is a number, where Request promises strings
      takesRequest(req);
    });
  });

  it('lets later typed middlewares replace what earlier ones added', () => {
    const first = ((_req, _res, next) => next()) as TypedMiddleware<{ params: { id: number }; extra: string; kept: true }>;
    const second = ((_req, _res, next) => next()) as TypedMiddleware<{ params: { id: 'a' | 'b' }; extra: number }>;
    app.get('/r/:id', first, second, (req) => {
      expectTypeOf(req.params).toEqualTypeOf<{ id: 'a' | 'b' }>();
      expectTypeOf(req.extra).toEqualTypeOf<number>();
      expectTypeOf(req.kept).toEqualTypeOf<true>();
      expectTypeOf(req).toExtend<Request<{ id: string }>>();
    });
  });

  it('narrows members Request already has, and stays a Request', () => {
    const signedIn = ((_req, _res, next) => next()) as TypedMiddleware<{ user: { id: string }; method: 'POST' }>;
    app.post('/s', signedIn, (req) => {
      // Declared `user?: { id: string }` by augmentation above: here it is always there.
      expectTypeOf(req.user).toEqualTypeOf<{ id: string }>();
      expectTypeOf(req.method).toEqualTypeOf<'POST'>();
      takesRequest(req);
    });
  });

  it('replaces a member whose type cannot hold with the added one, and then req is not a Request', () => {
    const odd = ((_req, _res, next) => next()) as TypedMiddleware<{ method: number }>;
    app.get('/o', odd, (req) => {
      expectTypeOf(req.method).toEqualTypeOf<number>();
      expectTypeOf(req.path).toBeString();
      expectTypeOf(req).not.toExtend<Request>();
    });
  });

  it('passes the req of a typed route on to a plain Middleware', () => {
    const plain: Middleware = (_req, _res, next) => next();
    app.get('/m/:id', withAccount, (req, res, next) => {
      plain(req, res, next);
      expectTypeOf(plain).toBeCallableWith(req, res, next);
    });
  });
});

/** A behavior made by a generic function, as @velox/ws's websocket() makes them. */
declare function generic<P>(check: (params: P) => void): WebSocketRoute<unknown, P>;

describe('WebSocket route types', () => {
  it('types req.params of upgrade from the pattern, and lets a generic behavior infer them', () => {
    app.ws('/rooms/:room', {
      upgrade: (req) => {
        expectTypeOf(req.params).toEqualTypeOf<{ room: string }>();
        return { user: 'ann' };
      },
      open: (ws) => {
        expectTypeOf(ws.getUserData().user).toBeString();
      },
    });
    app.ws(
      '/a/:b',
      (_req, _res, next) => next(),
      generic((params) => expectTypeOf(params).toEqualTypeOf<{ b: string }>()),
    );
    // An explicit user data type still works, with params as a plain record.
    app.ws<{ n: number }>('/x/:y', { upgrade: (req) => ({ n: req.params.y?.length ?? 0 }) });
  });
});
