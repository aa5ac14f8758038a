/**
 * Members: everyone in the organization with their role and last sign-in;
 * Owners and Admins invite (a one-time link valid 7 days, mailed when the
 * server has SMTP_URL, else shown to copy), revoke an open invitation (its link stops working
 * for good), change roles and remove people. The server keeps
 * the last Owner and says so; the page shows its message.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type Member, type PendingInvitation, type Role, type SessionInfo } from '../../api.ts';
import { CopyField } from '../../components/copy-field.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { formatDate, formatDateTime, ROLE_LABELS } from '../../format.ts';

const ROLES: Role[] = ['owner', 'admin', 'member'];

function InviteDialog(props: { canGrantOwner: boolean; onClose: () => void; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [link, setLink] = useState<{ link?: string; mailed: boolean; expiresAt: string; email: string } | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      setLink(await call<{ link?: string; mailed: boolean; expiresAt: string; email: string }>('POST', '/invitations', { email, role }));
      props.onInvited();
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
    } finally {
      setBusy(false);
    }
  };

  if (link?.mailed) {
    return (
      <Dialog id="invitation-sent" title="Invitation sent" onClose={props.onClose}>
        <Notice tone="info">
          Sent to {link.email}. The link in the mail works once, until {formatDateTime(link.expiresAt)}.
        </Notice>
        <div class="dialog-actions">
          <button type="button" class="button primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  if (link?.link) {
    return (
      <Dialog id="invitation-link" title="Invitation ready" onClose={props.onClose}>
        <CopyField id="invitation-url" label="Invitation link" value={link.link} focus />
        <Notice tone="info">
          Send this link to {link.email} yourself. It works once, until {formatDateTime(link.expiresAt)}, and is not shown again.
        </Notice>
        <div class="dialog-actions">
          <button type="button" class="button primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog id="invite" title="Invite member" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div class="field">
          <label for="invite-email">Email</label>
          <input id="invite-email" type="email" required autoComplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)} aria-describedby="invite-role-hint">
            {ROLES.filter((r) => r !== 'owner' || props.canGrantOwner).map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
          <p class="hint" id="invite-role-hint">
            Owners and Admins manage keys, widgets and members; Members see the dashboard and change nothing.
          </p>
        </div>
        {error && (
          <Notice tone="error" role="alert">
            {error}
          </Notice>
        )}
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            Create invitation link
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RemoveDialog(props: { member: Member; onClose: () => void; onRemoved: () => void }) {
  const remove = async () => {
    await call('DELETE', `/members/${encodeURIComponent(props.member.id)}`);
    props.onRemoved();
  };
  return (
    <ConfirmDialog id="remove-member" title={`Remove ${props.member.email}?`} label="Remove member" action={remove} onClose={props.onClose}>
      <p>They lose access to this organization at once: any session they have open in it ends now. Other organizations they belong to keep them.</p>
    </ConfirmDialog>
  );
}

function RevokeDialog(props: { invitation: PendingInvitation; onClose: () => void; onRevoked: () => void }) {
  const revoke = async () => {
    await call('DELETE', `/invitations/${encodeURIComponent(props.invitation.id)}`);
    props.onRevoked();
  };
  return (
    <ConfirmDialog id="revoke-invitation" title={`Revoke the invitation for ${props.invitation.email}?`} label="Revoke invitation" action={revoke} onClose={props.onClose}>
      <p>Its link stops working for good. You can invite them again later.</p>
    </ConfirmDialog>
  );
}

export function MembersPage(props: { session: SessionInfo }) {
  const me = props.session.user!;
  const staff = me.role !== 'member';
  /** A row this person may change: not their own, and an Owner only by an Owner. */
  const editable = (m: Member): boolean => staff && m.id !== me.id && (me.role === 'owner' || m.role !== 'owner');
  const [members, setMembers] = useState<Member[] | null>(null);
  const [invitations, setInvitations] = useState<PendingInvitation[]>([]);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [revoking, setRevoking] = useState<PendingInvitation | null>(null);

  const load = () =>
    call<{ data: Member[]; invitations: PendingInvitation[] }>('GET', '/members').then(
      (res) => {
        setMembers(res.data);
        setInvitations(res.invitations);
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the members.'),
    );
  useEffect(() => {
    void load();
  }, []);

  const changeRole = async (member: Member, role: Role) => {
    setError('');
    try {
      await call('PATCH', `/members/${encodeURIComponent(member.id)}`, { role });
      setStatus(`${member.email} is now ${ROLE_LABELS[role]}.`);
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
    }
    void load();
  };

  return (
    <>
      <PageHeader
        title="Members"
        lead="People who can sign in to this dashboard, and what they may do."
        actions={
          staff && (
            <button type="button" class="button primary" onClick={() => setInviting(true)}>
              Invite member
            </button>
          )
        }
      />
      <p class="sr-only" role="status">
        {status}
      </p>
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!members && !error && <Loading what="members" />}
      {members && (
        <DataTable
          label="Members"
          rows={members}
          rowKey={(m) => m.id}
          columns={[
            {
              name: 'Email',
              card: 'title',
              class: 'strong',
              cell: (m) => (
                <>
                  {m.email}
                  {m.id === me.id && <span class="muted"> (you)</span>}
                </>
              ),
            },
            {
              name: 'Role',
              cell: (m) =>
                editable(m) ? (
                  <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => void changeRole(m, e.currentTarget.value as Role)}>
                    {ROLES.filter((r) => r !== 'owner' || me.role === 'owner').map((r) => (
                      <option key={r} value={r}>
                        {ROLE_LABELS[r]}
                      </option>
                    ))}
                  </select>
                ) : (
                  <span class={`badge badge-role-${m.role}`}>{ROLE_LABELS[m.role]}</span>
                ),
            },
            { name: 'Last sign-in', class: 'nowrap', cell: (m) => formatDateTime(m.lastSignInAt) },
            staff && {
              name: 'Actions',
              card: 'actions',
              cell: (m) =>
                editable(m) && (
                  <button type="button" class="button danger-outline small" aria-label={`Remove ${m.email}`} onClick={() => setRemoving(m)}>
                    Remove
                  </button>
                ),
            },
          ]}
        />
      )}
      {invitations.length > 0 && (
        <section class="section" aria-labelledby="pending-title">
          <h2 id="pending-title">Open invitations</h2>
          <ul class="invitation-list card">
            {invitations.map((i) => (
              <li key={i.id} class="invitation-row">
                <span>
                  <strong>{i.email}</strong> as {ROLE_LABELS[i.role]} · link valid until {formatDate(i.expiresAt)}
                </span>
                {staff && (me.role === 'owner' || i.role !== 'owner') && (
                  <button type="button" class="button danger-outline small" aria-label={`Revoke the invitation for ${i.email}`} onClick={() => setRevoking(i)}>
                    Revoke
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {inviting && <InviteDialog canGrantOwner={me.role === 'owner'} onClose={() => setInviting(false)} onInvited={() => void load()} />}
      {revoking && (
        <RevokeDialog
          invitation={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            setStatus(`The invitation for ${revoking.email} was revoked.`);
            setRevoking(null);
            void load();
          }}
        />
      )}
      {removing && (
        <RemoveDialog
          member={removing}
          onClose={() => setRemoving(null)}
          onRemoved={() => {
            setStatus(`${removing.email} removed.`);
            setRemoving(null);
            void load();
          }}
        />
      )}
    </>
  );
}
