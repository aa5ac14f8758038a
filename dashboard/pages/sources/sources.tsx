/**
 * Sources: the platforms this organization's reviews are collected from, on a
 * schedule (CONTRACT §11). Everyone sees the list; Owners and Admins connect
 * (per platform the fields it needs; Google by OAuth, then the location),
 * sync now, run a full sync, reconnect a source whose authorization failed,
 * and remove one. Credentials go to the server in the request body and are
 * never shown back; the server proves them with the platform before keeping
 * them, so "connected" and "reconnected" mean the platform accepted them.
 * Every sync's outcome is said in words: the one just run, the first one after
 * connecting (the page follows it until it ends), and the last one of each
 * source after a reload (`lastResult`).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo, type SourceAttention, type SourceItem, type SourceList, type SyncResult, type SyncSummary } from '../../api.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { Loading, Notice, PageHeader, TableWrap } from '../../components/page.tsx';
import { formatDateTime, formatNumber, formatRelative } from '../../format.ts';
import { afterWord } from './after-word.ts';
import { PATHS } from '../../router.ts';
import { HeldRemovals } from './held-removals.tsx';

/** The sources that need a person, to the navigation's badge (components/source-attention.ts listens; this chunk imports nothing from there). */
const publish = (items: SourceAttention[]): boolean => dispatchEvent(new CustomEvent('rp:attention', { detail: items }));

const PLATFORM_LABELS: Record<string, string> = { google: 'Google', trustpilot: 'Trustpilot', yelp: 'Yelp', facebook: 'Facebook', g2: 'G2' };

type Choice = 'trustpilot' | 'yelp' | 'facebook' | 'g2' | 'capterra';

/** Per platform: its label and the credential field it needs (null: no API). */
const PLATFORMS: Record<Choice, { label: string; field: { name: string; label: string; hint: string } | null; account: string }> = {
  trustpilot: { label: 'Trustpilot', field: { name: 'apiKey', label: 'API key', hint: 'Your Trustpilot API key (Trustpilot Business, API access).' }, account: 'The business unit id.' },
  yelp: { label: 'Yelp', field: { name: 'apiKey', label: 'API key', hint: 'A Yelp Fusion API key. Yelp shows at most 3 review excerpts.' }, account: 'The business id or alias.' },
  facebook: { label: 'Facebook', field: { name: 'pageAccessToken', label: 'Page access token', hint: 'A long-lived Page access token with pages_read_user_content.' }, account: 'The Page id.' },
  g2: { label: 'G2', field: { name: 'apiToken', label: 'API token', hint: 'A G2 API token (data.g2.com).' }, account: 'The product id.' },
  capterra: { label: 'Capterra', field: null, account: '' },
};

/**
 * Trustpilot's optional fields (CONTRACT §15): without them the source reads reviews; with both, replies
 * are posted from here (the application's secret for a business-user token, and the user posting them).
 */
const REPLY_FIELDS: Partial<Record<Choice, { name: string; label: string; words: string; secret: boolean }[]>> = {
  trustpilot: [
    { name: 'apiSecret', label: 'API secret', words: 'API secret', secret: true },
    { name: 'businessUserId', label: 'Business user id', words: 'business user id', secret: false },
  ],
};
const REPLY_HINT = 'Optional: both are needed to reply to reviews from here (a Trustpilot plan with the API module). Without them the source only collects reviews.';

/** "Add the API secret and business user id to reply from here", from the names the server says are missing. */
function replyMissingText(platform: string, missing: readonly string[]): string {
  const words = missing.map((m) => REPLY_FIELDS[platform as Choice]?.find((f) => f.name === m)?.words ?? m);
  return `Add the ${words.join(' and ')} to reply from here.`;
}

/** The reply fields of a platform, for the connect and reconnect forms: optional, each kept only when filled in. */
function ReplyFields(props: { platform: Choice; prefix: string; values: Record<string, string>; onChange: (values: Record<string, string>) => void }) {
  const fields = REPLY_FIELDS[props.platform];
  if (!fields) return null;
  return (
    <fieldset class="subgroup" aria-describedby={`${props.prefix}-reply-hint`}>
      <legend>Replies</legend>
      <p class="hint" id={`${props.prefix}-reply-hint`}>
        {REPLY_HINT} The secret is stored encrypted and never shown again.
      </p>
      {fields.map((f) => (
        <div class="field" key={f.name}>
          <label for={`${props.prefix}-${f.name}`}>{f.label} (optional)</label>
          <input
            id={`${props.prefix}-${f.name}`}
            type={f.secret ? 'password' : 'text'}
            autoComplete="off"
            value={props.values[f.name] ?? ''}
            onInput={(e) => props.onChange({ ...props.values, [f.name]: e.currentTarget.value })}
          />
        </div>
      ))}
    </fieldset>
  );
}

