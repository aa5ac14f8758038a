/**
 * Endpoint signing secrets (CONTRACT §12): `whsec_` + base64 of 32 random
 * bytes, the Standard Webhooks format every library of that specification
 * reads. After a rotation the old secret keeps signing for 24 hours, so a
 * receiver can switch to the new one without losing a delivery; every live
 * secret signs, one `v1,` entry each. At most MAX_LIVE_SECRETS are live at
 * once (CONTRACT §12, "Limits per organization"): a fourth rotation within
 * the day ends the oldest at once, and a list stored with more (before the
 * cap) signs with its newest three only and is trimmed at its next rotation.
 *
 * Only the rules live here, as pure functions of a secret list and a clock.
 * Storing the list (encrypted at rest with SECRETS_KEY) is the endpoint
 * store's business.
 */
import { randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** How long a replaced secret still signs. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
/** Live secrets of one endpoint at most: the current one and the two before it. */
export const MAX_LIVE_SECRETS = 3;

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

/** The secrets live at `now`, newest first, at most MAX_LIVE_SECRETS (a list stored before the cap signs with its newest). */
function live(secrets: readonly EndpointSecret[], now: Date): EndpointSecret[] {
  // Of two made in the same millisecond, the later in the list (the list is kept in the order secrets were made) is the newer.
  return secrets
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => s.expiresAt === null || s.expiresAt.getTime() > now.getTime())
    .sort((a, b) => b.s.createdAt.getTime() - a.s.createdAt.getTime() || b.i - a.i)
    .slice(0, MAX_LIVE_SECRETS)
    .map(({ s }) => s);
}

/** The secrets that sign at `now`, newest first, at most MAX_LIVE_SECRETS. */
export function liveSecrets(secrets: readonly EndpointSecret[], now: Date): string[] {
  return live(secrets, now).map((s) => s.secret);
}

/**
 * The list after a rotation at `now` to `fresh`: the current secret (and the
 * newest older one still live) signs until 24 hours from now at the latest,
 * expired ones are dropped, and `fresh` becomes the current secret. At most
 * MAX_LIVE_SECRETS in all: any older live secret ends now (it is dropped).
 */
export function rotateSecrets(secrets: readonly EndpointSecret[], fresh: string, now: Date): EndpointSecret[] {
  const until = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  const keep = new Set(live(secrets, now).slice(0, MAX_LIVE_SECRETS - 1));
  const kept = secrets
    .filter((s) => keep.has(s))
    .map((s) => ({ ...s, expiresAt: s.expiresAt === null || s.expiresAt > until ? until : s.expiresAt }));
  return [...kept, { secret: fresh, createdAt: now, expiresAt: null }];
}
