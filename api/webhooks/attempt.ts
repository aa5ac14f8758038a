/**
 * One attempt of one message to one endpoint: signed at this attempt's time
 * with the endpoint's live secrets, under the message's fixed id, and sent.
 * The dispatcher (dispatcher.ts) calls this and feeds the result to messageAfterAttempt and
 * endpointAfterAttempt.
 */
import type { DeliveryClient, DeliveryResult } from './deliver.ts';
import { liveSecrets, type EndpointSecret } from './secrets.ts';
import { signedHeaders } from './signature.ts';

export interface AttemptEndpoint {
  url: string;
  /** Whose DNS lookups the delivery's counts among (api/net/host-resolver.ts). */
  orgId: string;
  secrets: readonly EndpointSecret[];
}

export interface AttemptMessage {
  /** `webhook-id`: the same on every attempt. */
  id: string;
  /** The event's JSON, exactly as recorded. */
  body: string;
}

export function attemptDelivery(client: DeliveryClient, endpoint: AttemptEndpoint, message: AttemptMessage, now: Date): Promise<DeliveryResult> {
  const headers = signedHeaders(message.id, message.body, liveSecrets(endpoint.secrets, now), now);
  return client.deliver({ url: endpoint.url, orgId: endpoint.orgId, headers, body: message.body });
}
