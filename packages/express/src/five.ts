/**
 * `@velox/express/5`: an Express 5 application on Velox by changing one import
 * (`import express from 'express'` → `import express from '@velox/express/5'`). Express 5's own
 * router (router 2.x, path-to-regexp 8 syntax, rejected promises reach error handlers), its body
 * parsers and static middleware (body-parser 2, serve-static 2), and its request and response
 * rules, over the same Velox server as the Express 4 entry.
 */
import { type Application, createApplication } from './app/application.ts';
import { hideUwsMark } from './app/express.ts';
import { quickJson } from './app/json.ts';
import { app5 } from './app/v5/application.ts';
import { parsers5, Router } from './app/v5/libs.ts';
import { expressRequest5 } from './app/v5/request.ts';
import { expressResponse5 } from './app/v5/response.ts';
import { staticFiles5 } from './app/v5/static.ts';

/** A router of Express 5 (router 2.x). */
export type Router5 = InstanceType<typeof Router>;

/**
 * An Express 5 application: Express 4's members without the removed ones, and its router.
 * @example
 * ```ts
 * import express, { type Application5 } from '@velox/express/5';
 * const app: Application5 = express();
 * app.router.get('/ping', (req, res) => res.send('pong'));
 * ```
 */
export interface Application5 extends Application {
  /** The app's router (router 2.x, made on first use). */
  readonly router: Router5;
}

/**
 * `express()` and Express 5's module members.
 * @example
 * ```ts
 * import express, { type Express5 } from '@velox/express/5';
 * const make: Express5 = express;
 * ```
 */
export interface Express5 {
  (): Application5;
  /** Express 5's `express.json([options])` (body-parser 2.x; a plain JSON body read through Velox's body reader). @example app.use(express.json({ limit: '1mb' })) */
  json: typeof parsers5.json;
  /** Express 5's `express.urlencoded([options])` (body-parser 2.x; `extended` is false by default). @example app.use(express.urlencoded()) */
  urlencoded: typeof parsers5.urlencoded;
  /** Express 5's `express.raw([options])`. @example app.use(express.raw({ type: 'application/octet-stream' })) */
  raw: typeof parsers5.raw;
  /** Express 5's `express.text([options])`. @example app.use(express.text()) */
  text: typeof parsers5.text;
  /** Express 5's `express.static(root, [options])` (serve-static 2.x: dotfiles ignored by default; plain requests for a small file already read answered from memory). @example app.use('/static', express.static('public')) */
  static: typeof staticFiles5;
  /** Express 5's Router (router 2.x), called or with `new`. @example const api = express.Router({ mergeParams: true }) */
  Router: typeof Router;
  /** The Route class of router 2.x. */
  Route: unknown;
  /** The application prototype: methods added here reach every app made after. */
  application: Record<string, unknown>;
  /** The request prototype every app's `req` inherits. */
  request: object;
  /** The response prototype every app's `res` inherits. */
  response: object;
}

const flavor = { app: app5, request: expressRequest5, response: expressResponse5 };

/**
 * Creates an Express 5 application that runs on Velox: change the import, keep the app.
 * @example
 * ```ts
 * import express from '@velox/express/5'; // was: import express from 'express' (v5)
 * const app = express();
 * app.use(express.json());
 * app.get('/users/{:id}', async (req, res) => res.json(await find(req.params.id)));
 * app.listen(3000, (err) => { if (err) throw err; });
 * ```
 */
const express5 = (() => {
  // Express's answers carry no `uWebSockets: 20` header (see the Express 4 entry).
  hideUwsMark();
  return createApplication(flavor) as unknown as Application5;
}) as Express5;
// The short road of the Express 4 entry (a plain JSON body read through Velox's body reader),
// with body-parser 2 for every other request.
express5.json = (options) => quickJson(parsers5.json, false, options);
express5.urlencoded = parsers5.urlencoded;
express5.raw = parsers5.raw;
express5.text = parsers5.text;
express5.static = staticFiles5;
express5.Router = Router;
express5.Route = Router.Route;
express5.application = app5;
express5.request = expressRequest5;
express5.response = expressResponse5;

export default express5;
export { express5 as express };
export type { ListeningServer } from './app/application.ts';
