/**
 * One invitation as a caller gives it (the API's JSON, a CLI line): checked
 * field by field, each problem one detail naming its field. Products are
 * checked against the catalog by the service (a store read).
 */
import { parseIsoDate } from '../reviews/iso-date.ts';
import { PRODUCT_ID } from '../store/product-types.ts';
import { PAGE_LANGUAGES } from '../collect/words.ts';

export const INVITATION_FIELDS = ['email', 'name', 'productId', 'orderRef', 'locale', 'sendAt'] as const;
export const MAX_EMAIL = 254;
export const MAX_NAME = 100;
export const MAX_ORDER_REF = 100;
/** `sendAt` at most this many days ahead. */
export const MAX_SEND_AHEAD_DAYS = 365;

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
/**
 * What no mailbox name holds, and what would make one mailbox several keys
 * (an unsubscribed address invited again under another spelling): control
 * characters (C0 with NUL, DEL, C1 with U+0085), format characters
 * (zero-width, bidi controls: \p{Cf}) and any whitespace or separator.
 */
const EMAIL_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Z}\s]/u;
/** The domain's labels: none empty (no leading or trailing dot, as in `example.com.`, nor `..`). */
const EMAIL_DOMAIN = /@[^.]+(?:\.[^.]+)+$/;
const isEmail = (email: string): boolean => email.length <= MAX_EMAIL && EMAIL.test(email) && EMAIL_DOMAIN.test(email) && !EMAIL_FORBIDDEN.test(email);
const LOCALE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface InvitationInput {
  email: string;
  name: string | null;
  productId: string | null;
  orderRef: string | null;
  /** A page language (lower-case base code); null: the organization's. */
  locale: string | null;
  /** Canonical UTC; null: the default delay. */
  sendAt: string | null;
}

export interface FieldProblem {
  parameter: string;
  message: string;
}

export type Checked = { ok: true; value: InvitationInput } | { ok: false; problems: FieldProblem[] };

const optional = (v: unknown): v is undefined | null => v === undefined || v === null;

/** `prefix`: how a field is named in details (`data[3].` for a batch's fourth item). */
export function checkInvitation(raw: unknown, prefix = '', now = new Date()): Checked {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, problems: [{ parameter: prefix.replace(/\.$/, '') || 'body', message: 'must be a JSON object with an email' }] };
  const body = raw as Record<string, unknown>;
  const problems: FieldProblem[] = [];
  const fail = (field: string, message: string): void => void problems.push({ parameter: `${prefix}${field}`, message });
  for (const key of Object.keys(body)) if (!(INVITATION_FIELDS as readonly string[]).includes(key)) fail(key.slice(0, 60), `is not a known field (${INVITATION_FIELDS.join(', ')})`);

  let email = '';
  if (typeof body.email !== 'string' || body.email.trim() === '') fail('email', 'is required: the customer\'s email address');
  else if (!isEmail(body.email.trim())) fail('email', 'must be an email address (at most 254 characters)');
  else email = body.email.trim();

  let name: string | null = null;
  if (!optional(body.name)) {
    if (typeof body.name !== 'string' || CONTROL.test(body.name) || [...body.name.trim()].length > MAX_NAME) fail('name', `must be text of at most ${MAX_NAME} characters`);
    else name = body.name.trim() || null;
  }

  let productId: string | null = null;
  if (!optional(body.productId) && body.productId !== '') {
    if (typeof body.productId !== 'string' || !PRODUCT_ID.test(body.productId)) fail('productId', 'must be a catalog product id (1–100 characters of A–Z a–z 0–9 . _ -)');
    else productId = body.productId;
  }

  let orderRef: string | null = null;
  if (!optional(body.orderRef) && body.orderRef !== '') {
    if (typeof body.orderRef !== 'string' || CONTROL.test(body.orderRef) || body.orderRef.trim() === '' || [...body.orderRef].length > MAX_ORDER_REF) fail('orderRef', `must be text of 1 to ${MAX_ORDER_REF} characters`);
    else orderRef = body.orderRef;
  }

  let locale: string | null = null;
  if (!optional(body.locale) && body.locale !== '') {
    const base = typeof body.locale === 'string' && LOCALE.test(body.locale) ? body.locale.toLowerCase().split(/[-_]/)[0]! : null;
    if (base === null || !PAGE_LANGUAGES.includes(base)) fail('locale', `must be one of the page languages: ${PAGE_LANGUAGES.join(', ')} (a region such as de-AT is read as de)`);
    else locale = base;
  }

  let sendAt: string | null = null;
  if (!optional(body.sendAt) && body.sendAt !== '') {
    const parsed = typeof body.sendAt === 'string' && /[Zz]|[+-]\d{2}(?::?\d{2})?$/.test(body.sendAt) && /\d[Tt ]\d/.test(body.sendAt) ? parseIsoDate(body.sendAt) : null;
    if (parsed === null) fail('sendAt', 'must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T09:00:00Z');
    else if (Date.parse(parsed) > now.getTime() + MAX_SEND_AHEAD_DAYS * 86_400_000) fail('sendAt', `must be at most ${MAX_SEND_AHEAD_DAYS} days ahead`);
    // A time already past is due at once.
    else sendAt = Date.parse(parsed) < now.getTime() ? now.toISOString() : parsed;
  }

  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { email, name, productId, orderRef, locale, sendAt } };
}
