/**
 * The error path: onError hooks, then the route's and the server's error handlers in turn, the
 * not-found answer, and the last-resort 500 when an error handler fails too.
 */
import { FALL_THROUGH, type Fail } from './compose.ts';
import { requestError } from './diagnostics.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { Request } from './request.ts';
import { Response } from './response.ts';
import { kConfig } from './symbols.ts';
import type { ErrorHandler, ErrorMiddleware } from './types.ts';

// Not an ESM import of node:http: see headers.ts.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** Answers a request with the server's not-found handler; what it throws goes down the error path. */
export function notFound(life: Lifecycle, req: Request, res: Response): void {
  const fail = life.serverFail;
  try {
    const result: unknown = life.notFoundHandler(req, res);
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, (err: unknown) => fail(err, req, res));
  } catch (err) {
    fail(err, req, res);
  }
}

/** Error path for one route: its own error handlers first, then the server's. */
export function makeFail(life: Lifecycle, scoped: Array<ErrorHandler<any, any>>): Fail {
  return (err, req, res) => {
    if (err === FALL_THROUGH) return notFound(life, req, res);
    if (requestError.hasSubscribers) requestError.publish({ req, res, error: err });
    for (const hook of life.hooks.onError) {
      try {
        hook(err, req, res);
      } catch (hookError) {
        life.config.logger?.error(hookError);
      }
    }
    if (res.aborted) return;
    if (res.headersSent) {
      // Too late for an error answer: log it, and cut a response still in progress.
      life.config.logger?.error(err);
      if (!res.finished) res.destroy();
      return;
    }
    runHandler(life, err, req, res, errorHandlers(life, scoped, req), 0);
  };
}

/** Router-scoped handlers, then the error middlewares that apply to the request's path, then the server's. */
function errorHandlers(life: Lifecycle, scoped: Array<ErrorHandler<any, any>>, req: Request): Array<ErrorHandler<any, any>> {
  const list = life.errorMiddlewares;
  if (list.length === 0) return [...scoped, life.errorHandler];
  const handlers: Array<ErrorHandler<any, any>> = [...scoped];
  let path: string | undefined;
  for (const { matches, fn } of list) {
    if (matches) {
      path ??= req.originalUrl.split('?')[0]!;
      if (!matches(path)) continue;
    }
    handlers.push(fn as ErrorHandler<any, any>);
  }
  handlers.push(life.errorHandler);
  return handlers;
}

function runHandler(life: Lifecycle, err: unknown, req: Request, res: Response, handlers: Array<ErrorHandler<any, any>>, i: number): void {
  const handler = handlers[i] ?? defaultErrorHandler;
  // Error handlers get a `next` too, as Express error middlewares do: next(err) hands an error
  // to the next handler; next() with nothing means nobody answered, so the not-found handler does.
  let passed = false;
  const pass = (passedOn?: unknown) => {
    if (passed || res.finished || res.aborted) return;
    passed = true;
    if (passedOn === undefined || passedOn === null || passedOn === 'route' || passedOn === 'router') {
      if (res.headersSent) return res.destroy();
      return notFound(life, req, res);
    }
    next(passedOn);
  };
  const next = (thrown: unknown) => {
    if (res.finished || res.aborted) return life.config.logger?.error(thrown);
    if (res.headersSent) return res.destroy();
    if (handler === defaultErrorHandler) {
      // The last resort failed too: answer a bare 500, through core's own end (an end a
      // middleware replaced may be what failed, as an Express middleware does on a server
      // without nodeCompat).
      life.config.logger?.error(thrown);
      res.statusCode = 500;
      res.remove('content-type');
      return void Response.prototype.end.call(res, 'Internal Server Error');
    }
    runHandler(life, thrown, req, res, handlers, i + 1);
  };
  try {
    const result: unknown = (handler as ErrorMiddleware<any, any>)(err, req, res, pass);
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, next);
  } catch (thrown) {
    next(thrown);
  }
}

/** The server's error handler until `setErrorHandler()`: a JSON answer, its message shown for 4xx (or with `exposeErrors`). */
export function defaultErrorHandler(err: any, req: Request, res: Response): void {
  const raw = Number(err?.status ?? err?.statusCode);
  const status = Number.isInteger(raw) && raw >= 400 && raw <= 599 ? raw : 500;
  const expose = typeof err?.expose === 'boolean' ? err.expose : status < 500;
  const config = req.server[kConfig];
  // With request logging, the error was logged with its request id already (request-log.ts).
  if (status >= 500 && !config.requestLog) config.logger?.error(err);
  const body: Record<string, unknown> = { statusCode: status, error: STATUS_CODES[status] ?? 'Error' };
  if (expose || config.exposeErrors) {
    body.message = String(err?.message ?? err);
    if (typeof err?.code === 'string') body.code = err.code;
    const details = err?.details;
    if (details !== undefined) {
      if (details && typeof details === 'object' && !Array.isArray(details)) Object.assign(body, details);
      else body.details = details;
    }
    if (config.exposeErrors && status >= 500 && err?.stack) body.stack = String(err.stack);
  } else {
    body.message = STATUS_CODES[status] ?? 'Error';
  }
  res.status(status);
  res.remove('content-type');
  res.json(body);
}

/** The server's not-found handler until `setNotFoundHandler()`. */
export function defaultNotFoundHandler(req: Request, res: Response): void {
  res.status(404).json({ statusCode: 404, error: 'Not Found', message: `Cannot ${req.method} ${req.path}` });
}
