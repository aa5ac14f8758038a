import { describe, expect, it } from 'vitest';
import { addressKey } from './address-key.ts';

describe('addressKey', () => {
  it('keeps IPv4 addresses as they are, IPv4-mapped ones included', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::FFFF:cb00:7109')).toBe('203.0.113.9');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const key = addressKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0000:0000:0000:0042', '2001:DB8:1:2:a:b:c:d', 'fe80::1%eth0'.replace('fe80::1', '2001:db8:1:2::9')]) {
      expect(addressKey(same)).toBe(key);
    }
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });
});
