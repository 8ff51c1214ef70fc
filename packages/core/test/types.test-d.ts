import { describe, expectTypeOf, it } from 'vitest';
import type { Middleware, ParamsOf, Server, TypedMiddleware, WebSocketRoute } from '../src/index.ts';

declare module '../src/index.ts' {
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
