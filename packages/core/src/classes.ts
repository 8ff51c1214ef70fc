/**
 * The classes each server builds its requests and responses with (per server, as Fastify builds
 * Request/Reply per instance), and the prototypes a framework layered on Velox may put under them.
 *
 * A server starts with core's `Request` and `Response` themselves, so a server without
 * decorations runs exactly core's code. Its first decoration makes its own subclass, where every
 * later decoration goes (other servers never see them). `setInstancePrototypes()` then lets a
 * layer such as the drop-in `express()` have requests built onto its own prototype (Express's
 * `app.request`, which must inherit from the server's), through one more subclass whose empty
 * prototype sits on it: one hidden class per request kind, no `Object.setPrototypeOf` per request.
 */
import type { HttpRequest, HttpResponse } from '@based/uws';
import { ErrorCodes, VeloxError } from './errors.ts';
import type { HeadCache } from './headers.ts';
import type { Lifecycle } from './lifecycle.ts';
import { Request as BaseRequest } from './request.ts';
import { Response as BaseResponse } from './response.ts';
import type { Server } from './server.ts';

/** A class dispatch builds requests with. */
export type RequestClass = new (server: Server, ureq: HttpRequest, ures: HttpResponse, res: BaseResponse, method: string, path?: string) => BaseRequest;
/** A class dispatch builds responses with. */
export type ResponseClass = new (life: Lifecycle, ures: HttpResponse, head: boolean, heads: HeadCache) => BaseResponse;

/** One server's classes. */
export interface ServerClasses {
  /** The server's own Request class: core's until its first request decoration, then its subclass. */
  Request: RequestClass;
  /** The server's own Response class, likewise. */
  Response: ResponseClass;
  /** What dispatch builds requests with: `Request`, or its subclass set on a prototype by setInstancePrototypes(). */
  BuiltRequest: RequestClass;
  /** What dispatch builds responses with, likewise. */
  BuiltResponse: ResponseClass;
}

/** A server's classes before any decoration: core's own. */
export function baseClasses(): ServerClasses {
  return { Request: BaseRequest, Response: BaseResponse, BuiltRequest: BaseRequest, BuiltResponse: BaseResponse };
}

/**
 * The prototype a server's decorations of `kind` go on: that of its own subclass of core's class,
 * made at the first call. `instanceof Request` holds, and core's placeholders stay on the base
 * prototypes underneath, where a server that did not decorate them still finds them.
 */
export function ownPrototype(classes: ServerClasses, kind: 'Request' | 'Response'): object {
  if (kind === 'Request') {
    if (classes.Request === BaseRequest) {
      classes.Request = class Request extends BaseRequest {};
      if (classes.BuiltRequest === BaseRequest) classes.BuiltRequest = classes.Request;
    }
    return classes.Request.prototype;
  }
  if (classes.Response === BaseResponse) {
    classes.Response = class Response extends BaseResponse {};
    if (classes.BuiltResponse === BaseResponse) classes.BuiltResponse = classes.Response;
  }
  return classes.Response.prototype;
}

/**
 * Makes dispatch build the requests (or responses) of a server as objects that inherit from
 * `proto` (through the empty prototype of one more subclass), which must inherit from the server's
 * own prototype of that kind.
 */
export function buildOnto(classes: ServerClasses, kind: 'Request' | 'Response', proto: object): void {
  const own = ownPrototype(classes, kind);
  if (proto !== own && !Object.prototype.isPrototypeOf.call(own, proto)) {
    throw new VeloxError(
      ErrorCodes.INVALID_OPTION,
      `setInstancePrototypes(): the ${kind.toLowerCase()} prototype must inherit from this server's (server.prototypes.${kind.toLowerCase()})`,
    );
  }
  // A subclass whose (empty) prototype inherits from `proto`: V8 keeps one hidden class for its
  // objects only when it builds them as a class (a plain function's `prototype`, or
  // `Reflect.construct` with one as new.target, gets a new hidden class per object).
  if (kind === 'Request') {
    if (proto === own) classes.BuiltRequest = classes.Request;
    else Object.setPrototypeOf((classes.BuiltRequest = class Request extends classes.Request {}).prototype, proto);
  } else {
    if (proto === own) classes.BuiltResponse = classes.Response;
    else Object.setPrototypeOf((classes.BuiltResponse = class Response extends classes.Response {}).prototype, proto);
  }
}
