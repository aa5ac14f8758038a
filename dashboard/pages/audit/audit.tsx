/** Audit log (Owner, Admin): who did what, when. */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type AuditRecord, type SessionInfo } from '../../api.ts';
import { Loading, Notice, PageHeader, TableWrap } from '../../components/page.tsx';
import { formatDateTime, ROLE_LABELS } from '../../format.ts';

const ACTIONS: Record<string, string> = {
  'key.created': 'Created API key',
  'key.revoked': 'Revoked API key',
  'member.invited': 'Invited member',
  'member.joined': 'Joined',
  'member.removed': 'Removed member',
  'member.role_changed': 'Changed role',
  'member.created': 'Added member',
  'member.invitation_revoked': 'Revoked invitation',
  'org.plan_changed': 'Changed plan',
  'org.language_changed': 'Changed language',
  'review.hidden': 'Hid review',
  'review.shown': 'Showed review',
  'reviews.imported': 'Imported reviews',
  'reviews.removed': 'Removed reviews',
  'reviews.removal_held': 'Held removals',
  'reviews.removal_kept': 'Kept reviews',
  'security.signed_in': 'Signed in',
  'security.locked_out': 'Sign-in locked',
  'webhook.created': 'Added webhook endpoint',
  'webhook.disabled': 'Disabled webhook endpoint',
  'webhook.enabled': 'Enabled webhook endpoint',
  'webhook.removed': 'Removed webhook endpoint',
  'webhook.replayed': 'Replayed webhook message',
  'webhook.secret_rotated': 'Rotated webhook secret',
  'webhook.tested': 'Sent webhook test event',
  'widget.changed': 'Changed widget',
  'widget.created': 'Created widget',
};

const roleLabel = (value: string | undefined) => (value && value in ROLE_LABELS ? ROLE_LABELS[value as keyof typeof ROLE_LABELS] : value);

/** The webhook dispatcher disabling an endpoint by itself (a 410, 5 days of failures): written without a user, like the operator. */
const byService = (r: AuditRecord): boolean => (r.action === 'webhook.disabled' && !!r.details.reason && r.details.reason !== 'manual') || r.details.by === 'service';

function detail(r: AuditRecord): string {
  if (r.details.from && r.details.to) return `${roleLabel(r.details.from)} → ${roleLabel(r.details.to)}`;
  if (r.details.role) return `as ${roleLabel(r.details.role)}`;
  if (r.details.expiresAt) return `expires ${formatDateTime(r.details.expiresAt)}`;
  if (r.details.reason) return `reason: ${r.details.reason.replace(/_/g, ' ')}`;
  if (r.details.changes) return r.details.changes;
  // Records written before changes were described: the internal field names, made readable.
  if (r.details.fields) return r.details.fields.replace(/\b(options|subject)\./g, '').replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`);
  if (r.details.format) return `${r.details.imported} new, ${r.details.updated} updated, ${r.details.rejected} rejected${r.details.interrupted === 'yes' ? ' (interrupted)' : ''}`;
  if (r.details.address) return `from ${r.details.address}`;
  // Written in words by the server (a source's removals, api/sources/sync.ts).
  return r.details.words ?? '';
}

export function AuditPage(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [records, setRecords] = useState<AuditRecord[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (staff) call<{ data: AuditRecord[] }>('GET', '/audit').then((r) => setRecords(r.data), (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the audit log.'));
  }, [staff]);
  if (!staff) {
    return (
      <>
        <PageHeader title="Audit log" />
        <Notice role="status">The audit log is for Owners and Admins.</Notice>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Audit log" lead="Keys created and revoked, members invited, removed or given another role, reviews hidden or shown, widgets created or changed: who, what, when." />
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!records && !error && <Loading what="the audit log" />}
      {records && records.length === 0 && <p class="empty card">Nothing has happened yet.</p>}
      {records && records.length > 0 && (
        <TableWrap label="Audit log">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Subject</th>
              </tr>
            </thead>
            <tbody>
              {records.map((r) => (
                <tr key={r.id}>
                  <td class="nowrap">{formatDateTime(r.at)}</td>
                  <td>{r.actor.userId === null ? (byService(r) ? 'The service' : 'Operator (CLI)') : r.actor.email}</td>
                  <td>{ACTIONS[r.action] ?? r.action}</td>
                  <td>
                    <span class="strong">{r.target.label}</span> <span class="muted">{detail(r)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
