/**
 * Webhooks (CONTRACT §12; Owner and Admin): the endpoints this organization's
 * events are POSTed to, with their state and last delivery, and a notice for
 * each one the service disabled (410 Gone, 5 days of failures) saying why.
 * `Add endpoint` opens the form, then shows the signing secret once. An
 * endpoint's own view (/dashboard/webhooks/{id}, detail.tsx) holds its
 * delivery log and actions. Below 720 px each endpoint is a card.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type SessionInfo, type WebhookEndpoint } from '../../api.ts';
import { Loading, Notice, PageHeader } from '../../components/page.tsx';
import { formatDateTime, formatRelative } from '../../format.ts';
import { onLinkClick, PATHS } from '../../router.ts';
import { AddEndpointDialog } from './add-dialog.tsx';
import { WebhookDetail } from './detail.tsx';
import { disabledByService, endpointName, stateOf } from './labels.ts';

const detailPath = (id: string) => `${PATHS.webhooks}/${encodeURIComponent(id)}`;

function EndpointLink(props: { endpoint: WebhookEndpoint }) {
  const href = detailPath(props.endpoint.id);
  return (
    <a class="mono break" href={href} onClick={(e) => onLinkClick(e as unknown as MouseEvent, href)}>
      {props.endpoint.url}
    </a>
  );
}

function EndpointList(props: { endpoints: WebhookEndpoint[] }) {
  return (
    <div class="table-wrap" role="region" aria-label="Endpoints" tabIndex={0}>
      <table class="table hooks">
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Event types</th>
            <th scope="col">State</th>
            <th scope="col">Last delivery</th>
          </tr>
        </thead>
        <tbody>
          {props.endpoints.map((e) => {
            const state = stateOf(e);
            return (
              <tr key={e.id}>
                <td class="h-url">
                  <EndpointLink endpoint={e} />
                  {e.description && <span class="h-desc">{e.description}</span>}
                </td>
                <td class="h-events mono">{e.events.join(', ')}</td>
                <td class="h-state">
                  <span class={`badge ${state.badge}`}>{state.label}</span>
                  {e.state === 'enabled' && e.failingSince && <span class="h-note">since {formatRelative(e.failingSince)}</span>}
                </td>
                <td class="h-last nowrap" title={e.lastDeliveryAt ? formatDateTime(e.lastDeliveryAt) : undefined}>
                  <span class="d-label">Last delivery </span>
                  {formatRelative(e.lastDeliveryAt, 'None yet')}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function EndpointsPage() {
  const [list, setList] = useState<WebhookEndpoint[] | null>(null);
  const [error, setError] = useState('');
  const [adding, setAdding] = useState(false);
  const [status, setStatus] = useState('');

  const load = () =>
    call<{ data: WebhookEndpoint[] }>('GET', '/webhooks').then(
      (res) => setList(res.data),
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the endpoints.'),
    );
  useEffect(() => {
    // Back from a removed endpoint's view: say so once; the address loses it.
    const removed = new URLSearchParams(location.search).get('removed');
    if (removed) {
      setStatus(`${removed} removed.`);
      history.replaceState(null, '', PATHS.webhooks);
    }
    void load();
  }, []);

  const disabled = (list ?? []).map((e) => ({ e, why: disabledByService(e) })).filter((d) => d.why !== null);
  return (
    <>
      <PageHeader
        title="Webhooks"
        lead="Tell your other systems at once when a review arrives, changes or is removed: each event is POSTed to your endpoints, signed (Standard Webhooks)."
        actions={
          <button type="button" class="button primary" onClick={() => setAdding(true)}>
            Add endpoint
          </button>
        }
      />
      <p class="sr-only" role="status">
        {status}
      </p>
      {status && <Notice tone="success">{status}</Notice>}
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {disabled.map(({ e, why }) => (
        <Notice tone="warning" key={e.id}>
          <strong>The service disabled {endpointName(e)}:</strong> {why}. Fix the receiver, then open{' '}
          <a href={detailPath(e.id)} onClick={(ev) => onLinkClick(ev as unknown as MouseEvent, detailPath(e.id))}>
            {endpointName(e)}
          </a>{' '}
          and enable it.
        </Notice>
      ))}
      {!list && !error && <Loading what="endpoints" />}
      {list && list.length === 0 && <p class="empty card">No endpoint yet. Add one to have new, changed and removed reviews sent to it as they happen.</p>}
      {list && list.length > 0 && <EndpointList endpoints={list} />}
      {adding && (
        <AddEndpointDialog
          onClose={() => setAdding(false)}
          onCreated={(created) => {
            setStatus(`${endpointName(created)} added.`);
            void load();
          }}
        />
      )}
    </>
  );
}

export function WebhooksPage(props: { session: SessionInfo; id: string | null }) {
  if (props.session.user!.role === 'member') {
    return (
      <>
        <PageHeader title="Webhooks" />
        <Notice tone="info" role="status">
          Webhooks are managed by people with the <strong>Owner</strong> or <strong>Admin</strong> role. Ask an Owner of {props.session.org!.name} if you need one.
        </Notice>
      </>
    );
  }
  return props.id ? <WebhookDetail id={props.id} /> : <EndpointsPage />;
}
