/**
 * The check when an endpoint is created or its URL changed (CONTRACT §12): a
 * clear message now rather than a delivery log full of failures later. The
 * same rule holds again at every delivery, on the address actually connected
 * (deliver.ts), so passing this check grants nothing for later.
 */
import { addressRefusal, parseAddress, type AllowedNetwork } from './networks.ts';
import { defaultHostResolver, HostNotFoundError } from '../net/host-resolver.ts';
import { resolveAllowed, type Resolver } from './guarded-lookup.ts';

export const MAX_URL_LENGTH = 2000;

/** A URL refused at creation; `message` is meant for the person who typed it. */
export class EndpointUrlError extends Error {
  override name = 'EndpointUrlError';
}

/** Whose lookups a check counts against when the caller names no organization (tests of the check itself). */
const NO_ORG = '-';

/**
 * The URL as it will be stored (WHATWG-normalised), or an EndpointUrlError
 * saying what is wrong. A host name is resolved for `orgId` (at most 4 of its
 * lookups in flight, 5 s each: api/net/host-resolver.ts). A refused name is
 * "resolves to a private or reserved address", never the address: the check
 * must not tell an organization what names resolve to inside our network. An
 * IP address typed in the URL is named with its reason (it tells nothing new).
 */
export async function checkEndpointUrl(raw: string, allow: readonly AllowedNetwork[], resolve: Resolver = defaultHostResolver(), orgId = NO_ORG): Promise<string> {
  if (raw.length > MAX_URL_LENGTH) throw new EndpointUrlError(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EndpointUrlError(`${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new EndpointUrlError(`the URL must start with https:// (got ${url.protocol}//): deliveries are only sent over TLS`);
  if (url.username !== '' || url.password !== '') {
    throw new EndpointUrlError('the URL must not hold a user name or password: deliveries are authenticated by their signature');
  }
  if (url.hash !== '') throw new EndpointUrlError('the URL must not have a #fragment');
  if (parseAddress(url.hostname) !== null) {
    const refusal = addressRefusal(url.hostname, allow);
    if (refusal !== null) throw new EndpointUrlError(`${refusal}; webhooks are not sent into private networks (see WEBHOOK_ALLOW_NETWORKS)`);
    return url.href;
  }
  try {
    await resolveAllowed(url.hostname, orgId, allow, resolve);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.name === 'RefusedAddressError') throw new EndpointUrlError(`the host ${e.message}; webhooks are not sent into private networks (see WEBHOOK_ALLOW_NETWORKS)`);
    const why = err instanceof HostNotFoundError ? err.reason : (e.code ?? e.message);
    throw new EndpointUrlError(`the host ${url.hostname} cannot be resolved (${why})`);
  }
  return url.href;
}
