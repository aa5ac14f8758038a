import { Component } from 'preact';
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
  /** The organization's name, which signs a reply. */
  org?: string | undefined;
  onReadMore: (review: PublicReview) => void;
}

/**
 * One observer for every clamped text on the page: whenever a text box is
 * laid out or resized, its review gets data-cut when the text does not fit,
 * which reveals the "Read more" button (styles.ts).
 */
let clampObserver: ResizeObserver | undefined;
function watchClamp(el: HTMLElement | null): void {
  if (!el || typeof ResizeObserver === 'undefined') return;
  clampObserver ??= new ResizeObserver((entries) => {
    // A hidden text (the review while its reply is shown, or the reply while folded) says nothing about the one shown.
    for (const { target } of entries) if (!(target as HTMLElement).hidden) target.parentElement?.toggleAttribute('data-cut', target.scrollHeight > target.clientHeight + 1);
  });
  clampObserver.observe(el);
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

/** The card's stars (none when the platform has no ratings). */
const RatingStars = ({ review, f }: { review: PublicReview; f: Formatter }) =>
  review.rating === null ? null : <Stars rating={review.rating} size={16} f={f} />;

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
 * the server-rendered HTML.
 */
export class Review extends Component<CardProps & { row?: boolean }, { reply: boolean }> {
  override state = { reply: false };

  render(props: CardProps & { row?: boolean }, { reply: unfolded }: { reply: boolean }) {
    const { review, f, row, org } = props;
    const label = fill(f.t.reviewBy, { name: review.authorName });
    const reply = org ? review.reply : undefined;
    const toggle = reply && (
      <button type="button" class="rb" aria-expanded={unfolded} onClick={() => this.setState({ reply: !unfolded })}>
        {fill(f.t.reply, { o: org! })}
      </button>
    );
    const stars = (
      <div class="stars-row">
        <RatingStars review={review} f={f} />
        {row && <Actions {...props} label={label} />}
        {toggle}
      </div>
    );
    return (
      <article class={row ? 'row' : 'card'} aria-label={label} data-cut={typeof __RV_BROWSER__ === 'undefined' ? guessCut(review.content, row) : undefined}>
        <div class="card-head">
          <ReviewHead {...props} mark={row ? 20 : 22} />
        </div>
        {/* A card's stars stand under its head (no empty row without them, unless a reply's button needs it); a list row's, with its actions, under the text they expand. */}
        {!row && (review.rating !== null || reply) && stars}
        <p class="text" ref={watchClamp} lang={review.language || undefined} dir="auto" hidden={!!reply && unfolded}>
          {review.content}
        </p>
        {reply && (
          <p class="text reply" ref={watchClamp} dir="auto" hidden={!unfolded}>
            {reply.text}
          </p>
        )}
        {row ? (
          stars
        ) : (
          <div class="foot">
            <Actions {...props} label={label} />
          </div>
        )}
      </article>
    );
  }
}

/** A review's reply as the "Read more" dialog shows it: whole, under the review, signed. */
export function ReplyBlock({ review, f, org }: { review: PublicReview; f: Formatter; org?: string | undefined }) {
  const reply = org ? review.reply : undefined;
  return reply ? (
    <p class="full reply" dir="auto">
      <b>{fill(f.t.reply, { o: org! })}</b>
      {'\n' + reply.text}
    </p>
  ) : null;
}
