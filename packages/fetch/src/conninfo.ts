/**
 * `getConnInfo(c)` for Hono on Velox, the counterpart of `hono/bun`'s and
 * `@hono/node-server/conninfo`'s: `import { getConnInfo } from '@velox/fetch/conninfo'`.
 */
import type { VeloxBindings } from './env.ts';

/** What {@link getConnInfo} returns: Hono's `ConnInfo` shape. */
export interface ConnInfo {
  remote: {
    /** The client's address: the peer's, or with `trustProxy` the one the trusted proxies report. */
    address?: string;
    /** Always undefined: uWS does not report the peer's port. */
    port?: number;
    addressType?: 'IPv4' | 'IPv6' | 'unknown';
    /** Through a trusted proxy: the peer's own address (the proxy). */
    transport?: string;
  };
}

/**
 * The connection details of a request served by `serve()` or `fetchHandler()`, for Hono
 * (`hono/conninfo`'s `ipRestriction` takes it too). Takes Hono's context (anything with `env`
 * as `serve()` passes it).
 * @example
 * ```ts
 * import { getConnInfo } from '@velox/fetch/conninfo';
 * hono.get('/ip', (c) => c.text(getConnInfo(c).remote.address ?? ''));
 * ```
 */
export function getConnInfo(c: { env: unknown }): ConnInfo {
  const env = c.env as Partial<VeloxBindings> | undefined;
  const req = env?.velox?.req;
  if (!req) throw new TypeError('getConnInfo of @velox/fetch needs the env that serve() or fetchHandler() pass as fetch\'s second argument');
  const address = req.ip;
  const peer = req.socketAddress;
  const info: ConnInfo = { remote: { address, port: undefined, addressType: address === '' ? 'unknown' : address.includes(':') ? 'IPv6' : 'IPv4' } };
  if (peer !== address) info.remote.transport = peer;
  return info;
}
