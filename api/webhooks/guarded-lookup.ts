/**
 * The DNS step of a delivery, guarded. Node's sockets call the `lookup` option
 * to turn the host name into the addresses they then connect to, so checking
 * here checks exactly the addresses connected: a DNS answer that changes
 * between the creation check and the delivery (DNS rebinding) meets the same
 * check. If any address of the answer is refused the whole name is refused: a
 * name that mixes public and private addresses is not one to trust.
 *
 * Names are resolved with the service's own resolver (api/net/host-resolver.ts:
 * c-ares, 5 s, at most 4 lookups in flight per organization), never with the
 * process-wide `getaddrinfo` pool.
 *
 * Sockets skip `lookup` for an IP-literal host; the delivery client checks
 * those itself (see deliver.ts).
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { lookupWith, type HostResolver } from '../net/host-resolver.ts';
import { addressRefusal, type AllowedNetwork } from './networks.ts';

/** Every address of a host name, counted against the organization's lookups. Injectable so tests can stand in a stub for DNS. */
export type Resolver = HostResolver;

/**
 * A refused destination. The message never names the address (CONTRACT §12):
 * the organization sees "x.example resolves to a private or reserved address",
 * so that endpoint checks and delivery logs cannot be used to map what names
 * resolve to inside the service's network.
 */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  readonly code = 'EWEBHOOKREFUSED';
}

export const REFUSED_NAME = 'resolves to a private or reserved address';

/** Resolve `hostname` for `orgId` and refuse it when any address is outside the rule; the addresses otherwise. */
export async function resolveAllowed(hostname: string, orgId: string, allow: readonly AllowedNetwork[], resolve: Resolver): Promise<LookupAddress[]> {
  const addresses = await resolve(hostname, orgId);
  if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
  for (const { address } of addresses) {
    if (addressRefusal(address, allow) !== null) throw new RefusedAddressError(`${hostname} ${REFUSED_NAME}`);
  }
  return addresses;
}

/** A `lookup` for net/tls/https options that resolves for `orgId` with `resolve` and lets only allowed addresses through. */
export function guardedLookup(allow: readonly AllowedNetwork[], resolve: Resolver, orgId: string): LookupFunction {
  return lookupWith((hostname) => resolveAllowed(hostname, orgId, allow, resolve));
}
