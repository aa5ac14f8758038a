/**
 * The unsubscribe link's token (CONTRACT §14): it names one organization and
 * one email address, so that following it (or a mailbox's one-click POST,
 * RFC 8058) unsubscribes exactly that address from exactly that
 * organization's invitations, with nothing stored to look it up.
 *
 * `{organizationId}.{mac}.{sealedEmail}`, base64url parts:
 * - `mac` = HMAC-SHA256 of `organizationId \n email` (email trimmed and lower
 *   cased) under a key derived from SECRETS_KEY (HKDF, its own `info`),
 *   first 16 bytes: the binding. Any change to the organization or the
 *   address makes it wrong.
 * - `sealedEmail` = the address encrypted with AES-256-CTR under a second
 *   derived key, with the mac as its IV (a synthetic IV, as in SIV mode,
 *   RFC 5297): the address is never readable in the URL (URLs end up in
 *   access logs and proxies), and the token is the same every time for the
 *   same organization and address, so the link can be shown again.
 * Opening decrypts with the mac, recomputes the mac over what came out and
 * compares in constant time: a token not made here opens to nothing.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 16;
/** Organization ids are `org_` and 20 base62 characters today; any id of URL-safe characters up to 64 is taken. */
const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_EMAIL = 320;

export interface UnsubscribeAddress {
  organizationId: string;
  /** Trimmed and lower-cased, as the token was made. */
  email: string;
}

const normalize = (email: string): string => email.trim().toLowerCase();
const derive = (secret: Buffer, info: string): Buffer => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `review-proof invitations ${info} v1`, 32));

export class UnsubscribeTokens {
  readonly #mac: Buffer;
  readonly #seal: Buffer;

  constructor(secretsKey: Buffer) {
    this.#mac = derive(secretsKey, 'unsubscribe mac');
    this.#seal = derive(secretsKey, 'unsubscribe seal');
  }

  make(organizationId: string, email: string): string {
    if (!ORG_ID.test(organizationId)) throw new TypeError('an organization id is 1-64 characters of letters, digits, _ and -');
    const address = normalize(email);
    if (address === '' || address.length > MAX_EMAIL) throw new TypeError('an email address is 1-320 characters');
    const mac = this.#macOf(organizationId, address);
    const cipher = createCipheriv('aes-256-ctr', this.#seal, mac);
    const sealed = Buffer.concat([cipher.update(address, 'utf8'), cipher.final()]);
    return `${organizationId}.${mac.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  /** The organization and address a token names, or null when this service did not make it. */
  open(token: unknown): UnsubscribeAddress | null {
    if (typeof token !== 'string' || token.length > 600) return null;
    const [organizationId, macText, sealedText, extra] = token.split('.');
    if (!organizationId || !macText || !sealedText || extra !== undefined || !ORG_ID.test(organizationId)) return null;
    if (!/^[A-Za-z0-9_-]+$/.test(macText) || !/^[A-Za-z0-9_-]+$/.test(sealedText)) return null;
    const mac = Buffer.from(macText, 'base64url');
    if (mac.length !== MAC_BYTES) return null;
    const decipher = createDecipheriv('aes-256-ctr', this.#seal, mac);
    const email = Buffer.concat([decipher.update(Buffer.from(sealedText, 'base64url')), decipher.final()]).toString('utf8');
    const expected = this.#macOf(organizationId, email);
    return timingSafeEqual(mac, expected) ? { organizationId, email } : null;
  }

  #macOf(organizationId: string, email: string): Buffer {
    return createHmac('sha256', this.#mac).update(`${organizationId}\n${email}`).digest().subarray(0, MAC_BYTES);
  }
}
