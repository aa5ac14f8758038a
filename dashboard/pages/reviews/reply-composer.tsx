/**
 * The reply composer (CONTRACT §15): one review's reply written, previewed
 * and acted on, in a native <dialog>. The text is counted live against the
 * platform's limit (Google: 4,096 bytes of UTF-8, counted in bytes; Trustpilot
 * and DIRECT set none); the reply's state is said in words; the buttons are
 * those the person's role allows (a Member saves drafts; an Owner or Admin
 * publishes after the organization's delay or at once, approves a draft, edits
 * or cancels a scheduled reply, deletes a published one after confirming).
 * A platform without a reply API gets a sentence saying so and a link to the
 * review on it. Errors from the API appear under the field, which gets focus.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, DashboardError, type ReplyComposerInfo, type ReplyInfo, type ReviewItem, type SessionInfo } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { Loading, Notice } from '../../components/page.tsx';
import { formatDate, formatDateTime, formatNumber } from '../../format.ts';
import { platformName } from './filters.tsx';

const encoder = new TextEncoder();
/** The text's size as Google counts it: bytes of UTF-8. */
export const utf8Bytes = (text: string): number => encoder.encode(text).length;

/**
 * The reply the review shows now when it is not ours (written on the
 * platform, or by another tool), else null: ours is a reply we published
 * with these very words.
 */
export function replyElsewhere(shown: { text: string } | null, reply: ReplyInfo | null): { text: string } | null {
  if (!shown) return null;
  return reply && reply.publishedAt !== null && reply.text === shown.text ? null : shown;
}

/** The reply's state in words a person reads at a glance. */
export function stateWords(reply: ReplyInfo | null, platform: string): string {
  const where = platformName(platform);
  if (!reply) return 'Not answered yet.';
  switch (reply.state) {
    case 'draft':
      // A rule's reply withdrawn back to draft keeps why ("Not posted: …"): said before anyone approves it.
      return `Draft by ${reply.author}, awaiting approval by an Owner or Admin.${reply.error ? ` ${reply.error}` : ''}`;
    case 'scheduled':
      return `Scheduled: posted on ${where} at ${formatDateTime(reply.scheduledAt)}${reply.approvedBy ? ` (approved by ${reply.approvedBy})` : ''}. It can be edited or cancelled until then.`;
    case 'publishing':
      return `Being posted on ${where} now${reply.error ? ` (${reply.error})` : ''}.`;
    case 'published':
      return `Published on ${where} ${formatDateTime(reply.date ?? reply.publishedAt)}.`;
    case 'failed':
      return `Failed: ${reply.error ?? 'the platform refused it'}. Publish again once it is fixed.`;
    case 'deleted':
      return `Your reply was deleted ${formatDate(reply.updatedAt)}. Not answered now.`;
  }
}

type Action = 'draft' | 'edit' | 'publish' | 'now' | 'approve' | 'cancel' | 'delete';

const DONE: Record<Action, string> = {
  draft: 'Draft saved: an Owner or Admin can approve it.',
  edit: 'Changes saved.',
  publish: 'Reply scheduled.',
  now: 'Reply being posted now.',
  approve: 'Draft approved: scheduled.',
  cancel: 'Scheduled reply cancelled: it is a draft again, nothing was posted.',
  delete: 'Reply deleted.',
};

