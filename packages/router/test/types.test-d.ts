import type { Middleware, Request, TypedMiddleware } from '@velox/core';
import { describe, expectTypeOf, it } from 'vitest';
import { type Route, Router } from '../src/index.ts';

const router = new Router();

describe('Router route types', () => {
  it('infers req.params from the pattern, with no annotation', () => {
    router.get('/users/:id/posts/:postId', (req, res) => {
      expectTypeOf(req.params).toEqualTypeOf<{ id: string; postId: string }>();
      // @ts-expect-error: a misspelt parameter is a type error
      req.params.postid;
      res.send('ok');
    });
    router.post('/files/*', (req) => {
      expectTypeOf(req.params).toEqualTypeOf<{ '*': string }>();
    });
    router.delete('/plain', (req) => {
      expectTypeOf(req.params).toEqualTypeOf<{}>();
    });
  });

  it('types every method the same way', () => {
    router.put('/a/:x', (req) => expectTypeOf(req.params.x).toBeString());
    router.patch('/a/:x', (req) => expectTypeOf(req.params.x).toBeString());
    router.head('/a/:x', (req) => expectTypeOf(req.params.x).toBeString());
    router.options('/a/:x', (req) => expectTypeOf(req.params.x).toBeString());
    router.any('/a/:x', (req) => expectTypeOf(req.params.x).toBeString());
  });

  it('passes through plain middlewares and merges typed ones into req', () => {
    const plain: Middleware = (_req, _res, next) => next();
    const withUser = ((_req, _res, next) => next()) as TypedMiddleware<{ user: { name: string } }>;
    router.get('/me/:tab', plain, withUser, (req) => {
      expectTypeOf(req.user).toEqualTypeOf<{ name: string }>();
      expectTypeOf(req.params).toEqualTypeOf<{ tab: string }>();
      expectTypeOf(req.method).toBeString();
    });
    // @ts-expect-error: the last argument must be a handler, not a string
    router.get('/x', plain, 'nope');
  });

  it('types route() chains from the pattern given to route()', () => {
    const route = router.route('/books/:isbn');
    expectTypeOf(route).toEqualTypeOf<Route<'/books/:isbn', {}>>();
    route
      .get((req) => {
        expectTypeOf(req.params).toEqualTypeOf<{ isbn: string }>();
      })
      .post((req) => {
        // @ts-expect-error: not a parameter of '/books/:isbn'
        req.params.id;
      });
  });

  it('merges the params a mount prefix brings when the router declares them', () => {
    const members = new Router<{ org: string }>();
    members.get('/:id', (req) => {
      expectTypeOf(req.params).toEqualTypeOf<{ org: string; id: string }>();
      expectTypeOf(req).toEqualTypeOf<Request<{ org: string; id: string }>>();
      expectTypeOf(req).toExtend<Request>();
    });
    members.route('/').get((req) => expectTypeOf(req.params).toEqualTypeOf<{ org: string }>());
  });

  it('keeps req a Request on routes with typed middlewares, so it passes to a function that takes one', () => {
    const takesRequest = (req: Request) => req.path;
    const withUser = ((_req, _res, next) => next()) as TypedMiddleware<{ user: { name: string } }>;
    const withParams = ((_req, _res, next) => next()) as TypedMiddleware<{ params: { id: 'me' } }>;
    router.get('/users/:id', withUser, (req) => {
      expectTypeOf(req).toEqualTypeOf<Request<{ id: string }> & { user: { name: string } }>();
      takesRequest(req);
    });
    const members = new Router<{ org: string }>();
    members.get('/:id', withUser, (req) => {
      expectTypeOf(req.params).toEqualTypeOf<{ org: string; id: string }>();
      expectTypeOf(req).toExtend<Request<{ org: string; id: string }>>();
      takesRequest(req);
    });
    members.route('/:id').post(withParams, (req) => {
      // A typed middleware's params replace those of the prefix and the pattern, as at run time.
      expectTypeOf(req.params).toEqualTypeOf<{ id: 'me' }>();
      takesRequest(req);
    });
  });

  it('returns the router from every registration, for chaining', () => {
    expectTypeOf(router.get('/c', (_req, res) => res.end())).toEqualTypeOf<Router>();
    expectTypeOf(router.use((_req, _res, next) => next())).toEqualTypeOf<Router>();
    expectTypeOf(router.setErrorHandler(() => {})).toEqualTypeOf<Router>();
  });
});
