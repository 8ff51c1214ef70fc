/**
 * The openapi plugin: reads every route as it is registered (and those registered before it),
 * builds the document once (at listen(), or at its first request), and serves it and the docs
 * page from prepared buffers. It adds no hook that runs per request: other routes pay nothing.
 */
import { type Handler, type RouteDefinition, type Server, VeloxError } from '@velox/core';
import { buildDocument } from './document.ts';
import { invalid, OpenApiErrorCodes } from './errors.ts';
import { Catalog } from './operations.ts';
import { type OpenApiOptions, parseOptions } from './options.ts';
import { PreparedBody } from './prepared.ts';
import { uiFiles } from './swagger-ui.ts';
import { loadValibot } from './valibot.ts';

/**
 * Documents the server's routes as an OpenAPI 3.1 document, served as `application/json` at
 * `path` (default `/openapi.json`), and serves a docs page (Swagger UI, every file from the app
 * itself) at `ui` (default `/docs`, and `/docs/`). The document holds every route registered
 * before `listen()`, whether before or after the plugin, from the server, its routers and its
 * plugins, described by their `validate()` schemas and `describeRoute()` markers. It is built
 * once, at `listen()` (or at its first request), and served from a prepared buffer with an ETag.
 *
 * @throws VeloxError `VELOX_ERR_OPENAPI_INVALID_OPTION` for bad options, `VELOX_ERR_OPENAPI_PATH_TAKEN`
 * when `path` or `ui` is a route already, and, when a route is registered, `VELOX_ERR_OPENAPI_DUPLICATE_OPERATION_ID`
 * and `VELOX_ERR_OPENAPI_UNKNOWN_SECURITY`.
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { describeRoute, openapi } from '@velox/openapi';
 * import { validate } from '@velox/validate';
 * import { z } from 'zod';
 *
 * const app = new Server();
 * await app.register(openapi, { info: { title: 'Shop', version: '1.2.3' }, path: '/openapi.json', ui: '/docs' });
 * app.get(
 *   '/items/:id',
 *   describeRoute({ summary: 'One item', tags: ['items'], operationId: 'getItem' }),
 *   validate({ params: z.object({ id: z.coerce.number().int() }), response: { 200: Item, 404: NotFound } }),
 *   (req, res) => res.json(items.get(req.params.id)),
 * );
 * await app.listen(3000); // http://localhost:3000/docs
 * ```
 */
export function openapi(server: Server, options: OpenApiOptions): void {
  const config = parseOptions(options);
  if (server.listening) {
    throw invalid('openapi must be registered before listen(): the document is built at listen() from the routes registered until then');
  }
  const ui = config.ui === undefined ? undefined : uiFiles(config.ui, config.info.title, config.path);
  const ours = [config.path];
  if (ui) ours.push(config.ui || '/', `${config.ui}/`, ...ui.files.map((f) => `${config.ui}/${f.name}`));
  for (const route of server.routeDefinitions()) {
    if ((route.method === 'GET' || route.method === 'HEAD') && ours.includes(route.path)) {
      const option = route.path === config.path ? `path (${config.path})` : `ui (${config.ui || '/'})`;
      throw new VeloxError(
        OpenApiErrorCodes.PATH_TAKEN,
        `openapi's ${option} is already a route of this server (${route.method} ${route.path}): give openapi another ${option.split(' ')[0]}, such as ${route.path === config.path ? "{ path: '/api/openapi.json' }" : "{ ui: '/api-docs' } (or { ui: false } for no docs page)"}`,
      );
    }
  }

  const own = new WeakSet<object>();
  const catalog = new Catalog(config, own);
  let building: Promise<PreparedBody> | undefined;
  let document: PreparedBody | undefined;
  for (const route of server.routeDefinitions()) catalog.add(route);
  // Routes added after the document was built are not in it (it is built once).
  server.addHook('onRoute', (route) => {
    if (building === undefined) catalog.add(route);
  });

  const build = (): Promise<PreparedBody> =>
    (building ??= loadValibot().then((valibot) => {
      const doc = buildDocument(catalog, config, valibot, server.logger);
      document = new PreparedBody(JSON.stringify(doc), 'application/json; charset=utf-8', 'no-cache');
      return document;
    }));

  const add = (path: string, handler: Handler<any, any>): void => {
    const route: RouteDefinition = { method: 'GET', path, handlers: [handler], strict: true };
    own.add(route.handlers);
    server.addRoute(route);
  };
  add(config.path, (req, res) => {
    if (document) return document.send(req, res);
    build().then(
      (built) => built.send(req, res),
      (err) => server.handleError(err, req, res),
    );
  });
  if (ui && config.ui !== undefined) {
    const page = new PreparedBody(ui.page, 'text/html; charset=utf-8', 'no-cache');
    const answer: Handler<any, any> = (req, res) => page.send(req, res);
    add(config.ui || '/', answer);
    if (config.ui !== '') add(`${config.ui}/`, answer);
    for (const file of ui.files) {
      let prepared: PreparedBody | undefined;
      add(`${config.ui}/${file.name}`, (req, res) => (prepared ??= new PreparedBody(file.read(), file.contentType, 'no-cache')).send(req, res));
    }
  }
  server.addHook('onListen', async () => {
    await build();
  });
}
