import { describe, expect, it } from 'vitest';
import { ipKeyGenerator } from '../src/index.ts';

describe('ipKeyGenerator', () => {
  it('keeps IPv4 addresses, and anything that is not an IPv6 address, as they are', () => {
    expect(ipKeyGenerator('203.0.113.9')).toBe('203.0.113.9');
    expect(ipKeyGenerator('not:an:address')).toBe('not:an:address');
    expect(ipKeyGenerator('')).toBe('');
  });

  it('groups IPv6 addresses by their /64 by default, written as express-rate-limit 8 writes them', () => {
    expect(ipKeyGenerator('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(ipKeyGenerator('2001:0DB8:0001:0002:FFFF:0:0:1')).toBe('2001:db8:1:2::/64');
    expect(ipKeyGenerator('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('::/64');
    expect(ipKeyGenerator('fe80::1%eth0')).toBe('fe80::/64');
    expect(ipKeyGenerator('[2001:db8::1]')).toBe('2001:db8::/64');
  });

  it('takes another prefix length, or false for whole addresses', () => {
    expect(ipKeyGenerator('2001:db8:1:2ff:3:4:5:6', 56)).toBe('2001:db8:1:200::/56');
    expect(ipKeyGenerator('2001:db8:1:2:3:4:5:6', 128)).toBe('2001:db8:1:2:3:4:5:6/128');
    expect(ipKeyGenerator('2001:db8:1:0:0:0:0:6', false)).toBe('2001:db8:1:0:0:0:0:6'.toLowerCase());
    expect(ipKeyGenerator('1:0:0:2:0:0:0:3', 128)).toBe('1:0:0:2::3/128');
  });

  it('reads IPv4 addresses written in IPv6 form as IPv4', () => {
    expect(ipKeyGenerator('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(ipKeyGenerator('::ffff:cb00:7109')).toBe('203.0.113.9');
    expect(ipKeyGenerator('0:0:0:0:0:ffff:cb00:7109')).toBe('203.0.113.9');
    expect(ipKeyGenerator('::203.0.113.9')).toBe('203.0.113.9');
  });
});
