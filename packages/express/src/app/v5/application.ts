/**
 * Express 5's application members, over Express 4's (../application.ts): the router is Express
 * 5's own (router 2.x, made on first use and exposed as `app.router`), `app.handle` sets the
 * request up itself (no `query` and `expressInit` layers), the `simple` query parser by default,
 * settings and caches without a prototype, `app.all` naming every method, errors of `listen()`
 * handed to its callback, and Express 4's removed members (`app.del`, `app.param(fn)`,
 * `app._router`, `app.lazyrouter`) gone. `use()` is Express 4's, on this router.
 */
import { type Application, app as app4, builtOn, compileQueryParser, finalOf, listen } from '../application.ts';
import { setPoweredBy } from '../response.ts';
import { methods, type Next, type Req, type Res } from '../router.ts';
import { Router } from './libs.ts';

/** Express 5's `app` members. */
export const app5: Record<string, any> = { ...app4 };
delete app5.lazyrouter;
delete app5.del;

Object.assign(app5, {
  init(this: Application) {
    let router: unknown = null;
    this.cache = Object.create(null);
    this.engines = Object.create(null);
    this.settings = Object.create(null);
    this.defaultConfiguration();
    Object.defineProperty(this, 'router', {
      configurable: true,
      enumerable: true,
      get(this: Application) {
        router ??= new Router({ caseSensitive: this.enabled('case sensitive routing'), strict: this.enabled('strict routing') });
        return router;
      },
    });
  },

  defaultConfiguration(this: Application) {
    app4.defaultConfiguration.call(this);
    this.set('query parser', 'simple');
  },

  set(this: Application, ...args: [string, unknown?]) {
    if (args.length === 1) return this.settings[args[0]];
    if (args[0] !== 'query parser') return app4.set.call(this, args[0], args[1]);
    // Express 5's `false`: no parser at all (req.query is then an empty object without prototype).
    this.settings['query parser'] = args[1];
    this.settings['query parser fn'] = compileQueryParser(args[1], undefined);
    return this;
  },

  handle(this: Application, req: Req, res: Res, callback?: Next) {
    const done = callback || finalOf(this, req, res);
    if (this.settings['x-powered-by']) setPoweredBy(res);
    req.res = res;
    res.req = req;
    if (!builtOn(req, this.request)) Object.setPrototypeOf(req, this.request);
    if (!builtOn(res, this.response)) Object.setPrototypeOf(res, this.response);
    this.router.handle(req, res, done);
  },

  route(this: Application, path: unknown) {
    return this.router.route(path);
  },

  param(this: Application, name: string | string[], fn: unknown) {
    if (Array.isArray(name)) {
      for (const n of name) this.param(n, fn as never);
      return this;
    }
    this.router.param(name, fn);
    return this;
  },

  all(this: Application, path: unknown, ...handlers: unknown[]) {
    const route = this.route(path);
    for (const method of methods) route[method](...handlers);
    return this;
  },

  listen(this: Application, ...args: unknown[]) {
    return listen(this, args, { errorToCallback: true });
  },
});

for (const method of methods) {
  app5[method] = function (this: Application, path: unknown, ...handlers: unknown[]) {
    if (method === 'get' && handlers.length === 0) return this.set(path as string);
    const route = this.route(path);
    route[method](...handlers);
    return this;
  };
}
