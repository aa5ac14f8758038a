/**
 * Pending reviews (CONTRACT §13, Moderation): reviews written on the review
 * page that wait for the email step or for a person, with why each waits.
 * Owner and Admin `Publish` or `Reject` with a required reason (a dialog);
 * every decision is audited by the server. The reviewer's email is never
 * here: the server does not send it.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, DashboardError, type HoldReason, type PendingReview, type RejectReason } from '../../api.ts';
import { DataTable } from '../../components/data-table.tsx';
import { ConfirmActions, Dialog } from '../../components/dialog.tsx';
import { Loading, Notice } from '../../components/page.tsx';
import { formatDateTime } from '../../format.ts';

const REJECT_REASONS: { value: RejectReason; label: string; hint: string }[] = [
  { value: 'spam', label: 'Spam', hint: 'Advertising, links, or text that is not a review.' },
  { value: 'offensive', label: 'Offensive', hint: 'Insults, hate or threats.' },
  { value: 'personal_data', label: 'Personal data', hint: 'Names, phone numbers or addresses of people who did not agree to be named.' },
  { value: 'not_genuine', label: 'Not genuine', hint: 'Not written by a customer about their own experience.' },
];

const WAITS: Record<HoldReason, string> = {
  awaiting_confirmation: 'Waiting for the reviewer to confirm by email',
  moderation: 'Held for a person (your moderation setting)',
  no_mail: 'Held for a person (no mail relay configured)',
  links: 'Held for a person (more than 2 links in the text)',
};
const waitWords = (r: PendingReview): string => (r.reason ? WAITS[r.reason] : 'Waiting for a person');

function RejectDialog(props: { review: PendingReview; onClose: () => void; onRejected: () => void }) {
  const [reason, setReason] = useState<RejectReason | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!reason) return setError('Choose a reason: a rejection is recorded with its reason.');
    setBusy(true);
    try {
      await call('POST', `/collect/reviews/${encodeURIComponent(props.review.id)}/reject`, { reason });
      props.onRejected();
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
      setBusy(false);
    }
  };
  return (
    <Dialog id="reject-review" title="Reject this review?" onClose={props.onClose}>
      <p>
        <strong>{props.review.authorName}</strong>, {props.review.rating} / 5: <span class="quote">“{props.review.content.slice(0, 160)}{props.review.content.length > 160 ? '…' : ''}”</span>
      </p>
      <p class="hint">A rejected review is never published. Rejections are audited and counted by rating on the Overview: rejecting a review because it is negative is suppression.</p>
      <form onSubmit={submit} noValidate>
        <fieldset class="choices">
          <legend>Reason</legend>
          {REJECT_REASONS.map((r) => (
            <label class="choice" key={r.value}>
              <input type="radio" name="reject-reason" value={r.value} checked={reason === r.value} onChange={() => setReason(r.value)} aria-describedby={`reject-${r.value}-hint`} />
              <span>
                {r.label}
                <span class="hint" id={`reject-${r.value}-hint`}>
                  {r.hint}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
        <ConfirmActions error={error} label="Reject review" onCancel={props.onClose} busy={busy} />
      </form>
    </Dialog>
  );
}

export function PendingReviews(props: { staff: boolean; productName: (id: string) => string; onDecided?: () => void }) {
  const [list, setList] = useState<PendingReview[] | null>(null);
  const [error, setError] = useState('');
  const [status, setStatus] = useState('');
  const [rejecting, setRejecting] = useState<PendingReview | null>(null);
  const load = () =>
    call<{ data: PendingReview[] }>('GET', '/collect/pending').then(
      (res) => {
        setList(res.data);
        setError('');
      },
      (err: unknown) => setError(err instanceof DashboardError ? err.message : 'Could not load the pending reviews.'),
    );
  useEffect(() => void load(), []);
  const decided = (words: string) => {
    setStatus(words);
    props.onDecided?.();
    void load();
  };
  const publish = async (r: PendingReview) => {
    try {
      await call('POST', `/collect/reviews/${encodeURIComponent(r.id)}/publish`);
      decided(`The review by ${r.authorName} is published.`);
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Could not publish the review.');
    }
  };
  return (
    <section class="section" aria-labelledby="pending-title">
      <div class="section-head">
        <h2 id="pending-title">Pending reviews{list ? ` (${list.length})` : ''}</h2>
      </div>
      <p class="hint">Reviews written on your review page that wait for the email step or for a person. Only published reviews count anywhere.</p>
      <p class="sr-only" role="status">
        {status}
      </p>
      {status && <Notice tone="success">{status}</Notice>}
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {!list && !error && <Loading what="pending reviews" />}
      {list && list.length === 0 && <p class="empty card">No review is waiting.</p>}
      {list && list.length > 0 && (
        <DataTable<PendingReview>
          label="Pending reviews"
          class="pending"
          rows={list}
          rowKey={(r) => r.id}
          columns={[
            { name: 'Name', card: 'title', class: 'strong', cellProps: (r) => ({ id: `pending-${r.id}` }), cell: (r) => <span class="break">{r.authorName}</span> },
            { name: 'Rating', class: 'nowrap', card: 'badge', cell: (r) => `${r.rating} / 5` },
            {
              name: 'Review',
              card: 'wide',
              cell: (r) => (
                <span class="text-clamp" dir="auto">
                  {r.content}
                </span>
              ),
            },
            { name: 'Product', cell: (r) => (r.productId ? props.productName(r.productId) : 'Your business') },
            { name: 'Submitted', class: 'nowrap', cell: (r) => formatDateTime(r.submittedAt) },
            { name: 'Why it waits', cell: waitWords },
            props.staff && {
              name: 'Actions',
              card: 'actions',
              cell: (r) => (
                <>
                  <button type="button" class="button primary small" aria-describedby={`pending-${r.id}`} onClick={() => void publish(r)}>
                    Publish
                  </button>
                  <button type="button" class="button danger-outline small" aria-haspopup="dialog" aria-describedby={`pending-${r.id}`} onClick={() => setRejecting(r)}>
                    Reject
                  </button>
                </>
              ),
            },
          ]}
        />
      )}
      {rejecting && (
        <RejectDialog
          review={rejecting}
          onClose={() => setRejecting(null)}
          onRejected={() => {
            const r = rejecting;
            setRejecting(null);
            decided(`The review by ${r.authorName} is rejected.`);
          }}
        />
      )}
    </section>
  );
}
