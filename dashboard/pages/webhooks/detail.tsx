/**
 * One endpoint (/dashboard/webhooks/{id}): what it receives and its state,
 * why the service disabled it when it did, `Send test event`, `Rotate secret`
 * (the new secret once), `Disable`/`Enable`, `Remove` (confirmed), and the
 * delivery log (type, status, attempts, last status code, next attempt) with
 * `Replay`. While a delivery is pending the log refreshes itself.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type WebhookDelivery, type WebhookEndpoint } from '../../api.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { formatDateTime, formatNumber, formatRelative } from '../../format.ts';
import { navigate, onLinkClick, PATHS } from '../../router.ts';
import { SecretShown } from './add-dialog.tsx';
import { DELIVERY_STATUS_LABELS, disabledByService, endpointName, stateOf } from './labels.ts';

const message = (err: unknown): string => (err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
const path = (id: string, rest = '') => `/webhooks/${encodeURIComponent(id)}${rest}`;
/** How often the log is read again while something in it is pending. */
const REFRESH_MS = 2000;

function RotateDialog(props: { endpoint: WebhookEndpoint; onClose: () => void; onRotated: () => void }) {
  const [secret, setSecret] = useState<string | null>(null);
  const rotate = async () => {
    setSecret((await call<{ id: string; secret: string }>('POST', path(props.endpoint.id, '/rotate-secret'))).secret);
    props.onRotated();
  };
  if (secret) {
    return <SecretShown title="Secret rotated" label="New signing secret" secret={secret} lead="For the next 24 hours deliveries carry two signatures, one with the old secret and one with this one: deploy it to the receiver within that time." onClose={props.onClose} />;
  }
  return (
    <ConfirmDialog id="rotate-secret" title="Rotate the signing secret?" label="Rotate secret" tone="primary" action={rotate} onClose={props.onClose}>
      <p>A new secret signs every delivery from now on. The old one also signs for 24 hours, so the receiver keeps verifying while you deploy the new one.</p>
    </ConfirmDialog>
  );
}

