/**
 * Which peers may speak for a client (TRUST_PROXY): a list of addresses and
 * CIDR ranges. Forwarded headers are believed only from a peer in the list;
 * X-Forwarded-For is walked from the right (the hop the nearest proxy
 * appended) through trusted hops, so addresses a client puts on the left are
 * never believed; the protocol is the one the nearest trusted proxy reports.
 */
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or -1 when it is not one. */
export function ipv4Number(address: string): number {
  const parts = address.split('.');
  if (parts.length !== 4) return -1;
  let value = 0;
  for (const part of parts) {
    // What isIP accepts: 1-3 digits, no leading zero, at most 255.
    if (part.length === 0 || part.length > 3 || (part.length > 1 && part[0] === '0')) return -1;
    let n = 0;
    for (let i = 0; i < part.length; i++) {
      const digit = part.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return -1;
      n = n * 10 + digit;
    }
    if (n > 255) return -1;
    value = value * 256 + n;
  }
  return value;
}

export class TrustedProxies {
  private readonly list = new BlockList();
  /**
   * The IPv4 entries as [first, last] address numbers: every request asks about
   * its peer (and, through a proxy, each forwarded hop), and BlockList.check
   * builds a SocketAddress per call, a few % of a request's CPU.
   */
  private readonly ipv4Ranges: Array<[number, number]> = [];

  /** `entries` are validated addresses or CIDR ranges (see parseTrustedProxies). */
  constructor(readonly entries: readonly string[]) {
    for (const entry of entries) {
      const [address, bits] = entry.split('/') as [string, string | undefined];
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.list.addAddress(address, family);
      else this.list.addSubnet(address, Number(bits), family);
      if (family === 'ipv4') {
        const size = 2 ** (32 - (bits === undefined ? 32 : Number(bits)));
        const first = ipv4Number(address) - (ipv4Number(address) % size);
        this.ipv4Ranges.push([first, first + size - 1]);
      }
    }
  }

  get none(): boolean {
    return this.entries.length === 0;
  }

  trusts(address: string | undefined): boolean {
    if (this.none || !address) return false;
    const plain = unmapIPv4(address);
    const v4 = ipv4Number(plain);
    if (v4 >= 0) return this.ipv4Ranges.some(([first, last]) => v4 >= first && v4 <= last);
    const family = isIP(plain);
    // IPv6 (and any IPv4 form the fast path does not read): BlockList decides.
    return family !== 0 && this.list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** `::ffff:10.1.2.3` (an IPv4 client on a dual-stack socket) is 10.1.2.3. */
export function unmapIPv4(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

/**
 * Parses TRUST_PROXY's list; throws an Error whose message says what is wrong.
 * `false` (or empty) trusts nobody. The old `true` is refused: it trusted any peer.
 */
export function parseTrustedProxies(raw: string | undefined): string[] {
  const value = (raw ?? '').trim();
  if (['', 'false', '0', 'no', 'off'].includes(value.toLowerCase())) return [];
  if (['true', '1', 'yes', 'on'].includes(value.toLowerCase())) {
    throw new Error(
      `"${value}" is no longer accepted: it trusted forwarded headers from any client. List your proxies' addresses or CIDR ranges instead, e.g. TRUST_PROXY=127.0.0.1 (a proxy on this host) or TRUST_PROXY=10.0.0.0/8,127.0.0.1`,
    );
  }
  return value.split(',').map((part) => {
    const entry = part.trim();
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const max = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new Error(`"${entry}" is not an IP address or CIDR range (write e.g. 10.0.0.0/8,127.0.0.1 or fd00::/8)`);
    }
    return entry;
  });
}

export interface ClientView {
  /** The client's address as far as trusted hops can tell. */
  address: string;
  /** The protocol the client used: the connection's, or the nearest trusted proxy's report. */
  https: boolean;
}

/** A connection's peer, decided once per connection (every request on it asks). */
interface Peer {
  proxies: TrustedProxies;
  trusted: boolean;
  /** The peer itself as the client: the answer for an untrusted peer, or a trusted one that forwards nothing. */
  view: Readonly<ClientView>;
}
const peers = new WeakMap<object, Peer>();

function peerOf(req: IncomingMessage, proxies: TrustedProxies): Peer {
  const socket = req.socket;
  let peer = peers.get(socket);
  if (peer === undefined || peer.proxies !== proxies) {
    const address = unmapIPv4(socket.remoteAddress ?? '');
    const encrypted = (socket as { encrypted?: boolean }).encrypted === true;
    peer = { proxies, trusted: proxies.trusts(address), view: Object.freeze({ address, https: encrypted }) };
    peers.set(socket, peer);
  }
  return peer;
}

/** The client behind a request, believing forwarded headers only from trusted peers. */
export function clientView(req: IncomingMessage, proxies: TrustedProxies): Readonly<ClientView> {
  const { trusted, view } = peerOf(req, proxies);
  const protoHeader = req.headers['x-forwarded-proto'];
  const forHeader = req.headers['x-forwarded-for'];
  if (!trusted || (protoHeader === undefined && forHeader === undefined)) return view;
  const { address: peer, https: encrypted } = view;

  const reported = (Array.isArray(protoHeader) ? protoHeader.join(',') : (protoHeader ?? '')).split(',').pop()!.trim().toLowerCase();
  const https = reported === '' ? encrypted : reported === 'https';

  const hops = (Array.isArray(forHeader) ? forHeader.join(',') : (forHeader ?? '')).split(',');
  let address = peer;
  for (let i = hops.length - 1; i >= 0 && proxies.trusts(address); i--) {
    const hop = unmapIPv4(hops[i]!.trim());
    // A malformed hop ends the walk: the last trusted address stands.
    if (isIP(hop) === 0) break;
    address = hop;
  }
  return { address, https };
}

/**
 * Sets `ctx.ip` to the client's address (what per-address limits count) and
 * `ctx.state.https` to whether the client used HTTPS, for requireHttps.
 */
export function resolveClient(ctx: Context, proxies: TrustedProxies): void {
  const view = clientView(ctx.req, proxies);
  ctx.request.ip = view.address;
  ctx.state.https = view.https;
}
