/**
 * The default export of `@velox/express`: `express()` and its members, as Express 4's module
 * has them (`express.json`, `express.urlencoded`, `express.raw`, `express.text`,
 * `express.static`, `express.Router`, `express.Route`, `express.application`,
 * `express.request`, `express.response`).
 */
import { loadUws } from '@velox/core';
import { type Application, app as applicationProto, createApplication } from './application.ts';
import { parsers } from './libs.ts';
import { jsonParser } from './json.ts';
import { staticFiles } from './static.ts';
import { expressRequest } from './request.ts';
import { expressResponse } from './response.ts';
import { createRouter, Route, type RouterOptions, type Router } from './router.ts';

/**
 * `express()` and Express 4's module members.
 * @example
 * ```ts
 * import express, { type Express } from '@velox/express';
 * const make: Express = express;
 * const app = make();
 * ```
 */
export interface Express {
  (): Application;
  /** Express 4's `express.json([options])` (body-parser 1.x). @example app.use(express.json({ limit: '1mb' })) */
  json: typeof jsonParser;
  /** Express 4's `express.urlencoded([options])` (body-parser 1.x). @example app.use(express.urlencoded({ extended: false })) */
  urlencoded: typeof parsers.urlencoded;
  /** Express 4's `express.raw([options])` (body-parser 1.x). @example app.use(express.raw({ type: 'application/octet-stream' })) */
  raw: typeof parsers.raw;
  /** Express 4's `express.text([options])` (body-parser 1.x). @example app.use(express.text()) */
  text: typeof parsers.text;
  /** Express 4's `express.static(root, [options])` (serve-static 1.x). @example app.use('/static', express.static('public')) */
  static: typeof staticFiles;
  /** Makes a router. @example const api = express.Router({ mergeParams: true }) */
  Router: (options?: RouterOptions) => Router;
  /** The Route class. */
  Route: typeof Route;
  /** The application prototype: methods added here reach every app. */
  application: Record<string, unknown>;
  /** The request prototype every app's `req` inherits (`express.request.foo = …` reaches every request). */
  request: object;
  /** The response prototype every app's `res` inherits. */
  response: object;
}

/**
 * Creates an Express 4 application that runs on a Velox server: change the import, keep the app.
 * @example
 * ```ts
 * import express from '@velox/express'; // was: import express from 'express'
 * const app = express();
 * app.use(express.json());
 * app.get('/users/:id', (req, res) => res.json({ id: req.params.id }));
 * app.listen(3000, () => console.log('ready'));
 * ```
 */
let markHidden = false;

/**
 * Express's answers carry no `uWebSockets: 20` header: the first `express()` turns uWS's write
 * mark off (`_cfg`, in every build Velox loads; process-wide, so other Velox servers of the
 * process lose it too). A build without `_cfg` keeps the header.
 */
export function hideUwsMark(): void {
  if (markHidden) return;
  markHidden = true;
  try {
    const cfg = (loadUws() as unknown as { _cfg?: (key: string) => void })._cfg;
    if (typeof cfg === 'function') cfg('999999990007');
  } catch {
    // No native uWS yet: listen() reports that.
  }
}

const express = (() => {
  hideUwsMark();
  return createApplication();
}) as Express;
express.json = jsonParser;
express.urlencoded = parsers.urlencoded;
express.raw = parsers.raw;
express.text = parsers.text;
express.static = staticFiles;
express.Router = createRouter;
express.Route = Route;
express.application = applicationProto;
express.request = expressRequest;
express.response = expressResponse;

export default express;
export type { Application, ListeningServer } from './application.ts';
export type { RouterOptions, Router } from './router.ts';
