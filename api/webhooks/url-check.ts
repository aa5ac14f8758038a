/**
 * The check when an endpoint is created or its URL changed (CONTRACT §12): a
 * clear message now rather than a delivery log full of failures later. The
 * same rule holds again at every delivery, on the address actually connected
 * (deliver.ts), so passing this check grants nothing for later.
 */
import { addressRefusal, parseAddress, type AllowedNetwork } from './networks.ts';
import { resolveAllowed, systemResolver, type Resolver } from './guarded-lookup.ts';

export const MAX_URL_LENGTH = 2000;

/** A URL refused at creation; `message` is meant for the person who typed it. */
export class EndpointUrlError extends Error {
  override name = 'EndpointUrlError';
}

/** The URL as it will be stored (WHATWG-normalised), or an EndpointUrlError saying what is wrong. */
export async function checkEndpointUrl(raw: string, allow: readonly AllowedNetwork[], resolve: Resolver = systemResolver): Promise<string> {
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
    await resolveAllowed(url.hostname, allow, resolve);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.name === 'RefusedAddressError') throw new EndpointUrlError(`${e.message}; webhooks are not sent into private networks (see WEBHOOK_ALLOW_NETWORKS)`);
    throw new EndpointUrlError(`the host ${url.hostname} cannot be resolved (${e.code ?? e.message})`);
  }
  return url.href;
}
