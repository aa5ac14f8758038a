/**
 * The audit log in words: what happened, and to what. Every action the server
 * can write (api/store/people-types.ts AUDIT_ACTIONS) has its words here: the
 * map is typed by that list, so an action added there without words here does
 * not compile (and words.test.ts enumerates the list at run time too).
 */
import type { AuditRecord } from '../../api.ts';
import type { AuditAction } from '../../../api/store/people-types.ts';
import { legacySourceLabelInWords, PLATFORM_WORDS } from '../../../api/dashboard/audit-words.ts';
import { formatDate, formatDateTime, ROLE_LABELS } from '../../format.ts';
import { REASONS } from '../reviews/reasons.ts';

/** What an action's subject is, which decides how its label reads. */
type SubjectKind = 'key' | 'member' | 'organization' | 'review' | 'source' | 'file' | 'account' | 'endpoint' | 'widget' | 'product' | 'collect';

export const AUDIT_WORDS: { readonly [A in AuditAction]: { what: string; subject: SubjectKind } } = {
  'key.created': { what: 'Created API key', subject: 'key' },
  'key.revoked': { what: 'Revoked API key', subject: 'key' },
  'member.invited': { what: 'Invited member', subject: 'member' },
  'member.joined': { what: 'Joined', subject: 'member' },
  'member.removed': { what: 'Removed member', subject: 'member' },
  'member.role_changed': { what: 'Changed role', subject: 'member' },
  'member.created': { what: 'Added member', subject: 'member' },
  'member.invitation_revoked': { what: 'Revoked invitation', subject: 'member' },
  'org.plan_changed': { what: 'Changed plan', subject: 'organization' },
  'org.language_changed': { what: 'Changed language', subject: 'organization' },
  'product.created': { what: 'Added product', subject: 'product' },
  'product.updated': { what: 'Edited product', subject: 'product' },
  'product.removed': { what: 'Removed product', subject: 'product' },
  'product.imported': { what: 'Imported products', subject: 'file' },
  'invitation.imported': { what: 'Imported invitations', subject: 'file' },
  'invitation.erased': { what: 'Erased invitations of an address', subject: 'collect' },
  'review.hidden': { what: 'Hid review', subject: 'review' },
  'review.shown': { what: 'Showed review', subject: 'review' },
  'reply.published': { what: 'Published reply', subject: 'review' },
  'reply.failed': { what: 'Reply not posted', subject: 'review' },
  'reply.deleted': { what: 'Deleted reply', subject: 'review' },
  'reply.template_created': { what: 'Added reply template', subject: 'collect' },
  'reply.template_changed': { what: 'Changed reply template', subject: 'collect' },
  'reply.template_removed': { what: 'Removed reply template', subject: 'collect' },
  'reply.auto_rule_changed': { what: 'Changed automatic replies', subject: 'collect' },
  'reply.auto_scheduled': { what: 'Scheduled automatic reply', subject: 'review' },
  'reply.auto_withdrawn': { what: 'Withdrew automatic reply', subject: 'review' },
  'review.published': { what: 'Published review', subject: 'review' },
  'review.rejected': { what: 'Rejected review', subject: 'review' },
  'collect.link_rotated': { what: 'Replaced review page link', subject: 'collect' },
  'collect.settings_changed': { what: 'Changed review page settings', subject: 'collect' },
  'invitation.cancelled': { what: 'Cancelled review invitation', subject: 'collect' },
  'invitations.settings_changed': { what: 'Changed invitation settings', subject: 'collect' },
  'source.connected': { what: 'Connected source', subject: 'source' },
  'source.reconnected': { what: 'Reconnected source', subject: 'source' },
  'source.removed': { what: 'Removed source', subject: 'source' },
  'reviews.imported': { what: 'Imported reviews', subject: 'file' },
  'reviews.removed': { what: 'Removed reviews', subject: 'source' },
  'reviews.removal_held': { what: 'Held removals', subject: 'source' },
  'reviews.removal_kept': { what: 'Kept reviews', subject: 'source' },
  'security.signed_in': { what: 'Signed in', subject: 'account' },
  'security.locked_out': { what: 'Sign-in locked', subject: 'account' },
  'webhook.created': { what: 'Added webhook endpoint', subject: 'endpoint' },
  'webhook.disabled': { what: 'Disabled webhook endpoint', subject: 'endpoint' },
  'webhook.enabled': { what: 'Enabled webhook endpoint', subject: 'endpoint' },
  'webhook.removed': { what: 'Removed webhook endpoint', subject: 'endpoint' },
  'webhook.replayed': { what: 'Replayed webhook message', subject: 'endpoint' },
  'webhook.secret_rotated': { what: 'Rotated webhook secret', subject: 'endpoint' },
  'webhook.tested': { what: 'Sent webhook test event', subject: 'endpoint' },
  'widget.changed': { what: 'Changed widget', subject: 'widget' },
  'widget.created': { what: 'Created widget', subject: 'widget' },
};

