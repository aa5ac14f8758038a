/**
 * Collect, second half (CONTRACT §14): review invitations. The list with a
 * state filter that shows the counts, pages of 20, Cancel (asked first),
 * conversion over 30 and 90 days with what it counts, the settings (delay,
 * reminder, default language, sender name) and the mail's preview in each
 * language (the HTML in a sandboxed frame, and its plain text). Without a
 * mail relay the page says invitations are `unsent` links and how to set
 * one up. The dashboard is the one place an invitee's address is shown.
 * Owner and Admin cancel and change the settings; a Member reads.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError } from '../../api.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Loading, Notice } from '../../components/page.tsx';
import { formatDateTime, formatNumber } from '../../format.ts';
import { languageName, MAIL_LANGUAGES } from './mail-languages.ts';

const PAGE_SIZE = 20;
/** The longest delay the server takes (api/store/collect-types.ts MAX_INVITATION_DELAY_DAYS). */
const MAX_DELAY_DAYS = 60;

export const STATES = ['scheduled', 'sent', 'reminded', 'reviewed', 'failed', 'skipped', 'expired', 'cancelled', 'unsent'] as const;
type State = (typeof STATES)[number];
const STATE_WORDS: Record<State, string> = {
  scheduled: 'Scheduled',
  sent: 'Sent',
  reminded: 'Reminded',
  reviewed: 'Reviewed',
  failed: 'Failed',
  skipped: 'Skipped',
  expired: 'Expired',
  cancelled: 'Cancelled',
  unsent: 'Unsent',
};
const CANCELLABLE: readonly State[] = ['scheduled', 'unsent', 'sent', 'reminded', 'failed'];
const SKIP_WORDS: Record<string, string> = { recently_invited: 'invited in the last 30 days', unsubscribed: 'unsubscribed' };

interface InvitationItem {
  id: string;
  email: string;
  name: string | null;
  productId: string | null;
  orderRef: string | null;
  locale: string | null;
  state: State;
  reason: string | null;
  lastError: string | null;
  createdAt: string;
  sendAt: string | null;
  sentAt: string | null;
  remindedAt: string | null;
  reviewedAt: string | null;
  link: string | null;
}
interface Figure {
  since: string;
  sent: number;
  reviewed: number;
  rate: number | null;
}
interface InvitationPage {
  data: InvitationItem[];
  total: number;
  limit: number;
  offset: number;
  counts: Record<State, number>;
  conversion: { days30: Figure; days90: Figure };
  mail: { configured: boolean };
}
interface Settings {
  delayDays: number;
  reminder: boolean;
  language: string | null;
  senderName: string | null;
}
interface Preview {
  language: string;
  kind: 'invitation' | 'reminder';
  subject: string;
  from: string;
  html: string;
  text: string;
  product: { id: string; name: string } | null;
  mail: { configured: boolean };
}

/** A window's first day (YYYY-MM-DD, a UTC day) as the browser says dates. */
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const formatDay = (day: string): string => utcDay.format(new Date(`${day}T00:00:00Z`));
const percent = (rate: number): string => new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 }).format(rate);

function Conversion(props: { days: number; figure: Figure }) {
  const { figure } = props;
  return (
    <div class="card stat">
      <dt>Conversion, {props.days} days</dt>
      <dd>{figure.rate === null ? '—' : percent(figure.rate)}</dd>
      <dd class="stat-note">{figure.sent === 0 ? `None sent since ${formatDay(figure.since)}` : `${formatNumber(figure.reviewed)} reviewed of ${formatNumber(figure.sent)} sent since ${formatDay(figure.since)}`}</dd>
    </div>
  );
}

/** When: created, then what happened (sent, reminded, reviewed), each on its line. */
function When(props: { inv: InvitationItem }) {
  const i = props.inv;
  const lines: [string, string][] = [['Created', formatDateTime(i.createdAt)]];
  if (i.state === 'scheduled' && i.sendAt) lines.push(['Mail due', formatDateTime(i.sendAt)]);
  if (i.sentAt) lines.push(['Sent', formatDateTime(i.sentAt)]);
  if (i.remindedAt) lines.push(['Reminded', formatDateTime(i.remindedAt)]);
  if (i.reviewedAt) lines.push(['Reviewed', formatDateTime(i.reviewedAt)]);
  return (
    <span class="inv-when">
      {lines.map(([what, when]) => (
        <span key={what}>
          <span class="muted">{what}</span> {when}
        </span>
      ))}
    </span>
  );
}

