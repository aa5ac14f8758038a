import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { clientView, parseTrustedProxies, TrustedProxies } from './trusted-proxies.ts';

function req(peer: string, headers: Record<string, string>, encrypted = false): IncomingMessage {
  return { socket: { remoteAddress: peer, encrypted }, headers } as unknown as IncomingMessage;
}

describe('TRUST_PROXY', () => {
  it('is a list of addresses and CIDR ranges; false or unset trusts nobody', () => {
    expect(loadConfig({}).trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);
  });

  it('refuses the old true with a message saying what to write', () => {
    for (const old of ['true', '1', 'yes']) {
      expect(() => loadConfig({ TRUST_PROXY: old })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: old })).toThrow(/TRUST_PROXY: .*no longer accepted.*TRUST_PROXY=10\.0\.0\.0\/8,127\.0\.0\.1/);
    }
  });

  it('refuses what is not an address or range, naming it', () => {
    for (const bad of ['10.0.0.0/33', 'proxy.example', '10.0.0.1/8/1', '::1/129', '10.0.0.1,']) {
      expect(() => parseTrustedProxies(bad)).toThrow(/is not an IP address or CIDR range/);
    }
  });
});

describe('clientView', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8', '127.0.0.1']);

  it('believes nothing forwarded from an untrusted peer', () => {
    const view = clientView(req('203.0.113.9', { 'x-forwarded-for': '1.2.3.4', 'x-forwarded-proto': 'https' }), proxies);
    expect(view).toEqual({ address: '203.0.113.9', https: false });
  });

  it('walks X-Forwarded-For from the right through trusted hops only', () => {
    // The client invented 6.6.6.6; 198.51.100.7 is what the outer proxy (10.0.0.7) saw.
    const view = clientView(req('10.0.0.5', { 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.0.0.7' }), proxies);
    expect(view.address).toBe('198.51.100.7');
    // More than one trusted hop, and an IPv4-mapped peer address.
    expect(clientView(req('::ffff:10.0.0.5', { 'x-forwarded-for': '198.51.100.7, 10.1.1.1, 10.2.2.2' }), proxies).address).toBe('198.51.100.7');
    // All hops trusted: the leftmost one is the client.
    expect(clientView(req('127.0.0.1', { 'x-forwarded-for': '10.9.9.9' }), proxies).address).toBe('10.9.9.9');
    // A malformed hop ends the walk at the last trusted address.
    expect(clientView(req('10.0.0.5', { 'x-forwarded-for': '1.2.3.4, garbage' }), proxies).address).toBe('10.0.0.5');
  });

  it('decides a connection\'s peer once per connection and per TRUST_PROXY list', () => {
    const socket = { remoteAddress: '10.0.0.5', encrypted: false };
    const on = (headers: Record<string, string>) => ({ socket, headers }) as unknown as IncomingMessage;
    const forwarded = { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' };
    // The same connection, several requests: each one's forwarded headers are read again.
    expect(clientView(on(forwarded), proxies)).toEqual({ address: '198.51.100.7', https: true });
    expect(clientView(on({}), proxies)).toEqual({ address: '10.0.0.5', https: false });
    expect(clientView(on({ 'x-forwarded-for': '203.0.113.1' }), proxies).address).toBe('203.0.113.1');
    // Another list (another app on the same connection object) decides for itself.
    expect(clientView(on(forwarded), new TrustedProxies(['127.0.0.1']))).toEqual({ address: '10.0.0.5', https: false });
    expect(clientView(on(forwarded), proxies).address).toBe('198.51.100.7');
  });

  it("takes the protocol the nearest trusted proxy reports (the header's last value)", () => {
    expect(clientView(req('10.0.0.5', { 'x-forwarded-proto': 'https, http' }), proxies).https).toBe(false);
    expect(clientView(req('10.0.0.5', { 'x-forwarded-proto': 'http, https' }), proxies).https).toBe(true);
    expect(clientView(req('10.0.0.5', {}, true), proxies).https).toBe(true);
    expect(clientView(req('10.0.0.5', {}), proxies).https).toBe(false);
  });
});

describe('TrustedProxies.trusts', () => {
  it('decides IPv4 addresses exactly as node:net BlockList does (its fast path), IPv6 through BlockList', async () => {
    const { BlockList } = await import('node:net');
    const entries = ['10.0.0.0/8', '192.168.1.77/24', '172.16.0.0/12', '127.0.0.1', '0.0.0.0/32', '203.0.113.255/31', 'fd00::/8'];
    const proxies = new TrustedProxies(entries);
    const reference = new BlockList();
    for (const entry of entries) {
      const [address, bits] = entry.split('/') as [string, string | undefined];
      const family = address.includes(':') ? 'ipv6' : 'ipv4';
      if (bits === undefined) reference.addAddress(address, family);
      else reference.addSubnet(address, Number(bits), family);
    }
    let seed = 7;
    const byte = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24) & 255;
    const samples = ['10.255.255.255', '11.0.0.0', '9.255.255.255', '192.168.1.0', '192.168.1.255', '192.168.2.0', '172.31.255.255', '172.32.0.0', '127.0.0.1', '127.0.0.2', '0.0.0.0', '203.0.113.254', '203.0.113.255', '203.0.113.253'];
    for (let i = 0; i < 2000; i++) samples.push(`${[10, 172, 192, 203, byte()][i % 5]}.${byte()}.${byte()}.${byte()}`);
    for (const address of samples) expect(proxies.trusts(address), address).toBe(reference.check(address, 'ipv4'));
    expect(proxies.trusts('::ffff:10.1.2.3')).toBe(true);
    expect(proxies.trusts('fd12::1')).toBe(true);
    expect(proxies.trusts('fe80::1')).toBe(false);
    // Not addresses: never trusted.
    for (const junk of ['10.1.2', '10.1.2.3.4', '010.1.2.3', '10.1.2.256', '10.1.2.-1', '10.1.2.3 ', '']) expect(proxies.trusts(junk), junk).toBe(false);
  });
});