export function ReplyComposer(props: { review: ReviewItem; session: SessionInfo; onClose: () => void; onChanged: () => void }) {
  const r = props.review;
  const staff = props.session.user!.role !== 'member';
  const [info, setInfo] = useState<ReplyComposerInfo | null>(null);
  const [loadError, setLoadError] = useState('');
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const path = `/reviews/${encodeURIComponent(r.id)}/reply`;

  const apply = (next: ReplyComposerInfo, fill: boolean) => {
    setInfo(next);
    if (fill) {
      const current = next.reply && next.reply.state !== 'deleted' ? next.reply.text : (next.proposal?.text ?? '');
      setText(current);
    }
  };
  useEffect(() => {
    call<ReplyComposerInfo>('GET', path).then(
      (res) => apply(res, true),
      (err: unknown) => setLoadError(err instanceof DashboardError ? err.message : 'Could not load this review\'s reply.'),
    );
  }, [r.id]);
  // The field has focus once it is there (the dialog focused its first control before).
  useEffect(() => {
    if (info && !info.noReplyApi) field.current?.focus();
  }, [info !== null]);
  // While a reply waits or is being posted, its state is read again now and then (bounded: the dialog's lifetime).
  const waiting = info?.reply?.state === 'scheduled' || info?.reply?.state === 'publishing';
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => {
      call<ReplyComposerInfo>('GET', path).then(
        (res) => {
          setInfo(res);
          if (res.reply?.state !== 'scheduled' && res.reply?.state !== 'publishing') props.onChanged();
        },
        () => undefined,
      );
    }, 2000);
    return () => clearInterval(timer);
  }, [waiting]);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);

  const where = platformName(r.platform);
  const bytes = utf8Bytes(text);
  const limit = info?.maxBytes ?? null;
  const over = limit !== null && bytes > limit ? bytes - limit : 0;
  const reply = info?.reply ?? null;
  const state = reply?.state ?? null;

  const act = async (action: Action) => {
    if (action !== 'cancel' && action !== 'delete' && action !== 'approve') {
      const problem = text.trim() === '' ? 'Write the reply first: it is empty.' : over > 0 ? `The reply is ${formatNumber(bytes)} bytes; ${where} takes at most ${formatNumber(limit!)}: shorten it by ${formatNumber(over)}.` : '';
      if (problem) {
        setError(problem);
        field.current?.focus();
        return;
      }
    }
    setBusy(true);
    setError('');
    setStatus('');
    try {
      if (action === 'draft') await call('POST', `${path}/draft`, { text });
      else if (action === 'edit') await call('PATCH', path, { text });
      else if (action === 'publish') await call('POST', `${path}/publish`, { text });
      else if (action === 'now') await call('POST', `${path}/publish`, { text, now: true });
      // What the approver read: the service refuses (409) when the draft changed since.
      else if (action === 'approve') await call('POST', `${path}/approve`, { text: reply?.text ?? text });
      else if (action === 'cancel') await call('POST', `${path}/cancel`);
      else await call('DELETE', path);
      const next = await call<ReplyComposerInfo>('GET', path);
      apply(next, action === 'delete');
      setConfirming(false);
      setStatus(DONE[action]);
      props.onChanged();
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
      setConfirming(false);
      field.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  const delayText = (minutes: number) => (minutes === 0 ? 'at once' : `in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`);
  const changed = reply !== null && text !== reply.text;
  // What each role may do with the reply as it stands (the service checks the same again).
  const buttons: { action: Action; label: string; tone: string }[] = [];
  if (info && !info.noReplyApi && state !== 'publishing') {
    if (state === 'scheduled') {
      if (staff) {
        buttons.push({ action: 'edit', label: 'Save changes', tone: 'secondary' }, { action: 'cancel', label: 'Cancel scheduled reply', tone: 'danger-outline' }, { action: 'now', label: 'Publish now', tone: 'primary' });
      }
    } else {
      buttons.push({ action: 'draft', label: 'Save draft', tone: 'secondary' });
      if (staff) {
        if (state === 'draft' && !changed) buttons.push({ action: 'approve', label: `Approve (publish ${delayText(info.delayMinutes)})`, tone: 'primary' });
        else buttons.push({ action: 'publish', label: `Publish ${delayText(info.delayMinutes)}`, tone: 'primary' });
        buttons.push({ action: 'now', label: 'Publish now', tone: 'secondary' });
      }
    }
  }
  // A reply written elsewhere that a publish or an approval would replace on the platform (Google replaces, Trustpilot deletes and posts).
  const elsewhere = replyElsewhere(info?.shown ?? null, reply);
  // Whenever a reply may be on the platform: the review shows one, or ours was ever published (a draft saved over it since included).
  const canDelete = staff && info && !info.noReplyApi && state !== 'publishing' && state !== 'deleted' && (state === 'published' || (reply?.publishedAt ?? null) !== null || r.reply !== null);

  return (
    <Dialog id="reply-composer" title={`Reply to ${r.authorName}`} onClose={props.onClose}>
      <p class="muted">
        {where} · {formatDate(r.date)} · {r.rating === null ? 'No stars' : `${r.rating} / 5 stars`}
      </p>
      <blockquote class="review-full reply-quote" lang={r.language || undefined} dir="auto">
        {r.content || <span class="muted">No text, only a rating.</span>}
      </blockquote>
      {!info && !loadError && <Loading what="the reply" />}
      {loadError && (
        <Notice tone="error" role="alert">
          {loadError}
        </Notice>
      )}
      {info?.noReplyApi && (
        <>
          <Notice tone="info">
            <p>{info.noReplyApi}</p>
          </Notice>
          {r.url?.startsWith('https://') ? (
            <p>
              <a href={r.url} target="_blank" rel="noopener noreferrer">
                Answer it on {where}
                <span class="sr-only"> (opens in a new tab)</span>
              </a>
            </p>
          ) : (
            <p class="hint">This review has no link to its page on {where}: find it there to answer it.</p>
          )}
        </>
      )}
      {info && !info.noReplyApi && (
        <>
          <p class="reply-state" id="reply-state">
            <strong>State:</strong> {stateWords(reply, info.platform)}
          </p>
          {info.blocked && (
            <Notice tone="warning">
              <p>Publishing is not possible now: {info.blocked}</p>
            </Notice>
          )}
          <form
            class="reply-form"
            onSubmit={(e) => {
              e.preventDefault();
            }}
          >
            {info.templates && info.templates.length > 0 && (
              <div class="field">
                <label for="reply-template">Template</label>
                <select
                  id="reply-template"
                  value=""
                  onChange={(e) => {
                    const chosen = info.templates!.find((t) => t.id === e.currentTarget.value);
                    if (chosen) {
                      setText(chosen.text);
                      setStatus(`Template “${chosen.name}” filled in.`);
                      field.current?.focus();
                    }
                  }}
                  aria-describedby="reply-template-hint"
                >
                  <option value="">Choose a template…</option>
                  {info.templates.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name} ({t.language.toUpperCase()}, {t.ratings.join(', ')} ★){t.id === info.proposal?.id ? ' · proposed' : ''}
                    </option>
                  ))}
                </select>
                <p class="hint" id="reply-template-hint">
                  {info.proposal ? `Proposed for this review (its rating and language): “${info.proposal.name}”, filled in below.` : 'No template matches this review\'s rating and language; choose one to fill the reply in.'}
                </p>
              </div>
            )}
            <div class="field">
              <label for="reply-text">Your reply</label>
              <textarea
                ref={field}
                id="reply-text"
                class="reply-text"
                rows={6}
                value={text}
                dir="auto"
                readOnly={state === 'publishing' || (state === 'scheduled' && !staff)}
                aria-invalid={error || over > 0 ? 'true' : undefined}
                aria-describedby={`reply-count${error ? ' reply-error' : ''} reply-state`}
                onInput={(e) => {
                  setText(e.currentTarget.value);
                  if (error) setError('');
                }}
              />
              <p class={over > 0 ? 'field-error' : 'hint'} id="reply-count">
                {limit !== null
                  ? over > 0
                    ? `${formatNumber(bytes)} / ${formatNumber(limit)} bytes: ${formatNumber(over)} over ${where}'s limit`
                    : `${formatNumber(bytes)} / ${formatNumber(limit)} bytes (${where} counts bytes of UTF-8: an accented letter is 2, an emoji 4)`
                  : `${formatNumber(bytes)} bytes · ${where} sets no length limit`}
              </p>
              {error && (
                <p class="field-error" id="reply-error" role="alert">
                  {error}
                </p>
              )}
            </div>
            <section class="reply-preview" aria-labelledby="reply-preview-title">
              <h3 id="reply-preview-title">Preview</h3>
              <div>
                <p>
                  <strong>Response from {info.organization}</strong>
                </p>
                <p class="reply-preview-text" dir="auto">
                  {text.trim() === '' ? <span class="muted">Your reply shows here as it will read.</span> : text}
                </p>
              </div>
            </section>
            {staff && elsewhere && buttons.some((b) => b.action === 'publish' || b.action === 'approve' || b.action === 'now') && (
              <Notice tone="warning">
                <p id="reply-replaces">
                  <strong>This review already has a reply on {where}, not written here:</strong> “{elsewhere.text}”. Publishing or approving this reply replaces it on {where}.
                </p>
              </Notice>
            )}
            {staff && buttons.some((b) => b.action === 'publish' || b.action === 'approve') && (
              <p class="hint">
                {info.delayMinutes === 0
                  ? 'Your organization posts replies at once.'
                  : `Posted at about ${new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(new Date(Date.now() + info.delayMinutes * 60_000))}, after your organization's ${info.delayMinutes}-minute delay, during which it can still be edited or cancelled.`}
              </p>
            )}
            {!staff && state === 'scheduled' && <p class="hint">This reply is approved and waiting to be posted: only an Owner or Admin can change it now.</p>}
            <p class="reply-done" role="status">
              {status}
            </p>
            {confirming ? (
              <div class="notice notice-warning reply-confirm" role="group" aria-labelledby="reply-confirm-title">
                <p id="reply-confirm-title">
                  <strong>Delete this reply from {where}?</strong> It is removed from {where}, from this review and from your widgets. This cannot be undone.
                </p>
                <div class="dialog-actions">
                  <button type="button" class="button secondary" onClick={() => setConfirming(false)}>
                    Keep it
                  </button>
                  <button ref={confirmButton} type="button" class="button danger" disabled={busy} onClick={() => void act('delete')}>
                    Delete reply
                  </button>
                </div>
              </div>
            ) : (
              <div class="dialog-actions">
                <button type="button" class="button secondary" onClick={props.onClose}>
                  Close
                </button>
                {canDelete && (
                  <button type="button" class="button danger-outline" disabled={busy} onClick={() => setConfirming(true)}>
                    Delete reply
                  </button>
                )}
                {buttons.map((b) => (
                  <button key={b.action} type="button" class={`button ${b.tone}`} disabled={busy} onClick={() => void act(b.action)}>
                    {b.label}
                  </button>
                ))}
              </div>
            )}
          </form>
        </>
      )}
      {(info?.noReplyApi || loadError) && (
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={props.onClose}>
            Close
          </button>
        </div>
      )}
    </Dialog>
  );
}
