/**
 * `getConnInfo(c)` for Hono on Velox, the counterpart of `hono/bun`'s and
 * `@hono/node-server/conninfo`'s: `import { getConnInfo } from '@velox/fetch/conninfo'`.
 */
import type { VeloxBindings } from './env.ts';

/** What {@link getConnInfo} returns: Hono's `ConnInfo` shape. */
export interface ConnInfo {
  remote: {
    /** The client's address: the peer's, or with `trustProxy` the one the trusted proxies report. */
    address: string;
    /** `'IPv4'` or `'IPv6'`; undefined without an address (read after the response ended). */
    addressType: 'IPv4' | 'IPv6' | undefined;
    /** Always undefined: uWS does not report the peer's port. */
    port?: number;
    /** Always `'tcp'`. */
    transport: 'tcp';
  };
}

/**
 * The connection details of a request served by `serve()` or `fetchHandler()`, for Hono
 * (`hono/ip-restriction`'s `ipRestriction` takes it too). Takes Hono's context (anything with
 * `env` as `serve()` passes it).
 * @example
 * ```ts
 * import { getConnInfo } from '@velox/fetch/conninfo';
 * hono.get('/ip', (c) => c.text(getConnInfo(c).remote.address));
 * ```
 */
export function getConnInfo(c: { env: unknown }): ConnInfo {
  const env = c.env as Partial<VeloxBindings> | undefined;
  const req = env?.velox?.req;
  if (!req) throw new TypeError("getConnInfo of @velox/fetch needs the env that serve() or fetchHandler() pass as fetch's second argument");
  const address = req.ip;
  return { remote: { address, addressType: address === '' ? undefined : address.includes(':') ? 'IPv6' : 'IPv4', port: undefined, transport: 'tcp' } };
}
