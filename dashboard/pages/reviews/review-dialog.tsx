/** One review in full (the list shows two lines of it): who, where, when, the stars and the whole text. */
import type { ReviewItem } from '../../api.ts';
import { Dialog } from '../../components/dialog.tsx';
import { formatDate } from '../../format.ts';
import { platformName } from './filters.tsx';
import { reasonLabel } from './reasons.ts';

export function ReviewDialog(props: { review: ReviewItem; onClose: () => void; onReply?: () => void }) {
  const r = props.review;
  return (
    <Dialog id="review-full" title={`Review by ${r.authorName}`} onClose={props.onClose}>
      <p class="muted">
        {platformName(r.platform)} · {formatDate(r.date)} · {r.rating === null ? 'No stars' : `${r.rating} / 5 stars`}
        {r.hidden ? ` · Hidden from widgets: ${reasonLabel(r.hidden.reason)}` : ''}
      </p>
      <p class="review-full" lang={r.language || undefined} dir="auto">
        {r.content || <span class="muted">No text, only a rating.</span>}
      </p>
      {r.reply && (
        <section class="review-reply" aria-labelledby="review-reply-title">
          <h3 id="review-reply-title">Your reply, {formatDate(r.reply.date)}</h3>
          <p class="review-full" dir="auto">
            {r.reply.text}
          </p>
        </section>
      )}
      {r.url?.startsWith('https://') && (
        <p>
          <a href={r.url} target="_blank" rel="noopener noreferrer">
            View on {platformName(r.platform)}
            <span class="sr-only"> (opens in a new tab)</span>
          </a>
        </p>
      )}
      <div class="dialog-actions">
        <button type="button" class="button secondary" onClick={props.onClose}>
          Close
        </button>
        {props.onReply && (
          <button type="button" class="button primary" aria-haspopup="dialog" onClick={props.onReply}>
            Reply
          </button>
        )}
      </div>
    </Dialog>
  );
}
