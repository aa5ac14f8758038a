/**
 * Settings > API Keys, exactly as the spec words the flow: Create API Key →
 * Name, optional Expiration date, `May send review invitations` (off: the
 * key is read-only) → Generate → the full key once, in
 * `New API key` with Copy and a warning; the key list; Revoke → a
 * confirmation dialog → Revoke key. The new key lives only in this
 * component's state: leaving or reloading the page never shows it again.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type CreatedKey, type KeyItem, type SessionInfo } from '../../api.ts';
import { CopyField } from '../../components/copy-field.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { PlanCard } from '../../components/plan.tsx';
import { endOfLocalDay, formatDate, formatDateTime, timeZone, todayLocal } from '../../format.ts';

const STATE_LABELS = { active: 'Active', revoked: 'Revoked', expired: 'Expired' } as const;

/** A key's permissions in words. */
const accessLabel = (permissions: readonly string[]): string => (permissions.includes('invitations:write') ? 'Reads reviews, sends invitations' : 'Reads reviews');

function CreateKeyDialog(props: { onClose: () => void; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [mayInvite, setMayInvite] = useState(false);
  const [error, setError] = useState<DashboardError | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const key = await call<CreatedKey>('POST', '/keys', { name, expiresAt: expires ? endOfLocalDay(expires) : null, mayInvite });
      setCreated(key);
      props.onCreated();
    } catch (err) {
      setError(err instanceof DashboardError ? err : new DashboardError(0, 'unknown', 'Something went wrong. Try again.'));
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <Dialog id="new-key" title="Your new API key" onClose={props.onClose}>
        <CopyField id="new-api-key" label="New API key" value={created.key} focus />
        <Notice tone="warning" role="alert">
          <strong>Copy this key now.</strong> It will not be shown again: the service keeps only a hash of it. Store it in your secret manager.
        </Notice>
        <p class="hint">
          {created.name} · prefix <span class="mono">{created.prefix}</span> · {created.expiresAt ? `expires ${formatDateTime(created.expiresAt)}` : 'no expiration date'} · {accessLabel(created.permissions)}
        </p>
        <div class="dialog-actions">
          <button type="button" class="button primary" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog id="create-key" title="Create API key" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div class="field">
          <label for="key-name">Name</label>
          <input
            id="key-name"
            type="text"
            required
            maxLength={100}
            autoComplete="off"
            aria-describedby="key-name-hint"
            aria-invalid={error?.fields.name ? 'true' : undefined}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <p class="hint" id="key-name-hint">
            Say where it is used, e.g. “Website production”.
          </p>
        </div>
        <div class="field">
          <label for="key-expires">Expiration date</label>
          <input
            id="key-expires"
            type="date"
            min={todayLocal()}
            aria-describedby="key-expires-hint"
            aria-invalid={error?.fields.expiresAt ? 'true' : undefined}
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
          />
          <p class="hint" id="key-expires-hint">
            Optional. The key stops working at the end of that day, your time ({timeZone()}). Leave empty for a key that lasts until revoked.
          </p>
        </div>
        <div class="field">
          <label class="check">
            <input id="key-may-invite" type="checkbox" checked={mayInvite} aria-describedby="key-may-invite-hint" onChange={(e) => setMayInvite(e.currentTarget.checked)} />
            May send review invitations
          </label>
          <p class="hint" id="key-may-invite-hint">
            Lets your shop's system ask customers for a review after a purchase (<span class="mono">POST /api/v1/invitations</span>) and read the invitations, customers' email addresses included. Leave it off for a key that only reads reviews.
          </p>
        </div>
        {error && (
          <Notice tone="error" role="alert">
            {error.message}
          </Notice>
        )}
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            Generate
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RevokeDialog(props: { keyItem: KeyItem; onClose: () => void; onRevoked: () => void }) {
  const revoke = async () => {
    await call('POST', `/keys/${encodeURIComponent(props.keyItem.id)}/revoke`);
    props.onRevoked();
  };
  return (
    <ConfirmDialog id="revoke-key" title={`Revoke “${props.keyItem.name}”?`} label="Revoke key" action={revoke} onClose={props.onClose}>
      <p>
        Requests with this key (<span class="mono">{props.keyItem.prefix}…</span>) are refused from the very next one, on every server. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

export function ApiKeysPage(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [keys, setKeys] = useState<KeyItem[] | null>(null);
  const [error, setError] = useState('');
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<KeyItem | null>(null);
  const [status, setStatus] = useState('');

  const load = () =>
    call<{ data: KeyItem[] }>('GET', '/keys').then(
      (res) => setKeys(res.data),
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the keys.'),
    );
  useEffect(() => {
    if (staff) void load();
  }, [staff]);

  if (!staff) {
    return (
      <>
        <PageHeader title="API Keys" />
        <Notice tone="info" role="status">
          API keys are managed by people with the <strong>Owner</strong> or <strong>Admin</strong> role. Ask an Owner of {props.session.org!.name} if you need a key or a different role.
        </Notice>
      </>
    );
  }

  return (
    <>
      <PageHeader
        title="API Keys"
        lead="Keys let your servers read reviews and statistics through the API. Keep them secret: never put one in a web page."
        actions={
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            Create API Key
          </button>
        }
      />
      {!props.session.org!.apiAccess && (
        <Notice tone="warning">
          You can create keys now, but API access needs the <strong>Growth</strong> plan or higher: until your plan changes, requests with them are refused.
        </Notice>
      )}
      <p class="sr-only" role="status">
        {status}
      </p>
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!keys && !error && <Loading what="keys" />}
      {keys && keys.length === 0 && <p class="empty card">No API keys yet. Create one for each place that calls the API, so that you can revoke them one by one.</p>}
      {keys && keys.length > 0 && (
        <DataTable
          label="API keys"
          rows={keys}
          rowKey={(k) => k.id}
          columns={[
            { name: 'Name', card: 'title', class: 'strong', cellProps: (k) => ({ id: `key-${k.id}` }), cell: (k) => (
                <>
                  {k.name}
                  {/* Read-only is every key's default: only the exception is said, under the name. */}
                  {k.permissions.includes('invitations:write') && <span class="key-permission">Sends review invitations</span>}
                </>
              ) },
            { name: 'Prefix', class: 'mono', cell: (k) => `${k.prefix}…` },
            { name: 'Created', class: 'nowrap', cell: (k) => formatDate(k.createdAt) },
            { name: 'Last used', class: 'nowrap', cell: (k) => formatDateTime(k.lastUsedAt) },
            { name: 'Expires', class: 'nowrap', cell: (k) => formatDate(k.expiresAt, 'No expiration') },
            { name: 'State', card: 'badge', cell: (k) => <span class={`badge badge-${k.state}`}>{STATE_LABELS[k.state]}</span> },
            {
              name: 'Actions',
              card: 'actions',
              cell: (k) =>
                k.state === 'active' && (
                  <button type="button" class="button danger-outline small" aria-describedby={`key-${k.id}`} onClick={() => setRevoking(k)}>
                    Revoke
                  </button>
                ),
            },
          ]}
        />
      )}
      <PlanCard org={props.session.org!} />
      {creating && (
        <CreateKeyDialog
          onClose={() => setCreating(false)}
          onCreated={() => {
            void load();
            setStatus('Key created.');
          }}
        />
      )}
      {revoking && (
        <RevokeDialog
          keyItem={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            setRevoking(null);
            setStatus(`Key ${revoking.name} revoked.`);
            void load();
          }}
        />
      )}
    </>
  );
}
