import type { Formatter } from './format.ts';
import { CLOSE, Icon } from './icons.tsx';
import type { PublicReview } from './public-data.ts';
import { OriginalLink, ReviewHead } from './review-card.tsx';
import { Stars } from './stars.tsx';

/**
 * The inside of the "Read more" <dialog>: the whole review. The dialog is
 * modal, in the top layer, so opening it never moves the host page, and the
 * browser handles focus, Escape and returning focus to the button. A reply
 * is shown whole, signed, under the review (`f.replies`, reply.ts).
 */
export function ReviewDialogContent({ review, f, showDates }: { review: PublicReview; f: Formatter; showDates: boolean }) {
  return (
    <>
      <div class="card-head">
        <ReviewHead review={review} f={f} showDates={showDates} mark={22} />
      </div>
      {review.rating !== null && <Stars rating={review.rating} size={18} f={f} />}
      <p class="full" lang={review.language || undefined} dir="auto">
        {review.content}
      </p>
      {f.replies?.block(review)}
      <OriginalLink review={review} f={f} />
      <form method="dialog">
        <button class="btn close" aria-label={f.t.close}>
          <Icon d={CLOSE} line />
        </button>
      </form>
    </>
  );
}
