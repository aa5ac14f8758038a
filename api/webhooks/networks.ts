/**
 * Which addresses a webhook may be sent to (CONTRACT §12, "No way into private
 * networks"). The rule is an allow-list of one kind: an address must be
 * ordinary public unicast, as ipaddr.js classifies it. Loopback, RFC 1918,
 * link-local (169.254.169.254, the cloud metadata address, included), CGNAT,
 * IPv6 unique-local and site-local, multicast, unspecified, broadcast and the
 * reserved, documentation and translation ranges are refused, unless the
 * address lies in one of the WEBHOOK_ALLOW_NETWORKS ranges.
 *
 * IPv4-mapped IPv6 addresses (::ffff:10.0.0.1) are judged as the IPv4 address
 * they carry (ipaddr.process unwraps them), and so are NAT64 addresses
 * (64:ff9b::/96): through a NAT64 gateway 64:ff9b::a00:1 reaches 10.0.0.1.
 * The other IPv6 forms that carry an IPv4 address are refused whole: the
 * deprecated IPv4-compatible range ::/96 (::127.0.0.1, ::169.254.169.254,
 * which ipaddr.js calls plain unicast), 6to4 (2002::/16), Teredo (2001::/32),
 * IPv4-translated (::ffff:0:0:0/96) and local-use NAT64 (64:ff9b:1::/48); no
 * webhook receiver needs them.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Ranges ipaddr.js names that are reachable public unicast (anycast DNS and multicast tunnelling relays). */
const PUBLIC_RANGES = new Set(['unicast', 'as112', 'as112v6', 'amt']);

/** How a refusal reads, by ipaddr.js range name: "address 10.0.0.5 is in a private network". */
const RANGE_PHRASES: Readonly<Record<string, string>> = {
  private: 'is in a private network',
  uniqueLocal: 'is in a private network (IPv6 unique local)',
  deprecatedSiteLocal: 'is in a private network (IPv6 site local)',
  loopback: 'is a loopback address',
  linkLocal: 'is link-local (where cloud metadata services answer, e.g. 169.254.169.254)',
  reserved: 'is in a reserved range',
  carrierGradeNat: 'is in the carrier-grade NAT range 100.64.0.0/10',
  multicast: 'is a multicast address',
  unspecified: 'is the unspecified address',
  broadcast: 'is the broadcast address',
};

/** A parsed CIDR range of WEBHOOK_ALLOW_NETWORKS. */
export interface AllowedNetwork {
  readonly text: string;
  readonly range: [Address, number];
}

export class AllowNetworksError extends Error {
  override name = 'AllowNetworksError';
}

/**
 * WEBHOOK_ALLOW_NETWORKS: CIDR ranges (or single addresses) separated by commas
 * or spaces, e.g. `10.20.0.0/16, fd00:1::/64`. A range with host bits set is an
 * error, as it is almost always a typo for a wider or narrower range.
 */
export function parseAllowNetworks(raw: string | undefined): AllowedNetwork[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry) => {
      const withBits = entry.includes('/') ? entry : `${entry}/${ipaddr.IPv6.isValid(entry) ? 128 : 32}`;
      let range: [Address, number];
      try {
        // ipaddr.js also reads shorthand such as 10.1/8; only the full notation is taken.
        if (!ipaddr.IPv4.isValidCIDRFourPartDecimal(withBits) && !ipaddr.IPv6.isValidCIDR(withBits)) throw new Error('not CIDR');
        range = ipaddr.parseCIDR(withBits);
      } catch {
        throw new AllowNetworksError(`${JSON.stringify(entry)} is not an IPv4 or IPv6 CIDR range (e.g. 10.20.0.0/16 or fd00:1::/64)`);
      }
      const [address, bits] = range;
      const network = (address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(withBits) : ipaddr.IPv6.networkAddressFromCIDR(withBits)).toString();
      if (network !== address.toString()) {
        throw new AllowNetworksError(`${entry} has host bits set; the network is ${network}/${bits}`);
      }
      return { text: `${address.toString()}/${bits}`, range };
    });
}

/** The address family-normalised: IPv4-mapped IPv6 becomes IPv4. Null when `text` is not an IP address. */
export function parseAddress(text: string): Address | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  // isValid accepts shorthand such as "10.1" or "0x7f.1"; only full addresses count as literals here.
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.process(bare);
  if (!ipaddr.IPv6.isValid(bare)) return null;
  // IPv6 text goes through the WHATWG URL parser first (as an endpoint URL's host does): ipaddr.js reads a
  // dotted tail such as `::8.8.8.8` as IPv4-mapped (`::ffff:8.8.8.8`), while sockets connect to `::808:808`.
  let canonical: string;
  try {
    canonical = new URL(`https://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  return ipaddr.process(canonical);
}

function allowed(address: Address, allow: readonly AllowedNetwork[]): boolean {
  return allow.some(({ range }) => range[0].kind() === address.kind() && address.match(range));
}

/** The IPv4 address a NAT64 (RFC 6052 well-known prefix, 64:ff9b::/96) address carries, else null. */
function nat64Embedded(address: Address): ipaddr.IPv4 | null {
  if (address.kind() !== 'ipv6') return null;
  const v6 = address as ipaddr.IPv6;
  if (!v6.match(ipaddr.parseCIDR('64:ff9b::/96'))) return null;
  const bytes = v6.toByteArray().slice(12);
  return new ipaddr.IPv4(bytes);
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** What is wrong with `address` as a webhook destination ("is in a private network"), or null. */
function refusalPhrase(address: Address, allow: readonly AllowedNetwork[]): string | null {
  if (allowed(address, allow)) return null;
  const embedded = nat64Embedded(address);
  if (embedded !== null) {
    const inner = refusalPhrase(embedded, allow);
    return inner === null ? null : `is a NAT64 address for ${embedded.toString()}, which ${inner}`;
  }
  const range = address.range();
  // ::/96 holds :: (unspecified) and ::1 (loopback), named as such below; the rest is IPv4-compatible.
  if (range === 'unicast' && address.kind() === 'ipv6' && (address as ipaddr.IPv6).match(IPV4_COMPATIBLE)) {
    const carried = new ipaddr.IPv4((address as ipaddr.IPv6).toByteArray().slice(12));
    return `is an IPv4-compatible IPv6 address (::/96, deprecated) carrying ${carried.toString()}`;
  }
  if (PUBLIC_RANGES.has(range)) return null;
  return RANGE_PHRASES[range] ?? `is in a reserved range (${range})`;
}

/**
 * Why a webhook may not be sent to `text` (an IP address as the resolver or the
 * URL gave it), or null when it may. Never throws: a string that is not an
 * address is refused with a reason too.
 */
export function addressRefusal(text: string, allow: readonly AllowedNetwork[]): string | null {
  const address = parseAddress(text);
  if (address === null) return `${JSON.stringify(text)} is not an IP address`;
  const phrase = refusalPhrase(address, allow);
  if (phrase === null) return null;
  const bare = text.replace(/^\[|\]$/g, '');
  const shown = address.toString() === bare ? bare : `${bare} (${address.toString()})`;
  return `address ${shown} ${phrase}`;
}
