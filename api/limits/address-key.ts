/**
 * What per-address limits count: an IPv4 address as it is, an IPv6 address
 * by its /64 network. One IPv6 host is usually given a whole /64 (2^64
 * addresses), so counting single IPv6 addresses would let one client invent
 * a fresh address for every request.
 */
import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address; null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  let text = address.split('%')[0]!.toLowerCase();
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((g) => parseInt(g, 16));
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

export function addressKey(address: string): string {
  const family = isIP(address.split('%')[0]!);
  if (family !== 6) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  // An IPv4 client on a dual-stack socket (::ffff:a.b.c.d) is that IPv4 address.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
