/**
 * The second argument a fetch app receives (Hono's `c.env`): Node-style `incoming` as
 * @hono/node-server passes it (so `getConnInfo` of `@hono/node-server/conninfo` works too), and
 * the Velox request and response themselves. Built lazily: an app that never reads it pays for
 * one small object.
 */
import type { Response as VeloxResponse, Request as VeloxRequest } from '@velox/core';

/** The socket details of `env.incoming`, as Node's `net.Socket` names them. */
export interface IncomingSocket {
  /** The peer's address (the proxy's, behind one; see `getConnInfo` for the client's). */
  remoteAddress: string;
  /** Always undefined: uWS does not report the peer's port. */
  remotePort: undefined;
  /** `'IPv4'` or `'IPv6'`. */
  remoteFamily: 'IPv4' | 'IPv6' | undefined;
  /** True on a TLS server. */
  encrypted: boolean;
}

/** The Node-style request summary in `env.incoming`. */
export interface Incoming {
  method: string;
  /** The target as sent (path and query). */
  url: string;
  /** Lower-case names; repeated lines joined. */
  headers: Record<string, string | undefined>;
  socket: IncomingSocket;
}

/**
 * What `serve()` and `fetchHandler()` pass as the fetch handler's second argument.
 * @example
 * ```ts
 * const hono = new Hono<{ Bindings: VeloxBindings }>();
 * hono.get('/me', (c) => c.text(c.env.velox.req.ip));
 * ```
 */
export interface VeloxBindings {
  /** Node-style request details, as @hono/node-server's `env.incoming` has them. */
  readonly incoming: Incoming;
  /** The Velox request and response behind the fetch Request (sessions, cookies, `ip`…). */
  readonly velox: { readonly req: VeloxRequest; readonly res: VeloxResponse };
}

/** @internal */
export class FetchEnv implements VeloxBindings {
  #req: VeloxRequest;
  #res: VeloxResponse;
  #incoming: Incoming | undefined = undefined;

  constructor(req: VeloxRequest, res: VeloxResponse) {
    this.#req = req;
    this.#res = res;
  }

  get incoming(): Incoming {
    if (this.#incoming) return this.#incoming;
    const req = this.#req;
    const address = req.socketAddress;
    return (this.#incoming = {
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      socket: {
        remoteAddress: address,
        remotePort: undefined,
        remoteFamily: address === '' ? undefined : address.includes(':') ? 'IPv6' : 'IPv4',
        encrypted: req.server.config.tls !== undefined,
      },
    });
  }

  get velox(): { req: VeloxRequest; res: VeloxResponse } {
    return { req: this.#req, res: this.#res };
  }
}
