/**
 * `nodeCompat`: the plugin that gives a Velox server the Node.js/Express surface. It plugs in
 * through core's public interface only: `decorateRequest`/`decorateResponse` (fulfilling the
 * members core reserves for it), `extendUse` (Express error middlewares given to `use()`) and
 * `wrapMiddleware` (cookie-parser).
 */
import {
  type Decoration,
  isPlaceholder,
  type ErrorMiddleware,
  type Middleware,
  type Mountable,
  type Plugin,
  type Request,
  type Response,
} from '@velox/core';
import { forCookieParser } from './cookies.ts';
import { requestMembers } from './request.ts';
import { responseMembers } from './response.ts';
import { sendFiles } from '@velox/static';

let members: { request: Array<[string, Decoration<Request>]>; response: Array<[string | symbol, Decoration<Response>]> } | undefined;

/** What nodeCompat decorates, made once: a second server gets the very same definitions. */
function decorations(): NonNullable<typeof members> {
  members ??= { request: requestMembers(), response: responseMembers() };
  return members;
}

/**
 * Gives a native Velox server the Node.js/Express surface that Express middlewares and handlers
 * use: `req` as a readable stream and event emitter, `req.socket`, `rawHeaders`,
 * `httpVersion`, `req.app`/`res.app`, `res.writeHead`/`setHeader`/`getHeader`, `_header`,
 * Node's header table, Express's helpers (`req.xhr`, `req.range()`, `req.subdomains`,
 * `res.location()`, `res.attachment()`, `res.format()`), Express error middlewares
 * `(err, req, res, next)` in `use()`, and cookie-parser as in Express. Register it before the
 * `use()` calls that add Express middlewares, and before `listen()`. A request or response that
 * touches none of it pays nothing for it; a server without it pays nothing at all.
 *
 * The members are decorations of this server's own Request and Response classes: another server
 * in the same process does not get them, and its requests still find core's placeholders, which
 * throw `VELOX_ERR_PLUGIN_MISSING` naming this plugin.
 *
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { nodeCompat } from '@velox/express';
 * import bodyParser from 'body-parser';
 * import morgan from 'morgan';
 *
 * const app = new Server();
 * await app.register(nodeCompat);
 * app.use(morgan('dev'));
 * app.use(bodyParser.json());
 * app.post('/echo', (req, res) => res.json(req.body));
 * app.use((err, req, res, next) => res.status(err.status ?? 500).json({ error: err.message }));
 * await app.listen(3000);
 * ```
 */
export const nodeCompat: Plugin<Record<string, never>> = (server) => {
  // Registered before on this server: its requests have req.on already (a placeholder until then).
  if (!isPlaceholder('request', 'on', server)) return;
  const { request, response } = decorations();
  for (const [name, definition] of request) server.decorateRequest(name, definition);
  for (const [name, definition] of response) server.decorateResponse(name, definition);
  // Express tells error middlewares by their four declared arguments.
  server.extendUse((item, prefix) => {
    if (typeof item !== 'function' || item.length !== 4) return false;
    if (prefix === '') server.addErrorHandler(item as ErrorMiddleware<any, any>);
    else server.addErrorHandler(prefix, item as ErrorMiddleware<any, any>);
    return true;
  });
  server.wrapMiddleware(forCookieParser);
  // Express's res has sendFile and download: they are @velox/static's `sendFiles` decorations.
  sendFiles(server, {});
};

declare module '@velox/core' {
  interface Server {
    /**
     * With `nodeCompat`: an Express error middleware `(err, req, res, next)`, for every request or
     * for those under a prefix, added with `addErrorHandler()`.
     * @example
     * ```ts
     * app.use((err, req, res, next) => res.status(err.status ?? 500).json({ error: err.message }));
     * ```
     */
    use(...args: [ErrorMiddleware<any, any>] | [string, ErrorMiddleware<any, any>]): this;
    use(...args: Array<string | Middleware<any, any> | Mountable>): this;
  }
}