/** The filled-in reply fields, trimmed (an id pasted with a space is still the id); empty ones left out. */
const filled = (values: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, v.trim()]));

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

/** What a sync was: the first one after connecting, the one after reconnecting, Sync now, or Full sync. */
type SyncKind = 'first' | 'reconnected' | 'sync' | 'full';

interface Outcome {
  label: string;
  kind: SyncKind;
  result: SyncResult;
  /** From the summary of a sync run here (the stored result keeps the count only). */
  rejected: SyncSummary['rejected'];
}

/** The counts of a sync that ended well, as a sentence's end. */
const counts = (r: SyncResult): string =>
  `${formatNumber(r.fetched)} fetched, ${formatNumber(r.created)} created, ${formatNumber(r.updated)} updated, ${formatNumber(r.removed)} removed, ${formatNumber(r.rejected)} rejected.`;

/** A message as a sentence: its own full stop, never two. */
const sentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/** A sync's outcome in words, and how it looks: a failure never reads as a success. */
function outcomeNotice(o: Outcome): { tone: 'success' | 'warning' | 'error'; text: string } {
  const what = o.kind === 'first' ? `First sync of ${o.label}` : o.kind === 'full' ? `Full sync of ${o.label}` : o.kind === 'reconnected' ? `Sync of ${o.label} after reconnecting` : `Sync of ${o.label}`;
  const r = o.result;
  if (r.outcome === 'succeeded') return { tone: 'success', text: `${what} done: ${counts(r)}` };
  if (r.outcome === 'refused') return { tone: 'warning', text: `${what} failed: ${sentence(r.error ?? 'the platform refused the credentials')}` };
  const kept = r.created + r.updated > 0 ? ` What it stored before it stopped stays (${formatNumber(r.created)} created, ${formatNumber(r.updated)} updated); nothing was removed.` : ' Nothing was removed.';
  return { tone: 'error', text: `${what} failed: ${sentence(r.error ?? 'the platform did not answer as expected')}${kept}` };
}

/** The last sync's result in a few words, under its time in the Last sync column. */
function resultLine(r: SyncResult): string {
  if (r.outcome === 'refused') return 'Failed: credentials refused';
  if (r.outcome === 'failed') return 'Failed: see the last error';
  const rejected = r.rejected > 0 ? `, ${formatNumber(r.rejected)} rejected` : '';
  return `${r.full ? 'Full sync: ' : ''}${formatNumber(r.created)} created, ${formatNumber(r.updated)} updated, ${formatNumber(r.removed)} removed${rejected}`;
}

/** The schedule exactly as the CLI's `nextSyncAt` says it: none while the source waits for a person. */
function nextSync(s: SourceItem, now = Date.now()): string {
  if (s.nextSyncAt === null) return s.state === 'needs_reauth' ? 'After reconnecting' : 'Not scheduled';
  return Date.parse(s.nextSyncAt) <= now ? 'Due now' : formatRelative(s.nextSyncAt, 'Not scheduled', now);
}

