/**
 * The DNS step of a delivery, guarded. Node's sockets call the `lookup` option
 * to turn the host name into the addresses they then connect to, so checking
 * here checks exactly the addresses connected: a DNS answer that changes
 * between the creation check and the delivery (DNS rebinding) meets the same
 * check. If any address of the answer is refused the whole name is refused: a
 * name that mixes public and private addresses is not one to trust.
 *
 * Sockets skip `lookup` for an IP-literal host; the delivery client checks
 * those itself (see deliver.ts).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal, type AllowedNetwork } from './networks.ts';

/** Every address of a host name. Injectable so tests can stand in a local stub for DNS. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A refused destination: `message` says which address and why ("address 10.0.0.5 is in a private network"). */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  readonly code = 'EWEBHOOKREFUSED';
}

/** Resolve `hostname` and refuse it when any address is outside the rule; the addresses otherwise. */
export async function resolveAllowed(hostname: string, allow: readonly AllowedNetwork[], resolve: Resolver): Promise<LookupAddress[]> {
  const addresses = await resolve(hostname);
  if (addresses.length === 0) throw new Error(`${hostname} has no address`);
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, allow);
    if (refusal !== null) throw new RefusedAddressError(`${hostname}: ${refusal}`);
  }
  return addresses;
}

/** A `lookup` for net/tls/https options that resolves with `resolve` and lets only allowed addresses through. */
export function guardedLookup(allow: readonly AllowedNetwork[], resolve: Resolver = systemResolver): LookupFunction {
  return function guardedLookup(hostname, options, callback) {
    resolveAllowed(hostname, allow, resolve).then(
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
