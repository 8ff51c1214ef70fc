/**
 * The client's address and the proxies in front of it: what `req.ip`, `req.ips`, `req.hostname`
 * and `req.protocol` read, under the server's `trustProxy`.
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