/** The result of a sync from its summary alone (when the source's stored one was not this sync's). */
const fromSummary = (summary: SyncSummary, full: boolean): SyncResult => ({
  at: new Date().toISOString(),
  full,
  outcome: summary.state === 'needs_reauth' ? 'refused' : 'succeeded',
  fetched: summary.fetched,
  created: summary.created,
  updated: summary.updated,
  removed: summary.removed,
  rejected: summary.rejected.length,
  error: null,
});

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
  const [replyValues, setReplyValues] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const spec = PLATFORMS[platform];

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!spec.field) return;
    setBusy(true);
    setError('');
    try {
      const extra = REPLY_FIELDS[platform] ? filled(replyValues) : {};
      const created = await call<SourceItem>('POST', '/sources', { platform, account, ...(name.trim() && { name }), credentials: { [spec.field.name]: secret, ...extra } });
      setSecret('');
      setReplyValues({});
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
            <ReplyFields platform={platform} prefix="source" values={replyValues} onChange={setReplyValues} />
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
  const [replyValues, setReplyValues] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!spec) return;
    setBusy(true);
    setError('');
    try {
      const extra = REPLY_FIELDS[props.source.platform as Choice] ? filled(replyValues) : {};
      props.onDone(await call<SourceItem>('POST', `/sources/${encodeURIComponent(props.source.id)}/reconnect`, { credentials: { [spec.name]: secret, ...extra } }));
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
        <ReplyFields platform={props.source.platform as Choice} prefix="reconnect" values={replyValues} onChange={setReplyValues} />
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

/**
 * The location to connect after Google's consent: each location of a chain is a source of its own,
 * named after its Google title unless a name is typed; an already connected one is marked (choosing
 * it again reconnects that source).
 */
function GoogleLocation(props: { connected: string[]; onConnected: (s: SourceItem) => void }) {
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
      // Named after the location's title on Google when no name is typed (several locations are told apart by it).
      const title = listed?.data.find((l) => l.account === account)?.title ?? '';
      const chosen = name.trim() || title.trim();
      props.onConnected(await call<SourceItem>('POST', '/sources/google', { account: account.trim(), ...(chosen && { name: chosen }) }));
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
                    {l.title} ({l.accountName}){props.connected.includes(l.account) ? ' – connected' : ''}
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
            <input id="google-name" autoComplete="off" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} aria-describedby={listed?.data.length ? 'google-name-hint' : undefined} />
            {listed && listed.data.length > 0 && (
              <p class="hint" id="google-name-hint">
                Empty: the location's name on Google.
              </p>
            )}
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
  const [synced, setSynced] = useState<Outcome | null>(null);
  const [syncing, setSyncing] = useState<{ source: SourceItem; full: boolean } | null>(null);
  /** Sources whose first sync (after connecting or reconnecting) the page is following. */
  const [following, setFollowing] = useState<string[]>([]);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const [connecting, setConnecting] = useState(false);
  const [reconnecting, setReconnecting] = useState<SourceItem | null>(null);
  const [removing, setRemoving] = useState<SourceItem | null>(null);
  const [outcome] = useState(() => new URLSearchParams(location.search).get('google'));

  const load = (): Promise<SourceList | null> =>
    call<SourceList>('GET', '/sources').then(
      (res) => {
        setList(res);
        // The navigation's badge and the Overview follow this list at once (a reconnect clears them): components/source-attention.ts.
        publish(res.data.filter((s) => s.state === 'needs_reauth' || s.state === 'failing').map((s) => ({ id: s.id, platform: s.platform, name: s.name, state: s.state as 'needs_reauth' | 'failing', lastError: s.lastError })));
        return res;
      },
      (err: unknown) => {
        setError(err instanceof DashboardError ? err.message : 'Could not load the sources.');
        return null;
      },
    );

  /**
   * The sync the server started at once after a connect or reconnect: the list is read again (every
   * half second, then every 2 s; a few minutes at most) until the source holds a result newer than
   * `before`, which is then said in words.
   */
  const follow = async (source: SourceItem, before: string | null, said: string, kind: SyncKind = 'first') => {
    const running = `${said} ${kind === 'first' ? 'Its first sync is' : 'A sync is'} running; its result shows here when it ends.`;
    setStatus(running);
    setFollowing((f) => [...f, source.id]);
    try {
      for (let i = 0; i < 150 && mounted.current; i++) {
        await new Promise((r) => setTimeout(r, i < 10 ? 500 : 2000));
        const fresh = (await load())?.data.find((x) => x.id === source.id);
        if (!fresh) return;
        if (fresh.lastResult && fresh.lastResult.at !== before) {
          if (!mounted.current) return;
          setSynced({ label: labelOf(fresh), kind, result: fresh.lastResult, rejected: [] });
          // "running" is no longer true: the status keeps what happened.
          setStatus((st) => (st === running ? said : st));
          return;
        }
      }
    } finally {
      if (mounted.current) setFollowing((f) => f.filter((id) => id !== source.id));
    }
  };
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

  const runSync = async (source: SourceItem, full: boolean) => {
    setSyncing({ source, full });
    setSynced(null);
    setError('');
    try {
      const summary = await call<SyncSummary>('POST', `/sources/${encodeURIComponent(source.id)}/sync${full ? '?full=true' : ''}`);
      // The words come from the result the sync kept on the source (a failure's reason is there, not in the summary).
      const fresh = (await load())?.data.find((x) => x.id === source.id);
      const result = fresh?.lastResult && fresh.lastResult.at !== source.lastResult?.at ? fresh.lastResult : fromSummary(summary, full);
      setSynced({ label: labelOf(source), kind: full ? 'full' : 'sync', result, rejected: summary.rejected });
    } catch (err) {
      setError(message(err));
      void load();
    } finally {
      setSyncing(null);
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
          connected={(list?.data ?? []).filter((s) => s.platform === 'google').map((s) => s.account)}
          onConnected={(s) => {
            // The same location again is a reconnect (the server answers the source it had).
            const had = list?.data.find((x) => x.id === s.id);
            setSynced(null);
            void load();
            void follow(s, had?.lastResult?.at ?? null, `${labelOf(s)} ${had ? 'reconnected' : 'connected'}: Google accepted the authorization.`, had ? 'reconnected' : 'first');
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
          <label for="sync-progress">
            {syncing.full ? 'Full sync of' : 'Syncing'} {labelOf(syncing.source)}…
          </label>
          <progress id="sync-progress" />
        </div>
      )}
      {synced && (
        <Notice tone={outcomeNotice(synced).tone} role={outcomeNotice(synced).tone === 'success' ? 'status' : 'alert'}>
          {outcomeNotice(synced).text}
          {synced.rejected.length > 0 && (
            <ul class="plain-list">
              {synced.rejected.slice(0, 20).map((r) => (
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
                    {s.replyMissing.length > 0 && <span class="sync-result reply-missing">{replyMissingText(s.platform, s.replyMissing)}</span>}
                  </td>
                  <td role="cell" class="s-state">
                    <span class={`badge badge-source-${s.state}`}>{STATE_LABELS[s.state]}</span>
                  </td>
                  <td role="cell" class="s-last" title={formatDateTime(s.lastSyncAt)}>
                    <CardLabel>Last sync</CardLabel>
                    <span class="nowrap">{s.lastSyncAt === null && (s.state === 'active' || following.includes(s.id)) ? 'First sync running…' : formatRelative(s.lastSyncAt)}</span>
                    {s.lastResult && <span class={`sync-result sync-${s.lastResult.outcome}`}>{resultLine(s.lastResult)}</span>}
                  </td>
                  <td role="cell" class="s-next" title={formatDateTime(s.nextSyncAt, 'Not scheduled')}>
                    <CardLabel>Next sync</CardLabel>
                    {nextSync(s)}
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
                      <button type="button" class="button secondary small" aria-label={`Sync now: ${labelOf(s)}`} disabled={syncing !== null || s.state === 'needs_reauth'} onClick={() => void runSync(s, false)}>
                        Sync now
                      </button>{' '}
                      {/* Yelp lists 3 excerpts and never removes: a full pass would add nothing. */}
                      {s.platform !== 'yelp' && (
                        <>
                          <button type="button" class="button secondary small" aria-label={`Full sync: ${labelOf(s)}`} title="Reads every page and removes the reviews the platform no longer lists" disabled={syncing !== null || s.state === 'needs_reauth'} onClick={() => void runSync(s, true)}>
                            Full sync
                          </button>{' '}
                        </>
                      )}
                      {/* A read-only Trustpilot source gains its reply fields by reconnecting. */}
                      {(s.state === 'needs_reauth' || (s.replyMissing.length > 0 && s.platform !== 'google')) &&
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
            setSynced(null);
            void load();
            void follow(s, null, `${labelOf(s)} connected: ${PLATFORM_LABELS[s.platform] ?? s.platform} accepted the ${PLATFORMS[s.platform as Choice]?.field?.label ?? 'credentials'}.`);
          }}
        />
      )}
      {reconnecting && (
        <ReconnectDialog
          source={reconnecting}
          onClose={() => setReconnecting(null)}
          onDone={(s) => {
            const before = reconnecting.lastResult?.at ?? null;
            setReconnecting(null);
            setSynced(null);
            void load();
            void follow(s, before, `${labelOf(s)} reconnected: ${PLATFORM_LABELS[s.platform] ?? s.platform} accepted the new ${PLATFORMS[s.platform as Choice]?.field?.label ?? 'credentials'}.`, 'reconnected');
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
