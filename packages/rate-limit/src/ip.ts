/**
 * Client addresses as rate-limit keys: IPv4 as it is, IPv6 grouped by its network prefix (a
 * /64 by default), since one subscriber commonly holds a whole /64 (often a /56) and could
 * otherwise take a fresh address for every request.
 */
import { isIPv6 } from 'node:net';

/**
 * The key of a client address: an IPv4 address (or an IPv4-mapped IPv6 one, `::ffff:1.2.3.4`)
 * as IPv4; an IPv6 address as its network of `ipv6Subnet` bits in RFC 5952 form with the prefix
 * length (`2001:db8:1:2::/64`), as express-rate-limit 8's `ipKeyGenerator` writes it; anything
 * else as it is. `ipv6Subnet: false` keeps whole IPv6 addresses.
 *
 * @example
 * ```ts
 * import { rateLimit, ipKeyGenerator } from '@velox/rate-limit';
 * ipKeyGenerator('2001:db8:1:2:3:4:5:6'); // '2001:db8:1:2::/64'
 * app.use(rateLimit({ keyGenerator: (req) => req.get('x-api-key') ?? ipKeyGenerator(req.ip, 56) }));
 * ```
 */
export function ipKeyGenerator(ip: string, ipv6Subnet: number | false = 64): string {
  if (typeof ip !== 'string' || ip.indexOf(':') === -1) return ip;
  return ipv6Key(ip, ipv6Subnet);
}

/** The IPv6 branch of ipKeyGenerator (kept apart: the IPv4 case stays small enough to inline). @internal */
export function ipv6Key(ip: string, subnet: number | false): string {
  let text = ip;
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  if (text.charCodeAt(0) === 91 /* [ */ && text.charCodeAt(text.length - 1) === 93 /* ] */) text = text.slice(1, -1);
  if (!isIPv6(text)) return ip;
  const groups = parseGroups(text);
  // An IPv4 address written inside an IPv6 one: mapped (::ffff:a.b.c.d, also in hex), or the old
  // "compatible" notation (::a.b.c.d), which express-rate-limit treats as IPv4 as well.
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0) {
    const mapped = groups[5] === 0xffff;
    if (mapped || (groups[5] === 0 && text.indexOf('.') !== -1)) {
      return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
    }
  }
  if (subnet === false) return text.toLowerCase();
  let bits = subnet;
  for (let i = 0; i < 8; i++) {
    if (bits >= 16) bits -= 16;
    else {
      groups[i] = bits <= 0 ? 0 : groups[i]! & (0xffff << (16 - bits)) & 0xffff;
      bits = 0;
    }
  }
  return `${format(groups)}/${subnet}`;
}

/** The eight 16-bit groups of a valid IPv6 text (checked by isIPv6 before). */
function parseGroups(text: string): number[] {
  const groups: number[] = [];
  const gap = text.indexOf('::');
  const head = gap === -1 ? text : text.slice(0, gap);
  const tail = gap === -1 ? '' : text.slice(gap + 2);
  const before = head === '' ? [] : readGroups(head);
  const after = tail === '' ? [] : readGroups(tail);
  for (const g of before) groups.push(g);
  for (let i = before.length + after.length; i < 8; i++) groups.push(0);
  for (const g of after) groups.push(g);
  return groups;
}

function readGroups(part: string): number[] {
  const out: number[] = [];
  for (const piece of part.split(':')) {
    if (piece.indexOf('.') !== -1) {
      const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
      out.push((a << 8) | b, (c << 8) | d);
    } else out.push(Number.parseInt(piece, 16));
  }
  return out;
}

/** RFC 5952: lower-case hex without leading zeros, the longest run of two or more zero groups (the first of equals) as `::`. */
function format(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
