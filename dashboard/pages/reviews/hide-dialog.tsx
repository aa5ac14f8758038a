/** Hide a review from widgets, with a reason: a native <dialog> with a radio group (Owner, Admin). */
import { useState } from 'preact/hooks';
import { call, DashboardError, type HideReason, type ReviewItem } from '../../api.ts';
import { ConfirmActions, Dialog } from '../../components/dialog.tsx';
import { platformName } from './filters.tsx';
import { REASONS } from './reasons.ts';

export function HideDialog(props: { review: ReviewItem; onClose: () => void; onHidden: (review: ReviewItem) => void }) {
  const [reason, setReason] = useState<HideReason | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!reason) return setError('Choose a reason.');
    setBusy(true);
    try {
      props.onHidden(await call<ReviewItem>('POST', `/reviews/${encodeURIComponent(props.review.id)}/hide`, { reason }));
    } catch (err) {
      setError(err instanceof DashboardError ? err.message : 'Something went wrong. Try again.');
      setBusy(false);
    }
  };
  return (
    <Dialog id="hide-review" title="Hide this review from widgets?" onClose={props.onClose}>
      <p>
        <strong>{props.review.authorName}</strong> on {platformName(props.review.platform)}: <span class="quote">“{props.review.content.slice(0, 160)}{props.review.content.length > 160 ? '…' : ''}”</span>
      </p>
      <p class="hint">
        Hidden reviews still count in your statistics and star rating, and every widget says how many reviews the owner hid. You can show it again at any time.
      </p>
      <form onSubmit={submit}>
        <fieldset class="choices">
          <legend>Reason</legend>
          {REASONS.map((r) => (
            <label class="choice" key={r.value}>
              <input type="radio" name="reason" value={r.value} required checked={reason === r.value} onChange={() => setReason(r.value)} aria-describedby={`reason-${r.value}-hint`} />
              <span>
                {r.label}
                <span class="hint" id={`reason-${r.value}-hint`}>
                  {r.hint}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
        <ConfirmActions error={error} label="Hide review" onCancel={props.onClose} busy={busy} />
      </form>
    </Dialog>
  );
}
