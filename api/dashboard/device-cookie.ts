/**
 * The device cookie: a browser that signed in successfully gets `rp_device`,
 * a random id and an HMAC-SHA256 of that id and the email it signed in with,
 * under a key derived from SECRETS_KEY (api/secrets). Presented with that
 * email again, it exempts the browser from the per-email sign-in limits (not
 * from the per-address one): someone guessing a person's password elsewhere
 * cannot lock that person out of a browser they have used before.
 *
 * The cookie names no email (it is checked against the one typed in), is
 * HttpOnly, Secure, SameSite=Lax, Path=/dashboard, and lives a year; one per
 * browser, for the email of the last successful sign-in.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { normalizeEmail } from '../store/people-types.ts';

export const DEVICE_COOKIE = 'rp_device';
export const DEVICE_COOKIE_SECONDS = 365 * 86_400;

/** 16 random bytes and a 32-byte MAC, base64url: 22 + 43 characters (within readCookie's pattern). */
const ID_CHARS = 22;
const MAC_CHARS = 43;

export class DeviceCookies {
  readonly #key: Buffer;

  /** `secretsKey`: the service's SECRETS_KEY (or the one generated into DATA_DIR); a key of its own is derived from it. */
  constructor(secretsKey: Buffer) {
    this.#key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'review-proof dashboard device cookie v1', 32));
  }

  /** A fresh cookie value for a browser that just signed in as `email`. */
  issue(email: string): string {
    const id = randomBytes(16).toString('base64url');
    return id + this.mac(id, email).toString('base64url');
  }

  /** True when `value` was issued by this service for this email (case and spaces aside). */
  verify(value: string | null, email: string): boolean {
    if (value === null || value.length !== ID_CHARS + MAC_CHARS) return false;
    const given = Buffer.from(value.slice(ID_CHARS), 'base64url');
    const expected = this.mac(value.slice(0, ID_CHARS), email);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(id: string, email: string): Buffer {
    return createHmac('sha256', this.#key).update(`${id}\n${normalizeEmail(email)}`).digest();
  }
}
