/**
 * An invitation's link, `{PUBLIC_URL}/r/i/{token}` (CONTRACT §14): the token
 * is the invitation's id and an HMAC-SHA256 (base64url) of it under a key
 * derived from SECRETS_KEY (HKDF, its own `info`), the MAC also covering the
 * organization, the address (its key) and the product, so nothing secret is
 * stored, the link can be shown again, and it opens only the invitation it
 * was made for. Single use and expiry are the invitation's state, not the
 * token's.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Invitation } from '../store/invitation-types.ts';

const INVITATION_ID = /^inv_[0-9A-Za-z]{20}$/;

export class InvitationLinks {
  readonly #key: Buffer;

  constructor(secretsKey: Buffer) {
    this.#key = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'review-proof invitation link v1', 32));
  }

  token(invitation: Pick<Invitation, 'id' | 'orgId' | 'emailKey' | 'productId'>): string {
    return `${invitation.id}.${this.#mac(invitation)}`;
  }

  /** The invitation id a token names (its shape only: `verify` checks the MAC once the invitation is read). */
  idOf(token: string): string | null {
    const [id, mac, extra] = token.split('.');
    return id && mac && extra === undefined && INVITATION_ID.test(id) && mac.length === 43 ? id : null;
  }

  /** The token was made by this service for this very invitation (organization, address and product unchanged). */
  verify(token: string, invitation: Pick<Invitation, 'id' | 'orgId' | 'emailKey' | 'productId'>): boolean {
    const expected = Buffer.from(this.token(invitation));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  #mac(i: Pick<Invitation, 'id' | 'orgId' | 'emailKey' | 'productId'>): string {
    return createHmac('sha256', this.#key).update(`${i.id}\n${i.orgId}\n${i.emailKey}\n${i.productId ?? ''}`).digest('base64url');
  }
}
