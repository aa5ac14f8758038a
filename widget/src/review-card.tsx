import { Avatar } from './avatar.tsx';
import type { Formatter } from './format.ts';
import { relativeDate } from './review-format.ts';
import { CHECK, Icon } from './icons.tsx';
import { httpsUrl } from './guard.ts';
import { fill } from './messages.ts';
import { PlatformMark } from './platform-mark.tsx';
import { platformLook } from './platforms.ts';
import type { PublicReview } from './public-data.ts';
import { Stars } from './stars.tsx';

export interface CardProps {
  review: PublicReview;
  f: Formatter;
  showDates: boolean;
  onReadMore: (review: PublicReview) => void;
}

/**
 * One observer for every clamped text on the page: whenever a text box is
 * laid out or resized, its review gets data-cut when the text does not fit,
 * which reveals the "Read more" button (styles.ts).
 */
let clampObserver: ResizeObserver | undefined;
function watchClamp(el: HTMLElement | null): void {
  // Only the browser calls refs (dom-patch.ts, always with the element), and every browser the chunks target has ResizeObserver.
  (clampObserver ??= new ResizeObserver((entries) => {
    // A hidden text (the review while its reply is shown, or the reply while folded) says nothing about the one shown.
    for (const { target } of entries) if (!(target as HTMLElement).hidden) target.parentElement?.toggleAttribute('data-cut', target.scrollHeight > target.clientHeight + 1);
  })).observe(el!);
}

/**
 * On the server nothing can be measured: a text longer than the lines it
 * gets is marked cut by its length, for the desktop width the server lays out
 * (three columns: ~43 characters a card line, ~150 a list line); the browser
 * corrects it once it lays the text out, so a guess can only be wrong where
 * a text is within a few words of filling its lines.
 */
const guessCut = (text: string, row?: boolean): true | undefined => (typeof document === 'undefined' && text.length > (row ? 300 : 170)) || undefined;
/** Defined (true) in the browser's chunks only (widget/build.ts): the guess is left out of them. */
declare const __RV_BROWSER__: boolean | undefined;

export function ReviewHead({ review, f, showDates, mark }: Omit<CardProps, 'onReadMore'> & { mark: number }) {
  const relative = showDates ? relativeDate(review.date, f) : '';
  return (
    <>
      <Avatar name={review.authorName} src={review.authorAvatar} />
      <div class="who">
        <span class="name">
          <span class="name-text" dir="auto">
            {review.authorName}
          </span>
          {review.isVerified && (
            <span class="verified" role="img" aria-label={f.t.verified} title={f.t.verified}>
              <Icon d={CHECK} />
            </span>
          )}
        </span>
        {relative && (
          <time class="date" dateTime={review.date}>
            {relative}
          </time>
        )}
      </div>
      <PlatformMark platform={review.platform} size={mark} />
    </>
  );
}

export function OriginalLink({ review, f }: { review: PublicReview; f: Formatter }) {
  const url = httpsUrl(review.url);
  return url ? (
    <a class="link" href={url} target="_blank" rel="nofollow ugc noopener">
      {fill(f.t.viewOn, { p: platformLook(review.platform).name })}
      <span class="sr"> {f.t.newTab}</span>
    </a>
  ) : null;
}


function Actions({ review, f, onReadMore, label }: CardProps & { label: string }) {
  return (
    <>
      <button type="button" class="more" aria-haspopup="dialog" onClick={() => onReadMore(review)}>
        {f.t.readMore}
        <span class="sr">: {label}</span>
      </button>
      <OriginalLink review={review} f={f} />
    </>
  );
}

/**
 * A review as a card (carousel, grid: four lines of text) or a row (list: two
 * lines, laid out by the `row` styles). Text is only ever a text node.
 *
 * A reply (CONTRACT §15) is folded behind a "Response from {o}" disclosure
 * button: the card's height is fixed (no layout shift), so the reply, when
 * unfolded, takes the text's place, clamped the same way ("Read more" shows
 * both whole). It is in the markup while folded (`hidden`), for crawlers and
 * the server-rendered HTML. reply.ts adds it (`f.replies`, set only when the
 * widget shows replies and has one to show), in the browser a chunk of its own.
 */
export function Review(props: CardProps & { row?: boolean }) {
  const { review, f, row } = props;
  const label = fill(f.t.reviewBy, { name: review.authorName });
  const stars = (
    <div class="stars-row">
      {/* None when the platform has no ratings. */}
      {review.rating !== null && <Stars rating={review.rating} size={16} f={f} />}
      {row && <Actions {...props} label={label} />}
    </div>
  );
  const article = (
    <article class={row ? 'row' : 'card'} aria-label={label} {...(typeof __RV_BROWSER__ === 'undefined' && { 'data-cut': guessCut(review.content, row) })}>
      <div class="card-head">
        <ReviewHead {...props} mark={row ? 20 : 22} />
      </div>
      {/* A card's stars stand under its head (no empty row without them); a list row's, with its actions, under the text they expand. */}
      {!row && review.rating !== null && stars}
      <p class="text" ref={watchClamp} lang={review.language || undefined} dir="auto">
        {review.content}
      </p>
      {row ? (
        stars
      ) : (
        <div class="foot">
          <Actions {...props} label={label} />
        </div>
      )}
    </article>
  );
  // The reply's button and text go in by reply.ts, when the widget shows replies (reply.ts: `card`).
  return f.replies?.card(article, review, row) ?? article;
}
