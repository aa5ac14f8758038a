/**
 * `Add endpoint`: URL, description, event types as checkboxes. The server
 * checks the URL (https:, no private address, the host resolves) and its
 * words appear beside the field they are about. Then the signing secret,
 * once, with Copy: it lives only in this dialog's state.
 */
import { useState } from 'preact/hooks';
import { call, DashboardError, type WebhookCreated, type WebhookEventType } from '../../api.ts';
import { CopyField } from '../../components/copy-field.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { Notice } from '../../components/page.tsx';
import { EVENT_TYPES } from './labels.ts';

/** A server sentence ("the URL must start with https://…") as a sentence of its own. */
const sentence = (text: string): string => {
  const s = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
};

export function FieldError(props: { id: string; text: string | undefined }) {
  return props.text ? (
    <p class="field-error" id={props.id}>
      {sentence(props.text)}
    </p>
  ) : null;
}

/** The secret, once: shown after creation and after rotation. */
export function SecretShown(props: { title: string; label: string; secret: string; lead: string; onClose: () => void }) {
  return (
    <Dialog id="webhook-secret" title={props.title} onClose={props.onClose}>
      <p>{props.lead}</p>
      <CopyField id="webhook-secret-value" label={props.label} value={props.secret} focus />
      <Notice tone="warning" role="alert">
        <strong>Copy this secret now.</strong> It will not be shown again. Receivers verify each delivery's signature with it (any Standard Webhooks library).
      </Notice>
      <div class="dialog-actions">
        <button type="button" class="button primary" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}

export function AddEndpointDialog(props: { onClose: () => void; onCreated: (created: WebhookCreated) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>(EVENT_TYPES.filter((e) => !e.optIn).map((e) => e.type));
  const [error, setError] = useState<DashboardError | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<WebhookCreated | null>(null);

  const toggle = (type: WebhookEventType, on: boolean) => setEvents((list) => (on ? EVENT_TYPES.map((e) => e.type).filter((t) => t === type || list.includes(t)) : list.filter((t) => t !== type)));

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await call<WebhookCreated>('POST', '/webhooks', { url: url.trim(), events, ...(description.trim() && { description: description.trim() }) });
      setCreated(answer);
      props.onCreated(answer);
    } catch (err) {
      const e = err instanceof DashboardError ? err : new DashboardError(0, 'unknown', 'Something went wrong. Try again.');
      setError(e);
      // Back to the field the server named, so the person hears why and can fix it.
      const first = ['url', 'description', 'events'].find((f) => e.details[f]);
      if (first) requestAnimationFrame(() => (document.getElementById(first === 'events' ? 'webhook-event-review.created' : `webhook-${first}`) as HTMLElement | null)?.focus());
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <SecretShown
        title="Endpoint added"
        label="Signing secret"
        secret={created.secret}
        lead={`Events now go to ${created.url}. Give the receiver this signing secret.`}
        onClose={props.onClose}
      />
    );
  }

  const fieldProblem = (name: string) => error?.details[name];
  // A problem the form shows by no field of its own (the session, the network, …): one notice.
  const general = error && !['url', 'description', 'events'].some((f) => error.details[f]) ? error.message : '';
  return (
    <Dialog id="add-endpoint" title="Add endpoint" onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="webhook-url">URL</label>
          <input
            id="webhook-url"
            type="text"
            inputMode="url"
            required
            maxLength={2000}
            autoComplete="off"
            spellcheck={false}
            placeholder="https://example.com/webhooks/reviews"
            aria-describedby={fieldProblem('url') ? 'webhook-url-error webhook-url-hint' : 'webhook-url-hint'}
            aria-invalid={fieldProblem('url') ? 'true' : undefined}
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <FieldError id="webhook-url-error" text={fieldProblem('url')} />
          <p class="hint" id="webhook-url-hint">
            An https:// address on the internet. Addresses in private networks are refused.
          </p>
        </div>
        <div class="field">
          <label for="webhook-description">Description (optional)</label>
          <input
            id="webhook-description"
            type="text"
            maxLength={500}
            autoComplete="off"
            aria-describedby={fieldProblem('description') ? 'webhook-description-error' : undefined}
            aria-invalid={fieldProblem('description') ? 'true' : undefined}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <FieldError id="webhook-description-error" text={fieldProblem('description')} />
        </div>
        <fieldset class="choices" aria-describedby={fieldProblem('events') ? 'webhook-events-error' : undefined}>
          <legend>Event types</legend>
          {EVENT_TYPES.map((e) => (
            <label class="choice" key={e.type} for={`webhook-event-${e.type}`}>
              <input id={`webhook-event-${e.type}`} type="checkbox" checked={events.includes(e.type)} onChange={(ev) => toggle(e.type, ev.currentTarget.checked)} />
              <span>
                <span class="mono">{e.type}</span>
                <span class="hint">{e.hint}</span>
              </span>
            </label>
          ))}
          <FieldError id="webhook-events-error" text={fieldProblem('events') && events.length === 0 ? 'choose at least one event type' : fieldProblem('events')} />
        </fieldset>
        {general && (
          <Notice tone="error" role="alert">
            {general}
          </Notice>
        )}
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add endpoint'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
