/**
 * The client's address and the proxies in front of it: what `req.ip`, `req.ips`, `req.hostname`
 * and `req.protocol` answer, under the server's `trustProxy`.
 */
import type { Request } from './request.ts';

type Trust = ((addr: string, hop: number) => boolean) | undefined;

/** True when the peer that opened the connection is a trusted proxy. */
export function trusted(req: Request<unknown, unknown>, trust: Trust): boolean {
  return trust?.(req.socketAddress, 0) === true;
}

/** The socket address, then the X-Forwarded-For hops from closest to farthest, while trusted. */
export function forwardedChain(req: Request<unknown, unknown>, trust: Trust): string[] {
  const socket = req.socketAddress;
  if (!trust) return [socket];
  const forwarded = (req.get('x-forwarded-for') ?? '').split(',');
  const chain = [socket];
  for (let i = forwarded.length - 1, hop = 0; i >= 0 && trust(chain[hop]!, hop); i--, hop++) {
    const addr = forwarded[i]!.trim();
    if (addr === '') break;
    chain.push(addr);
  }
  return chain;
}

/** The host name from `Host` (or `X-Forwarded-Host` from a trusted proxy), without the port (`req.hostname`). */
export function hostname(req: Request<unknown, unknown>, trust: Trust): string {
  let host = (trusted(req, trust) && req.get('x-forwarded-host')?.split(',')[0]?.trim()) || req.get('host') || '';
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  if (colon >= 0) host = host.slice(0, colon);
  return host;
}

/** `own` (the server's scheme), or `X-Forwarded-Proto` from a trusted proxy (`req.protocol`). */
export function protocol(req: Request<unknown, unknown>, trust: Trust, own: string): string {
  if (!trusted(req, trust)) return own;
  const forwarded = req.get('x-forwarded-proto');
  return forwarded ? forwarded.split(',')[0]!.trim().toLowerCase() : own;
}

const decoder = new TextDecoder();
/** uWS gives IPv4-mapped IPv6 addresses for IPv4 peers on a dual-stack socket; show them as IPv4. */
export function textAddress(ab: ArrayBuffer): string {
  const text = decoder.decode(ab);
  if (text.startsWith('0000:0000:0000:0000:0000:ffff:')) {
    const hex = text.slice(30).replace(':', '');
    const n = Number.parseInt(hex, 16);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  return text;
}