const known = (action: string): action is AuditAction => Object.hasOwn(AUDIT_WORDS, action);

/** "Connected source"; an action this dashboard does not know yet (a newer server) in words made from its code. */
export function actionInWords(action: string): string {
  if (known(action)) return AUDIT_WORDS[action].what;
  const words = action.replace(/[._]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const platformName = (code: string): string => PLATFORM_WORDS[code.toLowerCase()]?.name ?? code;

/** The subject as a person reads it: `Trustpilot source “Main shop” (business unit bu-acme-123)`, `API key “CI” (rpk_ab12…)`. */
export function subjectInWords(r: Pick<AuditRecord, 'action' | 'target'>): string {
  const label = r.target.label;
  if (!known(r.action)) return label;
  switch (AUDIT_WORDS[r.action].subject) {
    case 'source':
      // Written before sources were in words: "trustpilot bu-acme-123".
      return legacySourceLabelInWords(label) ?? label;
    case 'key': {
      const m = /^(.*) \((\S+…)\)$/.exec(label);
      return m ? `API key “${m[1]}” (${m[2]})` : `API key “${label}”`;
    }
    case 'review': {
      const m = /^(.*) on (\S+) \((\d{4}-\d{2}-\d{2})\)$/.exec(label);
      return m ? `${m[1]}’s review on ${platformName(m[2]!)} (${formatDate(`${m[3]}T12:00:00Z`)})` : `Review: ${label}`;
    }
    case 'widget':
      return `Widget “${label}”`;
    case 'organization':
      return `Organization “${label}”`;
    case 'endpoint':
      return `Endpoint ${label}`;
    case 'product': {
      // Written as "Name (id)" (api/products/service.ts).
      const m = /^(.*) \(([A-Za-z0-9._-]{1,100})\)$/s.exec(label);
      return m ? `Product “${m[1]}” (${m[2]})` : `Product ${label}`;
    }
    case 'file':
    case 'collect':
    case 'member':
    case 'account':
      return label;
  }
}

const roleLabel = (value: string | undefined) => (value && value in ROLE_LABELS ? ROLE_LABELS[value as keyof typeof ROLE_LABELS] : value);
const reasonWords = (value: string): string => REASONS.find((r) => r.value === value)?.label.toLowerCase() ?? value.replace(/_/g, ' ');

/** The record's other facts in words: "Member → Admin", "as Admin", "reason: spam", "3 new, 1 updated, 0 rejected". */
export function detailInWords(r: Pick<AuditRecord, 'details'>): string {
  const d = r.details;
  // Written in words by the server (a source's removals, api/sources/sync.ts).
  if (d.words) return d.words;
  if (d.from && d.to) return `${roleLabel(d.from)} → ${roleLabel(d.to)}`;
  if (d.role) return `as ${roleLabel(d.role)}`;
  // A key that may send review invitations says so (read-only is every key's default).
  const invites = d.permissions?.split(', ').includes('invitations:write') ? 'may send review invitations' : '';
  if (d.expiresAt) return `expires ${formatDateTime(d.expiresAt)}${invites && `; ${invites}`}`;
  if (invites) return invites;
  // A webhook endpoint disabled by a person: the Who column says who; nothing more to say.
  if (d.reason === 'manual') return '';
  if (d.reason) return `reason: ${reasonWords(d.reason)}`;
  if (d.changes) return d.changes;
  // Records written before changes were described: the internal field names, made readable.
  if (d.fields) return d.fields.replace(/\b(options|subject)\./g, '').replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
  // An invitation upload (api/invitations/service.ts): what it created, what stood already, what the rules skipped.
  if (d.format && d.created !== undefined) return `${d.created} invited, ${d.existing} already invited, ${d.skipped} skipped, ${d.rejected} rejected${d.interrupted === 'yes' ? ' (interrupted)' : ''}`;
  if (d.format) return `${d.imported} new, ${d.updated} updated, ${d.rejected} rejected${d.interrupted === 'yes' ? ' (interrupted)' : ''}`;
  if (d.address) return `from ${d.address}`;
  if (d.events) return `for ${d.events.split(',').join(', ')}`;
  if (d.message) return `message ${d.message}`;
  return '';
}
