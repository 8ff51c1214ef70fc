/**
 * What a request needs from its server while it runs, in one small object per server: the
 * config, the hook lists, the error path, and the list of responses still in progress. Requests
 * and responses talk to this object, never back to `Server` itself.
 */
import type { ServerClasses } from './classes.ts';
import type { Fail } from './compose.ts';
import { responseFinish } from './diagnostics.ts';
import { defaultErrorHandler, defaultNotFoundHandler, makeFail, notFound } from './error-path.ts';
import type { Request } from './request.ts';
import type { Response } from './response.ts';
import type { Config } from './options.ts';
import type { Server } from './server.ts';
import { kAbort, kHasListeners, kNextInflight, kPrevInflight } from './symbols.ts';
import type { ErrorHandler, ErrorMiddleware, Handler, HookName, Hooks } from './types.ts';

/** The server's hooks, by name, in the order added. */
export type HookLists = { [K in HookName]: Array<Hooks[K]> };

/** An error handler `(err, req, res, next)` added with `addErrorHandler()`, with its prefix. */
export interface ScopedErrorMiddleware {
  matches: ((path: string) => boolean) | undefined;
  fn: ErrorMiddleware<any, any>;
}


/** One per server: what its requests and responses call while they run. */
export class Lifecycle {
  readonly server: Server;
  readonly config: Config;
  /** The server's classes (classes.ts): dispatch builds with `BuiltRequest` and `BuiltResponse`. */
  readonly classes: ServerClasses;
  readonly hooks: HookLists = {
    onRoute: [],
    onRequest: [],
    onSend: [],
    onResponse: [],
    onError: [],
    onListen: [],
    onClose: [],
    onPublish: [],
  };
  errorHandler: ErrorHandler<any, any> = defaultErrorHandler;
  notFoundHandler: Handler<any, any> = defaultNotFoundHandler;
  readonly errorMiddlewares: ScopedErrorMiddleware[] = [];
  /** True while the server closes: responses ask clients to close their connections. */
  closing = false;
  /** The `keepAliveHeader` option's header lines (each after a CRLF), or '' when it is off. */
  readonly keepAlive: string;
  /** Responses still in progress after their uWS callback returned: an intrusive list (no hashing per request). */
  #inflight: Response | null = null;
  #inflightCount = 0;
  #drained: (() => void) | undefined;
  /** The error path with no router-scoped handlers; made once (it reads the error handler when called). */
  #serverFail: Fail | undefined;

  constructor(server: Server, config: Config, classes: ServerClasses) {
    this.server = server;
    this.config = config;
    this.classes = classes;
    const seconds = config.keepAliveHeader;
    this.keepAlive = seconds === false ? '' : `\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${seconds}`;
  }

  /** The error path with no router-scoped handlers. */
  get serverFail(): Fail {
    return (this.#serverFail ??= makeFail(this, []));
  }

  /** Sends an error through the server's error path (onError hooks, then the error handlers). */
  fail(err: unknown, req: Request, res: Response): void {
    (this.#serverFail ??= makeFail(this, []))(err, req, res);
  }

  /** Answers with the not-found handler. */
  notFound(req: Request, res: Response): void {
    notFound(this, req, res);
  }

  /** Runs onSend hooks; a hook that throws is logged and skipped. */
  beforeHead(req: Request, res: Response): void {
    const hooks = this.hooks.onSend;
    for (let i = 0; i < hooks.length; i++) {
      try {
        hooks[i]!(req, res);
      } catch (err) {
        this.config.logger?.error(err);
      }
    }
  }

  /** The response was sent, or the client left. */
  finished(req: Request, res: Response, aborted: boolean): void {
    // On the in-flight list: after another response, or at its head. (A flag of its own would be
    // one more field in every response.)
    if ((res[kPrevInflight] !== null || this.#inflight === res) && this.#untrack(res) === 0) this.#drained?.();
    if (this.hooks.onResponse.length > 0 || responseFinish.hasSubscribers || res[kHasListeners]) this.#announce(req, res, aborted);
  }

  /** Tells the onResponse hooks, the diagnostics channel and the response's listeners (kept apart from finished(), which stays small). */
  #announce(req: Request, res: Response, aborted: boolean): void {
    if (!aborted) {
      const hooks = this.hooks.onResponse;
      for (let i = 0; i < hooks.length; i++) {
        try {
          hooks[i]!(req, res);
        } catch (err) {
          this.config.logger?.error(err);
        }
      }
    }
    if (responseFinish.hasSubscribers) responseFinish.publish({ req, res, aborted });
    if (res[kHasListeners]) {
      if (!aborted) res.emit('finish');
      res.emit('close');
    }
  }

  /** uWS reported the connection gone. */
  abort(req: Request, res: Response): void {
    if (!res[kAbort]()) return;
    req[kAbort]();
    this.finished(req, res, true);
  }

  /** Puts a response that went async on the in-flight list. */
  track(res: Response): void {
    const head = this.#inflight;
    res[kPrevInflight] = null;
    res[kNextInflight] = head;
    if (head) head[kPrevInflight] = res;
    this.#inflight = res;
    this.#inflightCount++;
  }

  /** Takes a response off the in-flight list; returns how many are left. */
  #untrack(res: Response): number {
    const prev = res[kPrevInflight];
    const next = res[kNextInflight];
    if (prev) prev[kNextInflight] = next;
    else this.#inflight = next;
    if (next) next[kPrevInflight] = prev;
    res[kPrevInflight] = res[kNextInflight] = null;
    return --this.#inflightCount;
  }

  /** The responses in progress, or none. */
  inflight(): Response[] {
    const list: Response[] = [];
    for (let res = this.#inflight; res; res = res[kNextInflight]) list.push(res);
    return list;
  }

  /** Resolves when the last response in progress ends (at once when none is). */
  drained(): Promise<void> | undefined {
    if (this.#inflightCount === 0) return undefined;
    return new Promise<void>((resolve) => (this.#drained = resolve));
  }

  /** Forgets the drain waiter (close() gave up waiting or finished). */
  stopWaiting(): void {
    this.#drained = undefined;
  }
}