function RemoveDialog(props: { endpoint: WebhookEndpoint; onClose: () => void; onRemoved: () => void }) {
  const remove = async () => {
    await call('DELETE', path(props.endpoint.id));
    props.onRemoved();
  };
  return (
    <ConfirmDialog id="remove-endpoint" title={`Remove ${endpointName(props.endpoint)}?`} label="Remove endpoint" action={remove} onClose={props.onClose}>
      <p>
        Nothing more is sent to <span class="mono break">{props.endpoint.url}</span>, and its delivery log is deleted. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

/** `disabled`: nothing is sent until the endpoint is enabled again, whatever a pending delivery's due time says. */
function DeliveryLog(props: { deliveries: WebhookDelivery[]; disabled: boolean; onReplay: (d: WebhookDelivery) => void; busy: string | null }) {
  if (props.deliveries.length === 0) return <p class="empty card">Nothing sent yet. Send a test event, or wait for a review to arrive.</p>;
  return (
    <div class="table-wrap" role="region" aria-label="Delivery log" tabIndex={0}>
      <table class="table deliveries">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last status code</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Next attempt</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.deliveries.map((d) => (
            <tr key={d.id}>
              <td class="d-type">
                <span class="mono strong">{d.type}</span>
                <span class="mono muted d-id">{d.id}</span>
              </td>
              <td class="d-status">
                <span class={`badge badge-delivery-${d.status}`}>{DELIVERY_STATUS_LABELS[d.status]}</span>
              </td>
              <td class="d-attempts num">
                <span class="d-label">
                  Attempts{' '}
                </span>
                {formatNumber(d.attempts)}
              </td>
              <td class="d-code">
                <span class="d-label">
                  Last status code{' '}
                </span>
                {d.lastStatusCode ?? '–'}
                {d.lastError && d.status !== 'delivered' && !/^HTTP \d+$/.test(d.lastError) && <span class="d-error">{d.lastError}</span>}
              </td>
              <td class="d-last nowrap" title={formatDateTime(d.lastAttemptAt)}>
                <span class="d-label">
                  Last attempt{' '}
                </span>
                {formatRelative(d.lastAttemptAt)}
              </td>
              <td class="d-next nowrap" title={d.nextAttemptAt ? formatDateTime(d.nextAttemptAt) : undefined}>
                <span class="d-label">
                  Next attempt{' '}
                </span>
                {d.status === 'pending' && (props.disabled || !d.nextAttemptAt) ? 'When enabled' : d.nextAttemptAt ? formatRelative(d.nextAttemptAt) : '–'}
              </td>
              <td class="actions">
                <button type="button" class="button secondary small" aria-label={`Replay ${d.type} ${d.id}`} disabled={props.busy !== null} onClick={() => props.onReplay(d)}>
                  Replay
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function WebhookDetail(props: { id: string }) {
  const [endpoint, setEndpoint] = useState<WebhookEndpoint | null>(null);
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | null>(null);
  const [error, setError] = useState('');
  const [status, setStatus] = useState<{ tone: 'success' | 'warning' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [dialog, setDialog] = useState<'rotate' | 'remove' | null>(null);

  const load = async () => {
    try {
      const [e, log] = await Promise.all([call<WebhookEndpoint>('GET', path(props.id)), call<{ data: WebhookDelivery[] }>('GET', path(props.id, '/deliveries'))]);
      setEndpoint(e);
      setDeliveries(log.data);
    } catch (err) {
      setError(message(err));
    }
  };
  useEffect(() => {
    void load();
  }, [props.id]);
  // Something pending (a replay, a retry due soon) on an enabled endpoint: read the log again until it settles.
  const pending = endpoint?.state === 'enabled' && (deliveries?.some((d) => d.status === 'pending' && d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) - Date.now() < 60_000) ?? false);
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [pending, props.id]);

  const act = async (what: string, run: () => Promise<{ tone: 'success' | 'warning' | 'error'; text: string }>) => {
    setBusy(what);
    setStatus(null);
    try {
      setStatus(await run());
    } catch (err) {
      setStatus({ tone: 'error', text: message(err) });
    } finally {
      setBusy(null);
      await load();
    }
  };

  const sendTest = () =>
    act('test', async () => {
      const r = await call<{ id: string; status: string; statusCode: number | null }>('POST', path(props.id, '/test'));
      if (r.status === 'delivered') return { tone: 'success', text: `Test event delivered: the endpoint answered ${r.statusCode}.` };
      return { tone: 'warning', text: `The test event was not delivered: ${r.statusCode === null ? 'the endpoint could not be reached (the log says why)' : `the endpoint answered ${r.statusCode}`}.` };
    });
  const replay = (d: WebhookDelivery) =>
    act('replay', async () => {
      await call('POST', path(props.id, `/deliveries/${encodeURIComponent(d.id)}/replay`));
      return { tone: 'success', text: `${d.type} ${d.id} is sent again, under the same webhook-id.` };
    });
  const setState = (next: 'enable' | 'disable') =>
    act(next, async () => {
      await call('POST', path(props.id, `/${next}`));
      return { tone: 'success', text: next === 'enable' ? 'Endpoint enabled: what was pending is sent now.' : 'Endpoint disabled: nothing is sent to it until you enable it again.' };
    });

  if (error && !endpoint) {
    return (
      <>
        <BackLink />
        <PageHeader title="Webhook endpoint" />
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      </>
    );
  }
  if (!endpoint || !deliveries) return <Loading what="the endpoint" />;
  const state = stateOf(endpoint);
  const serviceReason = disabledByService(endpoint);
  return (
    <>
      <BackLink />
      <PageHeader title="Webhook endpoint" lead={<span class="mono break">{endpoint.url}</span>} />
      {serviceReason && (
        <Notice tone="warning">
          <strong>The service disabled this endpoint:</strong> {serviceReason}. Nothing is sent to it until you enable it again; what is pending is sent then.
        </Notice>
      )}
      {endpoint.state === 'disabled' && !serviceReason && <Notice tone="info">This endpoint is disabled: nothing is sent to it until you enable it again.</Notice>}
      {endpoint.state === 'enabled' && endpoint.failingSince && (
        <Notice tone="warning">Every delivery has failed since {formatDateTime(endpoint.failingSince)}. After 5 days of failures the service disables the endpoint.</Notice>
      )}
      <p class="sr-only" role="status">
        {status?.text ?? ''}
      </p>
      {status && <Notice tone={status.tone}>{status.text}</Notice>}
      <section class="card hook-summary" aria-labelledby="hook-summary-title">
        <h2 id="hook-summary-title" class="sr-only">
          Endpoint
        </h2>
        <dl class="facts">
          <div>
            <dt>State</dt>
            <dd>
              <span class={`badge ${state.badge}`}>{state.label}</span>
            </dd>
          </div>
          <div>
            <dt>Description</dt>
            <dd>{endpoint.description || <span class="muted">None</span>}</dd>
          </div>
          <div>
            <dt>Event types</dt>
            <dd class="mono">{endpoint.events.join(', ')}</dd>
          </div>
          <div>
            <dt>Last delivery</dt>
            <dd title={endpoint.lastDeliveryAt ? formatDateTime(endpoint.lastDeliveryAt) : undefined}>{formatRelative(endpoint.lastDeliveryAt, 'None yet')}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDateTime(endpoint.createdAt)}</dd>
          </div>
        </dl>
        <div class="hook-actions">
          <button type="button" class="button primary" disabled={busy !== null} onClick={() => void sendTest()}>
            {busy === 'test' ? 'Sending…' : 'Send test event'}
          </button>
          <button type="button" class="button secondary" disabled={busy !== null} onClick={() => setDialog('rotate')}>
            Rotate secret
          </button>
          {endpoint.state === 'enabled' ? (
            <button type="button" class="button secondary" disabled={busy !== null} onClick={() => void setState('disable')}>
              Disable
            </button>
          ) : (
            <button type="button" class="button secondary" disabled={busy !== null} onClick={() => void setState('enable')}>
              Enable
            </button>
          )}
          <button type="button" class="button danger-outline" disabled={busy !== null} onClick={() => setDialog('remove')}>
            Remove
          </button>
        </div>
      </section>
      <div class="section">
        <div class="section-head">
          <h2 id="delivery-log-title">Delivery log</h2>
          <button type="button" class="button secondary small" onClick={() => void load()}>
            Refresh
          </button>
        </div>
        <DeliveryLog deliveries={deliveries} disabled={endpoint.state === 'disabled'} busy={busy} onReplay={(d) => void replay(d)} />
      </div>
      {dialog === 'rotate' && <RotateDialog endpoint={endpoint} onClose={() => setDialog(null)} onRotated={() => void load()} />}
      {dialog === 'remove' && (
        <RemoveDialog
          endpoint={endpoint}
          onClose={() => setDialog(null)}
          onRemoved={() => {
            setDialog(null);
            navigate(`${PATHS.webhooks}?removed=${encodeURIComponent(endpointName(endpoint))}`);
          }}
        />
      )}
    </>
  );
}

function BackLink() {
  return (
    <a class="back-link" href={PATHS.webhooks} onClick={(e) => onLinkClick(e as unknown as MouseEvent, PATHS.webhooks)}>
      ← Webhooks
    </a>
  );
}
