/**
 * How the service resolves the names it connects to on an organization's
 * behalf (webhook endpoints, review platforms, Google's token exchange):
 * CONTRACT §12, "Limits per organization".
 *
 * - **Not the thread pool.** `dns.lookup` is getaddrinfo on libuv's shared
 *   pool of four threads: four names whose DNS never answers stall every
 *   lookup, file read and hash of the process. Names are asked here with
 *   c-ares (`dns.promises.Resolver`), which queries the DNS servers itself
 *   over sockets on the event loop, A and AAAA side by side.
 * - **5 s, all told.** A lookup that has no answer 5 s after it was asked
 *   (waiting for its organization's turn included) fails with `ETIMEOUT`;
 *   c-ares tries again within that time (`tries`), each lookup on a resolver
 *   of its own so that giving up on one cancels nothing else. Once A or AAAA
 *   has answered, the other gets 1 s more (a server that drops AAAA
 *   questions costs 1 s, not 5).
 * - **At most 4 in flight per organization**, each organization on its own
 *   (per-key-limit.ts): one organization's stuck lookups only ever hold its
 *   own. The limit is per resolver: the service's event loop has one
 *   (endpoint checks, platform calls) and the webhook delivery thread one.
 * - **Names that are not asked:** an IP address is itself; `localhost` and
 *   `*.localhost` are loopback (127.0.0.1, ::1), as RFC 6761 says, without
 *   DNS. `/etc/hosts` is not read (c-ares's queries do not read it): an
 *   outbound name is what DNS says it is.
 * - **Which servers:** the system's (those of /etc/resolv.conf, as Node reads
 *   them) unless `servers` is given (tests point it at a local DNS server).
 *
 * Who may be connected to is not decided here: webhooks check every address
 * (guarded-lookup.ts), platform calls go to the platforms' configured URLs.
 */
import { Resolver } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { PerKeyLimit } from './per-key-limit.ts';

/** Every address of `hostname` (IPv4 first), counted against `orgId`'s lookups. */
export type HostResolver = (hostname: string, orgId: string) => Promise<LookupAddress[]>;

export const DNS_TIMEOUT_MS = 5000;
export const LOOKUPS_PER_ORG = 4;
/**
 * c-ares's wait for one server's answer before it asks again (its timeout grows each round), and how
 * many times it asks: a lost packet is asked again within the 5 s, which the deadline, not c-ares, ends.
 */
const TRY_MS = 1500;
const TRIES = 3;
/**
 * Once one family has answered with addresses, how long the other may still take: a DNS server
 * that drops AAAA questions must not make every connection (and the organization's places) wait 5 s.
 */
const OTHER_FAMILY_GRACE_MS = 1000;

export interface HostResolverOptions {
  /** DNS servers (`"127.0.0.1:5353"`, `"[::1]:53"`); unset: the system's. */
  servers?: readonly string[];
  /** The whole lookup's time, waiting for a place included. */
  timeoutMs?: number;
  /** How many times c-ares asks (each server) before it gives up by itself; the deadline above still holds. */
  tries?: number;
  perOrg?: number;
}

/** A name that could not be turned into addresses; `code` is ENOTFOUND, ETIMEOUT or what the DNS server said (ESERVFAIL, EREFUSED, …). */
export class HostNotFoundError extends Error {
  override name = 'HostNotFoundError';
  constructor(
    readonly hostname: string,
    readonly code: string,
    /** Why, for a person: "ENOTFOUND: no such host", "ETIMEOUT: no answer from DNS within 5 s". */
    readonly reason: string,
  ) {
    super(`${hostname}: ${reason}`);
  }
}

const LOOPBACK: readonly LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** The addresses of a name that needs no DNS: an IP address, or a `localhost` name. Null otherwise. */
export function addressesWithoutDns(hostname: string): LookupAddress[] | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const family = isIP(bare);
  if (family !== 0) return [{ address: bare, family }];
  const name = bare.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return LOOPBACK.map((a) => ({ ...a }));
  return null;
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
}

/** Asks A and AAAA of `hostname`; `signal` cancels both. */
async function query(hostname: string, servers: readonly string[] | undefined, tries: number, timeoutMs: number, signal: AbortSignal): Promise<LookupAddress[]> {
  const resolver = new Resolver({ timeout: TRY_MS, tries });
  if (servers !== undefined) resolver.setServers([...servers]);
  const cancel = (): void => resolver.cancel();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const asked = [resolver.resolve4(hostname), resolver.resolve6(hostname)] as const;
    let grace: NodeJS.Timeout | undefined;
    for (const answer of asked) {
      answer.then(
        (addresses) => {
          if (addresses.length > 0) grace ??= setTimeout(cancel, OTHER_FAMILY_GRACE_MS);
        },
        () => undefined,
      );
    }
    const [v4, v6] = await Promise.allSettled(asked);
    clearTimeout(grace);
    const addresses: LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length > 0) return addresses;
    const codes = [v4, v6].map((r) => (r.status === 'rejected' ? codeOf(r.reason) : 'ENODATA'));
    if (codes.some((c) => c === 'ECANCELLED' || c === 'ETIMEOUT')) throw timedOut(hostname, timeoutMs);
    if (codes.every((c) => c === 'ENOTFOUND' || c === 'ENODATA')) throw new HostNotFoundError(hostname, 'ENOTFOUND', 'ENOTFOUND: no such host');
    const code = codes.find((c) => c !== 'ENOTFOUND' && c !== 'ENODATA')!;
    throw new HostNotFoundError(hostname, code, `${code}: the DNS server's answer`);
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

function timedOut(hostname: string, timeoutMs: number): HostNotFoundError {
  return new HostNotFoundError(hostname, 'ETIMEOUT', `ETIMEOUT: no answer from DNS within ${timeoutMs / 1000} s`);
}

/** A resolver with its own per-organization limit: make one per process (or thread) and share it. */
export function createHostResolver(options: HostResolverOptions = {}): HostResolver {
  const timeoutMs = options.timeoutMs ?? DNS_TIMEOUT_MS;
  const limit = new PerKeyLimit(options.perOrg ?? LOOKUPS_PER_ORG);
  const servers = options.servers;
  const tries = options.tries ?? TRIES;
  return async function resolveHost(hostname, orgId) {
    const fixed = addressesWithoutDns(hostname);
    if (fixed !== null) return fixed;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(timedOut(hostname, timeoutMs)), timeoutMs);
    try {
      return await limit.run(orgId, () => query(hostname, servers, tries, timeoutMs, deadline.signal), deadline.signal);
    } finally {
      clearTimeout(timer);
    }
  };
}

let shared: HostResolver | null = null;

/** The process's (or thread's) resolver with the system's servers, for code that is given none. */
export function defaultHostResolver(): HostResolver {
  return (shared ??= createHostResolver());
}

/**
 * `resolve` as the `lookup` option of net/tls/https: Node's sockets call it to
 * turn a host name into the addresses they connect to (they skip it for an IP
 * address). Honours the `family` and `all` options sockets pass.
 */
export function lookupWith(resolve: (hostname: string) => Promise<LookupAddress[]>): LookupFunction {
  return function lookup(hostname, options, callback) {
    resolve(hostname).then(
      (found) => {
        const addresses = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        // With `all` (Node's happy-eyeballs connect asks for it) the callback takes the list.
        if (options.all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}
