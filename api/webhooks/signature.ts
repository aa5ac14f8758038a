/**
 * Standard Webhooks signing (standardwebhooks.com, "Signature scheme"): the
 * `v1` signature is base64(HMAC-SHA256(key, "{msgId}.{timestamp}.{body}"))
 * where the key is the base64-decoded part of `whsec_…` and the timestamp is
 * Unix seconds. node:crypto rather than the `standardwebhooks` package, whose
 * HMAC is pure JavaScript; the tests verify every delivery with that package.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { secretKey } from './secrets.ts';

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Keys made from secrets, kept: HMAC with a key object costs a sixth of HMAC
 * with the key's bytes, which node:crypto turns into a key object every time.
 * Bounded (emptied when full): a secret no longer used leaves soon enough.
 */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 1000;

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(secret, (key = createSecretKey(secretKey(secret))));
  }
  return key;
}

/** One `v1,<base64>` entry. */
export function signV1(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${msgId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
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
