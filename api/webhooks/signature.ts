/**
 * Standard Webhooks signing (standardwebhooks.com, "Signature scheme"): the
 * `v1` signature is base64(HMAC-SHA256(key, "{msgId}.{timestamp}.{body}"))
 * where the key is the base64-decoded part of `whsec_…` and the timestamp is
 * Unix seconds. node:crypto rather than the `standardwebhooks` package, whose
 * HMAC is pure JavaScript; the tests verify every delivery with that package.
 */
import { createHmac } from 'node:crypto';
import { secretKey } from './secrets.ts';

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** One `v1,<base64>` entry. */
export function signV1(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${msgId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/**
 * The headers of one attempt: the message id (the same on every attempt), this
 * attempt's time and one signature per live secret, space separated.
 */
export function signedHeaders(msgId: string, body: string, secrets: readonly string[], at: Date): WebhookHeaders {
  if (secrets.length === 0) throw new Error('an endpoint without a live secret cannot sign');
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signV1(secret, msgId, timestamp, body)).join(' '),
  };
}
