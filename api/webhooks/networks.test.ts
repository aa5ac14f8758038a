/** The address rule and WEBHOOK_ALLOW_NETWORKS, including its start-up validation in the config module. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { addressRefusal, parseAllowNetworks } from './networks.ts';

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', 'address 127.0.0.1 is a loopback address'],
    ['127.255.0.9', 'address 127.255.0.9 is a loopback address'],
    ['10.0.0.5', 'address 10.0.0.5 is in a private network'],
    ['172.31.255.255', 'address 172.31.255.255 is in a private network'],
    ['192.168.0.1', 'address 192.168.0.1 is in a private network'],
    ['169.254.169.254', 'address 169.254.169.254 is link-local (where cloud metadata services answer, e.g. 169.254.169.254)'],
    ['100.64.0.1', 'address 100.64.0.1 is in the carrier-grade NAT range 100.64.0.0/10'],
    ['100.127.255.254', 'address 100.127.255.254 is in the carrier-grade NAT range 100.64.0.0/10'],
    ['224.0.0.1', 'address 224.0.0.1 is a multicast address'],
    ['0.0.0.0', 'address 0.0.0.0 is the unspecified address'],
    ['255.255.255.255', 'address 255.255.255.255 is the broadcast address'],
    ['192.0.2.10', 'address 192.0.2.10 is in a reserved range'],
    ['::1', 'address ::1 is a loopback address'],
    ['::', 'address :: is the unspecified address'],
    ['fc00::1', 'address fc00::1 is in a private network (IPv6 unique local)'],
    ['fdff::1', 'address fdff::1 is in a private network (IPv6 unique local)'],
    ['fe80::1', 'address fe80::1 is link-local (where cloud metadata services answer, e.g. 169.254.169.254)'],
    ['fec0::1', 'address fec0::1 is in a private network (IPv6 site local)'],
    ['ff05::2', 'address ff05::2 is a multicast address'],
    ['::ffff:10.0.0.5', 'address ::ffff:10.0.0.5 (10.0.0.5) is in a private network'],
    ['::ffff:7f00:1', 'address ::ffff:7f00:1 (127.0.0.1) is a loopback address'],
    ['64:ff9b::a00:1', 'address 64:ff9b::a00:1 is a NAT64 address for 10.0.0.1, which is in a private network'],
    ['2002:a00:1::1', 'address 2002:a00:1::1 is in a reserved range (6to4)'],
    ['2001:db8::1', 'address 2001:db8::1 is in a reserved range'],
    ['not-an-ip', '"not-an-ip" is not an IP address'],
    // IPv4-compatible IPv6 (::/96, deprecated), classed public by ipaddr.js (issue 34, item 5); a dotted tail is
    // read as the socket reads it (::7f00:1), not as IPv4-mapped.
    ['::7f00:1', 'address ::7f00:1 is an IPv4-compatible IPv6 address (::/96, deprecated) carrying 127.0.0.1'],
    ['::127.0.0.1', 'address ::127.0.0.1 (::7f00:1) is an IPv4-compatible IPv6 address (::/96, deprecated) carrying 127.0.0.1'],
    ['::169.254.169.254', 'address ::169.254.169.254 (::a9fe:a9fe) is an IPv4-compatible IPv6 address (::/96, deprecated) carrying 169.254.169.254'],
    ['::8.8.8.8', 'address ::8.8.8.8 (::808:808) is an IPv4-compatible IPv6 address (::/96, deprecated) carrying 8.8.8.8'],
    ['::2', 'address ::2 is an IPv4-compatible IPv6 address (::/96, deprecated) carrying 0.0.0.2'],
    // The other IPv6 forms carrying IPv4: refused whole.
    ['2002:a9fe:a9fe::1', 'address 2002:a9fe:a9fe::1 is in a reserved range (6to4)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'address 2001:0:4136:e378:8000:63bf:3fff:fdd2 is in a reserved range (teredo)'],
    ['::ffff:0:7f00:1', 'address ::ffff:0:7f00:1 is in a reserved range (rfc6145)'],
    ['64:ff9b:1::a00:1', 'address 64:ff9b:1::a00:1 is in a reserved range (rfc6052)'],
  ])('refuses %s', (address, reason) => {
    expect(addressRefusal(address, [])).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '100.63.255.255', '100.128.0.0', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('lets public %s through', (address) => {
    expect(addressRefusal(address, [])).toBeNull();
  });

  it('an IPv4-compatible address is not let in by an IPv4 range of the allow-list (only by an IPv6 one)', () => {
    expect(addressRefusal('::7f00:1', parseAllowNetworks('127.0.0.0/8'))).toMatch(/IPv4-compatible/);
    expect(addressRefusal('::7f00:1', parseAllowNetworks('::7f00:0/120'))).toBeNull();
  });

  it('lets exactly the allow-listed ranges through', () => {
    const allow = parseAllowNetworks('10.20.0.0/16 fd00:1::/64,127.0.0.1');
    expect(addressRefusal('10.20.0.0', allow)).toBeNull();
    expect(addressRefusal('10.20.255.255', allow)).toBeNull();
    expect(addressRefusal('::ffff:10.20.1.1', allow)).toBeNull();
    expect(addressRefusal('10.19.255.255', allow)).toMatch(/private network/);
    expect(addressRefusal('10.21.0.0', allow)).toMatch(/private network/);
    expect(addressRefusal('fd00:1::ffff', allow)).toBeNull();
    expect(addressRefusal('fd00:1:0:1::1', allow)).toMatch(/unique local/);
    expect(addressRefusal('127.0.0.1', allow)).toBeNull();
    expect(addressRefusal('127.0.0.2', allow)).toMatch(/loopback/);
    expect(addressRefusal('::1', allow)).toMatch(/loopback/);
  });
});

describe('WEBHOOK_ALLOW_NETWORKS', () => {
  it('is empty when unset', () => {
    expect(loadConfig({}).webhookAllowNetworks).toEqual([]);
  });

  it('reads a list separated by commas and spaces; a bare address is one host', () => {
    const ranges = loadConfig({ WEBHOOK_ALLOW_NETWORKS: ' 10.20.0.0/16,  fd00:1::/64 192.168.7.7 ::1 ' }).webhookAllowNetworks.map((n) => n.text);
    expect(ranges).toEqual(['10.20.0.0/16', 'fd00:1::/64', '192.168.7.7/32', '::1/128']);
  });

  it.each([
    ['10.0.0.0/33', '"10.0.0.0/33" is not an IPv4 or IPv6 CIDR range'],
    ['10.0.0/8', '"10.0.0/8" is not an IPv4 or IPv6 CIDR range'],
    ['intranet', '"intranet" is not an IPv4 or IPv6 CIDR range'],
    ['10.1.2.3/8', '10.1.2.3/8 has host bits set; the network is 10.0.0.0/8'],
    ['fd00::1/64', 'fd00::1/64 has host bits set; the network is fd00::/64'],
  ])('stops start-up on %s with a message naming the variable', (value, message) => {
    let error: unknown;
    try {
      loadConfig({ WEBHOOK_ALLOW_NETWORKS: `192.168.0.0/16, ${value}` });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('WEBHOOK_ALLOW_NETWORKS');
    expect((error as ConfigError).message).toContain(`WEBHOOK_ALLOW_NETWORKS: ${message}`);
  });
});
