/**
 * `fetchHandler(fetch)`: a Velox handler that runs a web-standards app (`fetch(request, env) =>
 * Response`) for the requests of the route it is registered on.
 */
import type { Handler, Response as VeloxResponse, Request as VeloxRequest } from '@velox/core';
import { FetchEnv, type VeloxBindings } from './env.ts';
import { FetchErrorCodes, fetchError, invalidOption } from './errors.ts';
import { FetchRequest, kAbort, kClientError } from './request.ts';
import { sendResponse } from './response.ts';
import { requestUrl } from './url.ts';

/**
 * A web-standards app's entry point: Hono's `app.fetch`, H3's `app.fetch`, itty-router's
 * `router.fetch`, Elysia's `app.fetch`, or your own function.
 */
export type FetchFunction = (request: Request, env: VeloxBindings) => Response | Promise<Response>;

/** Options of {@link fetchHandler} (and of `serve()`, which passes them on). */
export interface FetchHandlerOptions {
  /**
   * Milliseconds the app has to answer (its promise to resolve); past it the client gets 503
   * (`VELOX_ERR_FETCH_TIMEOUT`) and `request.signal` aborts with a `TimeoutError`. `0`: no limit.
   * @default 0
   */
  timeout?: number;
  /**
   * Largest body `text()`, `json()`, `arrayBuffer()`, `bytes()`, `formData()` and `blob()` read;
   * more answers 413. Defaults to the server's `maxBodyLength` (1 MiB unless set).
   */
  maxBodyLength?: number;
  /**
   * Largest body the `request.body` stream delivers; more errors the stream and answers 413.
   * @default Infinity
   */
  maxStreamLength?: number;
}

/**
 * A Velox handler running a fetch app: each request becomes a lazy `Request` (nothing is copied
 * until the app reads it), the app's `Response` is written through Velox (hooks, `onSend`,
 * compression middlewares see it). A throw or rejection goes to the server's error handler (500).
 * @example
 * ```ts
 * import { Server } from '@velox/core';
 * import { fetchHandler } from '@velox/fetch';
 * import { Hono } from 'hono';
 *
 * const hono = new Hono().basePath('/api').get('/hi', (c) => c.text('Hi'));
 * const app = new Server();
 * app.get('/', (req, res) => res.send('Velox'));
 * app.all('/api/*', fetchHandler(hono.fetch));
 * await app.listen(3000);
 * ```
 */
export function fetchHandler(fetch: FetchFunction, options: FetchHandlerOptions = {}): Handler<any, any> {
  if (typeof fetch !== 'function') throw invalidOption('fetchHandler(fetch) takes the app\'s fetch function, e.g. fetchHandler(app.fetch)');
  const timeout = options.timeout ?? 0;
  if (typeof timeout !== 'number' || !(timeout >= 0) || !Number.isFinite(timeout)) {
    throw invalidOption(`timeout must be a number of milliseconds ≥ 0 (0: none), got ${String(timeout)}`);
  }
  for (const key of ['maxBodyLength', 'maxStreamLength'] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'number' || !(value >= 0))) throw invalidOption(`${key} must be a number of bytes ≥ 0, got ${String(value)}`);
  }
  const maxStreamLength = options.maxStreamLength ?? Infinity;
  const ownBodyLimit = options.maxBodyLength;
  let limits: { maxBodyLength: number; maxStreamLength: number } | undefined;

  return function veloxFetch(req: VeloxRequest, res: VeloxResponse) {
    limits ??= { maxBodyLength: ownBodyLimit ?? req.server.config.maxBodyLength, maxStreamLength };
    const request = new FetchRequest(req, res, requestUrl(req), limits);
    const result = fetch(request as unknown as Request, new FetchEnv(req, res));
    if (!isThenable(result)) return answer(res, request, result);
    if (timeout === 0) return result.then((response) => answer(res, request, response), (err) => failed(request, err));
    return withTimeout(result, timeout, request).then((response) => answer(res, request, response), (err) => failed(request, err));
  };
}

function answer(res: VeloxResponse, request: FetchRequest, response: Response): void | Promise<void> {
  const clientError = request[kClientError];
  if (clientError !== undefined) {
    const body = response?.body;
    if (body && !body.locked) body.cancel().catch(() => {});
    throw clientError;
  }
  return sendResponse(res, response);
}

/** A rejection: a client error the app tripped over (body too large) answers as such. */
function failed(request: FetchRequest, err: unknown): never {
  throw request[kClientError] ?? err;
}

function withTimeout(result: PromiseLike<Response>, ms: number, request: FetchRequest): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      request[kAbort](new DOMException(`The app did not answer within ${ms} ms`, 'TimeoutError'));
      reject(fetchError(FetchErrorCodes.TIMEOUT, `The app did not answer within ${ms} ms`, 503, undefined, true));
    }, ms);
    result.then(
      (response) => {
        clearTimeout(timer);
        // Answered after the 503 went out: let go of its body.
        if (late && response instanceof Response && response.body && !response.body.locked) response.body.cancel().catch(() => {});
        resolve(response);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

function isThenable(value: unknown): value is PromiseLike<Response> {
  return typeof (value as PromiseLike<Response> | null)?.then === 'function';
}
