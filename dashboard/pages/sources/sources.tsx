/**
 * Sources: the platforms this organization's reviews are collected from, on a
 * schedule (CONTRACT §11). Everyone sees the list; Owners and Admins connect
 * (per platform the fields it needs; Google by OAuth, then the location),
 * sync now, reconnect a source whose authorization failed, and remove one.
 * Credentials go to the server in the request body and are never shown back.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo, type SourceItem, type SourceList, type SyncSummary } from '../../api.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { Loading, Notice, PageHeader, TableWrap } from '../../components/page.tsx';
import { formatDateTime, formatNumber, formatRelative } from '../../format.ts';
import { afterWord } from './after-word.ts';
import { PATHS } from '../../router.ts';
import { HeldRemovals } from './held-removals.tsx';

type Choice = 'trustpilot' | 'yelp' | 'facebook' | 'g2' | 'capterra';

/** Per platform: its label and the credential field it needs (null: no API). */
const PLATFORMS: Record<Choice, { label: string; field: { name: string; label: string; hint: string } | null; account: string }> = {
  trustpilot: { label: 'Trustpilot', field: { name: 'apiKey', label: 'API key', hint: 'Your Trustpilot API key (Trustpilot Business, API access).' }, account: 'The business unit id.' },
  yelp: { label: 'Yelp', field: { name: 'apiKey', label: 'API key', hint: 'A Yelp Fusion API key. Yelp shows at most 3 review excerpts.' }, account: 'The business id or alias.' },
  facebook: { label: 'Facebook', field: { name: 'pageAccessToken', label: 'Page access token', hint: 'A long-lived Page access token with pages_read_user_content.' }, account: 'The Page id.' },
  g2: { label: 'G2', field: { name: 'apiToken', label: 'API token', hint: 'A G2 API token (data.g2.com).' }, account: 'The product id.' },
  capterra: { label: 'Capterra', field: null, account: '' },
};

const PLATFORM_LABELS: Record<string, string> = { google: 'Google', trustpilot: 'Trustpilot', yelp: 'Yelp', facebook: 'Facebook', g2: 'G2' };
const STATE_LABELS: Record<SourceItem['state'], string> = { active: 'Active', paused: 'Paused', needs_reauth: 'Needs reconnecting', failing: 'Failing' };

const GOOGLE_OUTCOMES: Record<string, { tone: 'success' | 'error'; text: string }> = {
  authorized: { tone: 'success', text: 'Google authorized access. Now choose the location to collect reviews from.' },
  state: { tone: 'error', text: 'Google connection refused: the request had expired, was used already or came from another session. Start again with Connect Google.' },
  denied: { tone: 'error', text: 'Google access was not granted. Nothing was connected.' },
  failed: { tone: 'error', text: 'Google did not complete the authorization (the token exchange failed). Try Connect Google again.' },
  forbidden: { tone: 'error', text: 'Connecting a source needs the Owner or Admin role.' },
};