function CopyLink(props: { link: string; describedBy: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="button secondary small"
      aria-describedby={props.describedBy}
      onClick={() =>
        void navigator.clipboard.writeText(props.link).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : 'Copy link'}
    </button>
  );
}

function InvitationList(props: { staff: boolean }) {
  const [state, setState] = useState<State | ''>('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<InvitationPage | null>(null);
  const [error, setError] = useState('');
  const [cancelling, setCancelling] = useState<InvitationItem | null>(null);
  const [status, setStatus] = useState('');
  const load = () => {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset), ...(state && { state }) });
    return call<InvitationPage>('GET', `/invitations?${params}`).then(
      (res) => {
        setPage(res);
        setError('');
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the invitations.'),
    );
  };
  useEffect(() => void load(), [state, offset]);
  const choose = (next: State | '') => {
    setState(next);
    setOffset(0);
    setStatus('');
  };
  const cancel = async () => {
    const inv = cancelling!;
    await call('POST', `/invitations/${encodeURIComponent(inv.id)}/cancel`);
    setCancelling(null);
    setStatus(`The invitation to ${inv.email} is cancelled: no mail or reminder follows, and its link no longer works.`);
    await load();
  };
  const total = page ? STATES.reduce((n, s) => n + page.counts[s], 0) : 0;
  const shown = page ? STATES.filter((s) => page.counts[s] > 0 || s === state) : [];
  const withLinks = page !== null && (!page.mail.configured || page.data.some((i) => i.state === 'unsent'));
  const end = page ? Math.min(page.offset + page.limit, page.total) : 0;
  return (
    <section class="section" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <p class="hint">Everyone you invited after a purchase, newest first. Only this page shows their email addresses.</p>
      {page && !page.mail.configured && (
        <div class="notice notice-warning inv-relay" id="no-relay">
          <p>
            <strong>Invitations are not mailed: no mail relay is configured.</strong> Each invitation is <code>unsent</code>: copy its link from the <strong>Link</strong> column and send it from your own shop system or mailer.
          </p>
          <p>
            To have invitations and reminders mailed, the person who runs this server sets <code>SMTP_URL</code> (your mail relay, <code>smtps://user:password@smtp.example.com:465</code>) and <code>SMTP_FROM</code> (the sender address, on a domain whose SPF and DKIM the relay signs for), then restarts it. See <code>docs/operations.md</code>.
          </p>
        </div>
      )}
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!page && !error && <Loading what="invitations" />}
      {page && (
        <>
          <dl class="stats inv-stats" aria-describedby="conversion-definition">
            <Conversion days={30} figure={page.conversion.days30} />
            <Conversion days={90} figure={page.conversion.days90} />
          </dl>
          <p class="hint" id="conversion-definition">
            Conversion is reviewed ÷ sent, over the invitations sent in the last 30 or 90 days (today included, UTC). An invitation counts as sent on the day the mail relay accepted its mail, or, for a link made for your own
            mailer (unsent), on the day it was made; it counts as reviewed once a review was written through its link. Skipped, failed and not yet sent invitations are not counted.
          </p>
          <div class="inv-filter" role="group" aria-label="Show invitations by state">
            <button type="button" class="button secondary small" aria-pressed={state === ''} onClick={() => choose('')}>
              All <span class="count">{formatNumber(total)}</span>
            </button>
            {shown.map((s) => (
              <button key={s} type="button" class="button secondary small" aria-pressed={state === s} onClick={() => choose(s)}>
                {STATE_WORDS[s]} <span class="count">{formatNumber(page.counts[s])}</span>
              </button>
            ))}
          </div>
          <p class="sr-only" role="status">
            {status}
          </p>
          {status && <Notice tone="success">{status}</Notice>}
          {page.data.length === 0 && (
            <p class="empty card">{state ? `No ${STATE_WORDS[state].toLowerCase()} invitation.` : 'No invitation yet: upload a CSV file of your customers, or create them from your shop system through the API (POST /api/v1/invitations).'}</p>
          )}
          {page.data.length > 0 && (
            <DataTable<InvitationItem>
              label="Invitation list"
              class="invitations"
              rows={page.data}
              rowKey={(i) => i.id}
              columns={[
                {
                  name: 'Customer',
                  card: 'title',
                  class: 'inv-customer',
                  cellProps: (i) => ({ id: `inv-row-${i.id}` }),
                  cell: (i) => (
                    <>
                      <span class="strong">{i.email}</span>
                      {i.name && <span class="muted inv-sub break">{i.name}</span>}
                    </>
                  ),
                },
                {
                  name: 'State',
                  card: 'badge',
                  cell: (i) => (
                    <>
                      <span class={`badge badge-inv-${i.state}`}>{STATE_WORDS[i.state]}</span>
                      {i.reason && <span class="muted inv-sub">{SKIP_WORDS[i.reason] ?? i.reason}</span>}
                      {i.lastError && <span class="muted inv-sub break">{i.lastError}</span>}
                    </>
                  ),
                },
                {
                  name: 'Order and product',
                  cell: (i) => (
                    <>
                      <span class="break">{i.orderRef ?? '—'}</span>
                      {i.productId && <span class="mono muted inv-sub break">{i.productId}</span>}
                    </>
                  ),
                },
                { name: 'When', class: 'inv-when-cell', cell: (i) => <When inv={i} /> },
                withLinks && {
                  name: 'Link',
                  card: 'wide',
                  class: 'inv-link',
                  // One line in the table (Copy link copies it whole; the whole link is its title); wrapped in full on a card.
                  cell: (i) =>
                    i.link && i.state === 'unsent' ? (
                      <span class="link-text inv-link-text" title={i.link}>
                        {i.link}
                      </span>
                    ) : (
                      <span class="muted">—</span>
                    ),
                },
                {
                  name: 'Actions',
                  card: 'actions',
                  cell: (i) => (
                    <>
                      {i.link && i.state === 'unsent' && <CopyLink link={i.link} describedBy={`inv-row-${i.id}`} />}
                      {props.staff && CANCELLABLE.includes(i.state) && (
                        <button type="button" class="button danger-outline small" aria-haspopup="dialog" aria-describedby={`inv-row-${i.id}`} onClick={() => setCancelling(i)}>
                          Cancel
                        </button>
                      )}
                    </>
                  ),
                },
              ]}
            />
          )}
          {page.total > PAGE_SIZE && (
            <nav class="pager" aria-label="Pages of invitations">
              <button type="button" class="button secondary" disabled={page.offset === 0} onClick={() => setOffset(Math.max(0, page.offset - PAGE_SIZE))}>
                Previous
              </button>
              <span class="muted">
                {formatNumber(Math.min(page.offset + 1, page.total))}–{formatNumber(end)} of {formatNumber(page.total)}
              </span>
              <button type="button" class="button secondary" disabled={end >= page.total} onClick={() => setOffset(page.offset + PAGE_SIZE)}>
                Next
              </button>
            </nav>
          )}
        </>
      )}
      {cancelling && (
        <ConfirmDialog id="cancel-invitation" title="Cancel this invitation?" label="Cancel invitation" dismiss="Keep it" action={cancel} onClose={() => setCancelling(null)}>
          <p>
            <strong class="break">{cancelling.email}</strong> gets no mail or reminder from it, and its link stops working. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function InvitationSettingsForm(props: { staff: boolean; orgName: string }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [delay, setDelay] = useState('');
  const [reminder, setReminder] = useState(true);
  const [language, setLanguage] = useState('');
  const [sender, setSender] = useState('');
  const [error, setError] = useState<DashboardError | null>(null);
  const [loadError, setLoadError] = useState('');
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);
  const show = (s: Settings) => {
    setSettings(s);
    setDelay(String(s.delayDays));
    setReminder(s.reminder);
    setLanguage(s.language ?? '');
    setSender(s.senderName ?? '');
  };
  useEffect(() => {
    call<Settings>('GET', '/invitations/settings').then(show, (err: unknown) => setLoadError(err instanceof DashboardError ? err.message : 'Could not load the invitation settings.'));
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setSaved('');
    try {
      // What was typed goes as it is (a number, or null when it is none): the server's words say what is wrong.
      const days = Number(delay.trim());
      const body = { delayDays: delay.trim() === '' || Number.isNaN(days) ? null : days, reminder, language: language || null, senderName: sender.trim() === '' ? null : sender };
      const res = await call<Settings>('PUT', '/invitations/settings', body);
      show(res);
      setError(null);
      setSaved('Invitation settings saved.');
    } catch (err) {
      setError(err instanceof DashboardError ? err : new DashboardError(0, 'unknown', 'Something went wrong. Try again.'));
    } finally {
      setBusy(false);
    }
  };
  const problem = (field: string): string | undefined => (error?.details[field] ? `${LABELS[field]} ${error.details[field]}.` : undefined);
  const described = (id: string, field: string) => `${id}-hint${problem(field) ? ` ${id}-error` : ''}`;
  const fieldError = (id: string, field: string) =>
    problem(field) && (
      <p class="field-error" id={`${id}-error`}>
        {problem(field)}
      </p>
    );
  const fieldsWithErrors = error ? Object.keys(error.details).filter((f) => f in LABELS) : [];
  return (
    <section class="card collect-card" aria-labelledby="invitation-settings-title">
      <h2 id="invitation-settings-title">Invitation settings</h2>
      {loadError && (
        <Notice tone="error" role="alert">
          {loadError}
        </Notice>
      )}
      {!settings && !loadError && <Loading what="the invitation settings" />}
      {settings && (
        <form onSubmit={submit} noValidate>
          <fieldset class="plain collect-fields inv-settings" disabled={!props.staff}>
            <div class="field">
              <label for="inv-delay">Days from the order to the mail</label>
              <input
                id="inv-delay"
                type="number"
                inputMode="numeric"
                min={0}
                max={MAX_DELAY_DAYS}
                step={1}
                value={delay}
                onInput={(e) => setDelay(e.currentTarget.value)}
                aria-invalid={problem('delayDays') ? 'true' : undefined}
                aria-describedby={described('inv-delay', 'delayDays')}
              />
              <p class="hint" id="inv-delay-hint">
                0 to {MAX_DELAY_DAYS}; 0 mails at once. For invitations that do not give their own send date: leave time for the parcel to arrive.
              </p>
              {fieldError('inv-delay', 'delayDays')}
            </div>
            <label class="choice">
              <input type="checkbox" checked={reminder} onChange={(e) => setReminder(e.currentTarget.checked)} aria-describedby="inv-reminder-hint" />
              <span>
                Send one reminder
                <span class="hint" id="inv-reminder-hint">
                  7 days after the mail, when no review came. Never after a review, an unsubscribe or a cancellation.
                </span>
              </span>
            </label>
            <div class="field">
              <label for="inv-language">Default language</label>
              <select id="inv-language" value={language} onChange={(e) => setLanguage(e.currentTarget.value)} aria-invalid={problem('language') ? 'true' : undefined} aria-describedby={described('inv-language', 'language')}>
                <option value="">Your organization's language</option>
                {MAIL_LANGUAGES.map((code) => (
                  <option key={code} value={code}>
                    {languageName(code)}
                  </option>
                ))}
              </select>
              <p class="hint" id="inv-language-hint">
                For invitations that do not give their customer's language.
              </p>
              {fieldError('inv-language', 'language')}
            </div>
            <div class="field">
              <label for="inv-sender">Sender name (optional)</label>
              <input
                id="inv-sender"
                type="text"
                autoComplete="organization"
                maxLength={100}
                placeholder={props.orgName}
                value={sender}
                onInput={(e) => setSender(e.currentTarget.value)}
                aria-invalid={problem('senderName') ? 'true' : undefined}
                aria-describedby={described('inv-sender', 'senderName')}
              />
              <p class="hint" id="inv-sender-hint">
                The name your customers see the mail from, up to 100 characters on one line; empty: your organization's name. The address is the server's (<code>SMTP_FROM</code>).
              </p>
              {fieldError('inv-sender', 'senderName')}
            </div>
          </fieldset>
          {error && fieldsWithErrors.length === 0 && (
            <Notice tone="error" role="alert">
              {error.message}
            </Notice>
          )}
          {props.staff && (
            <div class="form-actions">
              <button type="submit" class="button primary" disabled={busy}>
                Save invitation settings
              </button>
              <p class="hint" role="status" aria-live="polite">
                {saved || (fieldsWithErrors.length > 0 ? `Not saved: ${fieldsWithErrors.map((f) => problem(f)).join(' ')}` : '')}
              </p>
            </div>
          )}
        </form>
      )}
    </section>
  );
}

const LABELS: Record<string, string> = { delayDays: 'The delay', reminder: 'The reminder', language: 'The language', senderName: 'The sender name' };

function MailPreview() {
  const [language, setLanguage] = useState('');
  const [reminder, setReminder] = useState(false);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    const params = new URLSearchParams({ ...(language && { lang: language }), ...(reminder && { reminder: '1' }) });
    call<Preview>('GET', `/invitations/preview?${params}`).then(
      (res) => {
        setPreview(res);
        setError('');
        if (!language) setLanguage(res.language);
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the preview.'),
    );
  }, [language, reminder]);
  const frameSrc = preview ? `${preview.language}:${preview.kind}` : '';
  const what = `${reminder ? 'reminder' : 'invitation'} mail in ${languageName(preview?.language || language || 'en')}`;
  return (
    <section class="card collect-card" aria-labelledby="mail-preview-title">
      <h2 id="mail-preview-title">The mail your customers get</h2>
      <p class="hint">Every invitee gets the same mail in their language, with their own name and links. Here: a sample customer, “Alex”{preview?.product ? `, and a product of your catalog, ${preview.product.name}` : ''}. Its links lead nowhere.</p>
      <div class="inv-preview-controls">
        <div class="field">
          <label for="preview-language">Language</label>
          <select id="preview-language" value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
            {!language && <option value="">…</option>}
            {MAIL_LANGUAGES.map((code) => (
              <option key={code} value={code}>
                {languageName(code)}
              </option>
            ))}
          </select>
        </div>
        <label class="choice inv-preview-toggle">
          <input type="checkbox" checked={reminder} onChange={(e) => setReminder(e.currentTarget.checked)} />
          <span>Show the reminder</span>
        </label>
      </div>
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!preview && !error && <Loading what="the preview" />}
      {preview && (
        <>
          <dl class="inv-envelope">
            <div>
              <dt>From</dt>
              <dd class="break">{preview.from}</dd>
            </div>
            <div>
              <dt>Subject</dt>
              <dd class="break" lang={preview.language} dir="auto" id="preview-subject">
                {preview.subject}
              </dd>
            </div>
          </dl>
          <p class="sr-only" role="status" aria-live="polite">
            Showing the {what}.
          </p>
          {/*
            sandbox="": no script, no form, no navigation, an origin of its own: the mail is shown, never run. Its HTML
            comes as a document with a policy of its own (a srcdoc would inherit the dashboard's, which refuses the
            mail's inline styles).
          */}
          <iframe
            key={frameSrc}
            class="inv-frame"
            title={`Preview of the ${what}`}
            sandbox=""
            src={`/dashboard/api/invitations/preview.html?lang=${encodeURIComponent(preview.language)}${preview.kind === 'reminder' ? '&reminder=1' : ''}`}
          />
          <h3 class="inv-text-title">Plain-text part</h3>
          <pre class="inv-text" lang={preview.language} dir="auto" tabIndex={0} aria-label={`Plain text of the ${what}`}>
            {preview.text}
          </pre>
        </>
      )}
    </section>
  );
}

/** The Collect page's invitations: list and figures, settings, the mail's preview. */
export function CollectInvitations(props: { staff: boolean; orgName: string }) {
  return (
    <>
      <InvitationList staff={props.staff} />
      <InvitationSettingsForm staff={props.staff} orgName={props.orgName} />
      <MailPreview />
    </>
  );
}
