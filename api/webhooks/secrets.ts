/**
 * Endpoint signing secrets (CONTRACT §12): `whsec_` + base64 of 32 random
 * bytes, the Standard Webhooks format every library of that specification
 * reads. After a rotation the old secret keeps signing for 24 hours, so a
 * receiver can switch to the new one without losing a delivery; every live
 * secret signs, one `v1,` entry each.
 *
 * Only the rules live here, as pure functions of a secret list and a clock.
 * Storing the list (encrypted at rest with SECRETS_KEY) is the endpoint
 * store's business.
 */
import { randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** How long a replaced secret still signs. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface EndpointSecret {
  /** `whsec_…` */
  readonly secret: string;
  readonly createdAt: Date;
  /** When it stops signing; null while it is the current secret. */
  readonly expiresAt: Date | null;
}

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The key bytes of a `whsec_…` secret; throws on anything else. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length < 24 || key.length > 64) throw new Error('a webhook secret holds 24 to 64 bytes of key');
  return key;
}

/** The secrets that sign at `now`, newest first. */
export function liveSecrets(secrets: readonly EndpointSecret[], now: Date): string[] {
  return secrets
    .filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime())
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    .map((s) => s.secret);
}

/**
 * The list after a rotation at `now` to `fresh`: the current secret (and any
 * older one still live) signs until 24 hours from now at the latest, expired
 * ones are dropped, and `fresh` becomes the current secret.
 */
export function rotateSecrets(secrets: readonly EndpointSecret[], fresh: string, now: Date): EndpointSecret[] {
  const until = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  const kept = secrets
    .filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime())
    .map((s) => ({ ...s, expiresAt: s.expiresAt === null || s.expiresAt > until ? until : s.expiresAt }));
  return [...kept, { secret: fresh, createdAt: now, expiresAt: null }];
}