const message = (err: unknown): string => (err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
const labelOf = (s: SourceItem): string => `${PLATFORM_LABELS[s.platform] ?? s.platform} ${s.name}`;

/** The column's name inside a cell, shown only where the rows are cards (below 1100 px); the table's headers name the cells for assistive technology. */
const CardLabel = (props: { children: string }) => (
  <span class="card-label" aria-hidden="true">
    {props.children}
  </span>
);

function ConnectDialog(props: { onClose: () => void; onConnected: (s: SourceItem) => void }) {
  const [platform, setPlatform] = useState<Choice>('trustpilot');
  const [account, setAccount] = useState('');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const spec = PLATFORMS[platform];

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!spec.field) return;
    setBusy(true);
    setError('');
    try {
      const created = await call<SourceItem>('POST', '/sources', { platform, account, ...(name.trim() && { name }), credentials: { [spec.field.name]: secret } });
      setSecret('');
      props.onConnected(created);
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog id="connect-source" title="Connect source" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div class="field">
          <label for="source-platform">Platform</label>
          <select id="source-platform" value={platform} onChange={(e) => setPlatform(e.currentTarget.value as Choice)}>
            {(Object.keys(PLATFORMS) as Choice[]).map((p) => (
              <option key={p} value={p}>
                {PLATFORMS[p].label}
              </option>
            ))}
          </select>
          <p class="hint">Google connects with the Connect Google button on the page.</p>
        </div>
        {spec.field ? (
          <>
            <div class="field">
              <label for="source-account">Account</label>
              <input id="source-account" required autoComplete="off" value={account} onInput={(e) => setAccount(e.currentTarget.value)} aria-describedby="source-account-hint" />
              <p class="hint" id="source-account-hint">
                {spec.account}
              </p>
            </div>
            <div class="field">
              <label for="source-name">Name (optional)</label>
              <input id="source-name" autoComplete="off" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </div>
            <div class="field">
              <label for="source-secret">{spec.field.label}</label>
              <input id="source-secret" type="password" required autoComplete="off" value={secret} onInput={(e) => setSecret(e.currentTarget.value)} aria-describedby="source-secret-hint" />
              <p class="hint" id="source-secret-hint">
                {spec.field.hint} Stored encrypted; never shown again.
              </p>
            </div>
          </>
        ) : (
          <Notice tone="info">
            Capterra has no public reviews API, so it cannot be connected. Export its reviews and import the file on the <a href={PATHS.reviews}>Reviews</a> page.
          </Notice>
        )}
        {error && (
          <Notice tone="error" role="alert">
            {error}
          </Notice>
        )}
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={props.onClose}>
            Cancel
          </button>
          {spec.field && (
            <button type="submit" class="button primary" disabled={busy}>
              Connect
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}

function ReconnectDialog(props: { source: SourceItem; onClose: () => void; onDone: (s: SourceItem) => void }) {
  const spec = PLATFORMS[props.source.platform as Choice]?.field;
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!spec) return;
    setBusy(true);
    setError('');
    try {
      props.onDone(await call<SourceItem>('POST', `/sources/${encodeURIComponent(props.source.id)}/reconnect`, { credentials: { [spec.name]: secret } }));
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog id="reconnect-source" title={`Reconnect ${labelOf(props.source)}`} onClose={props.onClose}>
      <form onSubmit={submit}>
        {spec && (
          <div class="field">
            <label for="reconnect-secret">{afterWord('New', spec.label)}</label>
            <input id="reconnect-secret" type="password" required autoComplete="off" value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
          </div>
        )}
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
            Reconnect
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RemoveDialog(props: { source: SourceItem; onClose: () => void; onRemoved: () => void }) {
  const remove = async () => {
    await call('DELETE', `/sources/${encodeURIComponent(props.source.id)}`);
    props.onRemoved();
  };
  return (
    <ConfirmDialog id="remove-source" title={`Remove ${labelOf(props.source)}?`} label="Remove source" action={remove} onClose={props.onClose}>
      <p>Its schedule stops and its credentials are deleted. The reviews already collected stay.</p>
    </ConfirmDialog>
  );
}

function GoogleLocation(props: { onConnected: (s: SourceItem) => void }) {
  const [listed, setListed] = useState<{ data: { account: string; title: string; accountName: string }[]; error: string | null } | null>(null);
  const [account, setAccount] = useState('');
  useEffect(() => {
    call<NonNullable<typeof listed>>('GET', '/sources/google/locations').then(
      (res) => {
        setListed(res);
        if (res.data[0]) setAccount(res.data[0].account);
      },
      () => setListed({ data: [], error: 'Google did not list the locations: enter the location\'s resource name.' }),
    );
  }, []);
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      props.onConnected(await call<SourceItem>('POST', '/sources/google', { account: account.trim(), ...(name.trim() && { name }) }));
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="section panel" aria-labelledby="google-location-title">
      <h2 id="google-location-title">Choose the Google location</h2>
      <form onSubmit={submit}>
        <div class="field-row">
          {!listed ? (
            <Loading what="your Google locations" />
          ) : listed.data.length > 0 ? (
            <div class="field">
              <label for="google-location">Location</label>
              <select id="google-location" value={account} onChange={(e) => setAccount(e.currentTarget.value)}>
                {listed.data.map((l) => (
                  <option key={l.account} value={l.account}>
                    {l.title} ({l.accountName})
                  </option>
                ))}
              </select>
            </div>
          ) : (
            <div class="field">
              <label for="google-location">Location</label>
              <input id="google-location" required autoComplete="off" placeholder="accounts/123/locations/456" value={account} onInput={(e) => setAccount(e.currentTarget.value)} aria-describedby="google-location-hint" />
              <p class="hint" id="google-location-hint">
                {listed.error ?? 'Google lists no location for this account.'} The resource name is accounts/&#123;account&#125;/locations/&#123;location&#125;.
              </p>
            </div>
          )}
          <div class="field">
            <label for="google-name">Name (optional)</label>
            <input id="google-name" autoComplete="off" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </div>
        </div>
        {error && (
          <Notice tone="error" role="alert">
            {error}
          </Notice>
        )}
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={busy}>
            Connect location
          </button>
        </div>
      </form>
    </section>
  );
}

export function SourcesPage(props: { session: SessionInfo }) {
  const staff = props.session.user!.role !== 'member';
  const [list, setList] = useState<SourceList | null>(null);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [summary, setSummary] = useState<{ label: string; result: SyncSummary } | null>(null);
  const [syncing, setSyncing] = useState<SourceItem | null>(null);
  const [connecting, setConnecting] = useState(false);
  const [reconnecting, setReconnecting] = useState<SourceItem | null>(null);
  const [removing, setRemoving] = useState<SourceItem | null>(null);
  const [outcome] = useState(() => new URLSearchParams(location.search).get('google'));

  const load = () =>
    call<SourceList>('GET', '/sources').then(
      (res) => setList(res),
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the sources.'),
    );
  useEffect(() => {
    // The Google outcome is read once; the address loses it (a reload does not repeat it).
    if (outcome) history.replaceState(null, '', PATHS.sources);
    void load();
  }, []);

  const connectGoogle = async () => {
    setError('');
    try {
      const { authorizationUrl } = await call<{ authorizationUrl: string }>('POST', '/sources/google/start');
      location.assign(authorizationUrl);
    } catch (err) {
      setError(message(err));
    }
  };

  const syncNow = async (source: SourceItem) => {
    setSyncing(source);
    setSummary(null);
    setError('');
    try {
      setSummary({ label: labelOf(source), result: await call<SyncSummary>('POST', `/sources/${encodeURIComponent(source.id)}/sync`) });
    } catch (err) {
      setError(message(err));
    } finally {
      setSyncing(null);
      void load();
    }
  };

  const google = list?.google;
  const googleOutcome = outcome ? GOOGLE_OUTCOMES[outcome] : undefined;
  return (
    <>
      <PageHeader
        title="Sources"
        lead="The review platforms this organization's reviews are collected from, on a schedule."
        actions={
          staff && (
            <>
              <button type="button" class="button primary" onClick={() => setConnecting(true)}>
                Connect source
              </button>
              {google?.configured && (
                <button type="button" class="button secondary" onClick={() => void connectGoogle()}>
                  Connect Google
                </button>
              )}
            </>
          )
        }
      />
      <p class="sr-only" role="status">
        {status}
      </p>
      {status && <Notice tone="success">{status}</Notice>}
      {googleOutcome && (
        <Notice tone={googleOutcome.tone} role={googleOutcome.tone === 'error' ? 'alert' : 'status'}>
          {googleOutcome.text}
        </Notice>
      )}
      {staff && google && !google.configured && (
        <Notice tone="info">Google cannot be connected: the operator has not set up a Google OAuth client (GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET).</Notice>
      )}
      {staff && google?.authorized && (
        <GoogleLocation
          onConnected={(s) => {
            setStatus(`${labelOf(s)} connected.`);
            void load();
          }}
        />
      )}
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {list && (
        <HeldRemovals
          sources={list.data}
          staff={staff}
          onDone={(text) => {
            setStatus(text);
            void load();
          }}
        />
      )}
      {syncing && (
        <div class="notice notice-info" role="status">
          <label for="sync-progress">Syncing {labelOf(syncing)}…</label>
          <progress id="sync-progress" />
        </div>
      )}
      {summary && (
        <Notice tone={summary.result.state === 'active' ? 'success' : 'warning'} role="status">
          Sync of {summary.label} done: {formatNumber(summary.result.fetched)} fetched, {formatNumber(summary.result.created)} created, {formatNumber(summary.result.updated)} updated,{' '}
          {formatNumber(summary.result.removed)} removed, {formatNumber(summary.result.rejected.length)} rejected.
          {summary.result.state === 'needs_reauth' && ' The platform refused the credentials: reconnect the source.'}
          {summary.result.state === 'failing' && ' The sync failed: see the last error.'}
          {summary.result.rejected.length > 0 && (
            <ul class="plain-list">
              {summary.result.rejected.slice(0, 20).map((r) => (
                <li key={r.externalId}>
                  {r.externalId}: {r.reason}
                </li>
              ))}
            </ul>
          )}
        </Notice>
      )}
      {!list && !error && <Loading what="sources" />}
      {list && list.data.length === 0 && <p class="muted">No source is connected yet.{staff ? ' Connect one to collect reviews by itself.' : ''}</p>}
      {list && list.data.length > 0 && (
        <TableWrap label="Sources">
          {/* Below 1100 px each source is drawn as a card (styles.css) so that its actions stay on screen; the explicit roles keep it a table for assistive technology. */}
          <table class="table sources" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Platform</th>
                <th scope="col" role="columnheader">Account</th>
                <th scope="col" role="columnheader">Name</th>
                <th scope="col" role="columnheader">State</th>
                <th scope="col" role="columnheader">Last sync</th>
                <th scope="col" role="columnheader">Next sync</th>
                <th scope="col" role="columnheader">Reviews</th>
                <th scope="col" role="columnheader">Last error</th>
                {staff && (
                  <th scope="col" role="columnheader">
                    <span class="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody role="rowgroup">
              {list.data.map((s) => (
                <tr key={s.id} role="row">
                  <td role="cell" class="strong s-platform">{PLATFORM_LABELS[s.platform] ?? s.platform}</td>
                  <td role="cell" class="break s-account">
                    <CardLabel>Account</CardLabel>
                    {s.account}
                  </td>
                  <td role="cell" class="s-name">
                    <CardLabel>Name</CardLabel>
                    {s.name}
                  </td>
                  <td role="cell" class="s-state">
                    <span class={`badge badge-source-${s.state}`}>{STATE_LABELS[s.state]}</span>
                  </td>
                  <td role="cell" class="nowrap s-last" title={formatDateTime(s.lastSyncAt)}>
                    <CardLabel>Last sync</CardLabel>
                    {formatRelative(s.lastSyncAt)}
                  </td>
                  <td role="cell" class="nowrap s-next" title={formatDateTime(s.nextSyncAt)}>
                    <CardLabel>Next sync</CardLabel>
                    {s.state === 'needs_reauth' || s.state === 'paused' ? 'Not scheduled' : formatRelative(s.nextSyncAt)}
                  </td>
                  <td role="cell" class="num s-count">
                    <CardLabel>Reviews</CardLabel>
                    {formatNumber(s.reviewCount)}
                  </td>
                  <td role="cell" class={`error-text s-error${s.lastError ? '' : ' is-empty'}`}>
                    <CardLabel>Last error</CardLabel>
                    {s.lastError ?? '–'}
                  </td>
                  {staff && (
                    <td role="cell" class="actions s-actions">
                      <button type="button" class="button secondary small" aria-label={`Sync now: ${labelOf(s)}`} disabled={syncing !== null || s.state === 'needs_reauth'} onClick={() => void syncNow(s)}>
                        Sync now
                      </button>{' '}
                      {s.state === 'needs_reauth' &&
                        (s.platform === 'google' ? (
                          google?.configured && (
                            <button type="button" class="button primary small" aria-label={`Reconnect ${labelOf(s)} with Google`} onClick={() => void connectGoogle()}>
                              Reconnect
                            </button>
                          )
                        ) : (
                          <button type="button" class="button primary small" aria-label={`Reconnect ${labelOf(s)}`} onClick={() => setReconnecting(s)}>
                            Reconnect
                          </button>
                        ))}{' '}
                      <button type="button" class="button danger-outline small" aria-label={`Remove ${labelOf(s)}`} onClick={() => setRemoving(s)}>
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {connecting && (
        <ConnectDialog
          onClose={() => setConnecting(false)}
          onConnected={(s) => {
            setConnecting(false);
            setStatus(`${labelOf(s)} connected. Its first sync runs now in the background, or use Sync now.`);
            void load();
          }}
        />
      )}
      {reconnecting && (
        <ReconnectDialog
          source={reconnecting}
          onClose={() => setReconnecting(null)}
          onDone={(s) => {
            setReconnecting(null);
            setStatus(`${labelOf(s)} reconnected.`);
            void load();
          }}
        />
      )}
      {removing && (
        <RemoveDialog
          source={removing}
          onClose={() => setRemoving(null)}
          onRemoved={() => {
            setStatus(`${labelOf(removing)} removed.`);
            setRemoving(null);
            void load();
          }}
        />
      )}
    </>
  );
}
