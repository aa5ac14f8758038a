/**
 * The review page's signed values, each under its own key derived from
 * SECRETS_KEY (HKDF, one `info` per use), so nothing secret is stored or put in
 * a page:
 * - the form token: when the form was served, for which link and product;
 *   a submission is accepted 2 s to 2 h after it (bots post at once, a
 *   stale page is sent again);
 * - the confirmation and private edit links: the submission id and its HMAC
 *   (single use and expiry are the submission's state, not the token's);
 * - the email key: an HMAC of the lower-cased email, to find the reviewer's
 *   earlier review (one per email per organization and product).
 */
import { createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { normalizeEmail } from '../store/people-types.ts';

export const FORM_MIN_AGE_MS = 2_000;
export const FORM_MAX_AGE_MS = 2 * 3600_000;

export type FormTokenCheck = 'ok' | 'too_fast' | 'expired' | 'invalid';
export type LinkKind = 'confirm' | 'manage';

/**
 * A KeyObject, not a Buffer: Node 24's createHmac tells a Buffer key from a
 * key object by brand checks that throw and catch, about 25 µs an HMAC, which
 * was a quarter of a 100,000-line invitation upload's time (one email key a line).
 */
const derive = (secret: Buffer, info: string): KeyObject => createSecretKey(Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `review-proof collect ${info} v1`, 32)));

const SUBMISSION_ID = /^sub_[A-Za-z0-9_-]{16,40}$/;

export const newSubmissionId = (): string => `sub_${randomBytes(15).toString('base64url')}`;
export const newCollectId = (): string => `col_${randomBytes(15).toString('base64url')}`;
export const COLLECT_ID = /^col_[A-Za-z0-9_-]{20}$/;

export class CollectKeys {
  readonly #form: KeyObject;
  readonly #confirm: KeyObject;
  readonly #manage: KeyObject;
  readonly #email: KeyObject;

  constructor(secretsKey: Buffer) {
    this.#form = derive(secretsKey, 'form token');
    this.#confirm = derive(secretsKey, 'confirm link');
    this.#manage = derive(secretsKey, 'manage link');
    this.#email = derive(secretsKey, 'email key');
  }

  formToken(collectId: string, productId: string | null, now: Date): string {
    const at = now.getTime().toString(36);
    return `${at}.${this.#mac(this.#form, `${collectId}\n${productId ?? ''}\n${at}`)}`;
  }

  checkFormToken(token: unknown, collectId: string, productId: string | null, now: Date): FormTokenCheck {
    if (typeof token !== 'string' || token.length > 100) return 'invalid';
    const [at, mac, extra] = token.split('.');
    if (!at || !mac || extra !== undefined || !/^[0-9a-z]{1,12}$/.test(at)) return 'invalid';
    if (!this.#same(mac, this.#mac(this.#form, `${collectId}\n${productId ?? ''}\n${at}`))) return 'invalid';
    const age = now.getTime() - parseInt(at, 36);
    if (age < FORM_MIN_AGE_MS) return 'too_fast';
    if (age > FORM_MAX_AGE_MS) return 'expired';
    return 'ok';
  }

  link(kind: LinkKind, submissionId: string): string {
    return `${submissionId}.${this.#mac(kind === 'confirm' ? this.#confirm : this.#manage, submissionId)}`;
  }

  /** The submission id a link names, or null when it was not made by this service (tampered, another kind). */
  openLink(kind: LinkKind, token: string): string | null {
    const [id, mac, extra] = token.split('.');
    if (!id || !mac || extra !== undefined || !SUBMISSION_ID.test(id)) return null;
    return this.#same(mac, this.#mac(kind === 'confirm' ? this.#confirm : this.#manage, id)) ? id : null;
  }

  emailKey(email: string): string {
    return this.#mac(this.#email, normalizeEmail(email));
  }

  #mac(key: KeyObject, text: string): string {
    return createHmac('sha256', key).update(text).digest('base64url');
  }

  #same(a: string, b: string): boolean {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  }
}
