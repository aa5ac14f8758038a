import { Component, createRef } from 'preact';
import type { BodyProps } from './framed.tsx';
import { Header, NavButton } from './header.tsx';
import { Icon, LEFT, PAUSE, PLAY, RIGHT } from './icons.tsx';
import { CARD_GAP } from './layout-height.ts';
import { fill } from './messages.ts';
import { Review } from './review-card.tsx';

/** Time each position stays on screen while playing. */
export const AUTOPLAY_MS = 6000;

interface State {
  /** Index of the first visible card. */
  first: number;
  playing: boolean;
  /** Slides drawn with their review: off-screen ones wait a task when mounting `lazy`. */
  filled: number;
}

/** Defined (true) in the browser's chunks only (widget/build.ts): there the server's check folds away. */
declare const __RV_BROWSER__: boolean | undefined;

const reducedMotion = (): boolean => (typeof __RV_BROWSER__ !== 'undefined' || typeof matchMedia === 'function') && matchMedia('(prefers-reduced-motion: reduce)').matches;

/**
 * Cards in a horizontal scroll-snap track, moved by swiping, by the prev/next
 * buttons, or by autoplay. Autoplay starts only without prefers-reduced-motion,
 * waits while the pointer or focus is inside or the tab is hidden, and has a
 * pause button (WCAG 2.2.2). Cards out of view are inert: Tab reaches only
 * what is visible.
 */
export class Carousel extends Component<BodyProps, State> {
  track = createRef<HTMLDivElement>();
  timer = 0;
  reduced = reducedMotion();
  override state: State = { first: 0, playing: !this.reduced, filled: this.props.lazy ? this.props.cols + 1 : Infinity };

  last(): number {
    return Math.max(0, this.props.reviews.length - this.props.cols);
  }

  stride(): number {
    const slide = this.track.current?.firstElementChild;
    return slide ? slide.getBoundingClientRect().width + CARD_GAP : 1;
  }

  /** Right to left, the track scrolls towards negative scrollLeft. */
  sign(): number {
    return this.props.f.rtl ? -1 : 1;
  }

  go(index: number): void {
    const left = Math.max(0, Math.min(this.last(), index)) * this.stride() * this.sign();
    this.track.current?.scrollTo({ left, behavior: this.reduced ? 'auto' : 'smooth' });
  }

  onScroll = (): void => {
    const track = this.track.current;
    if (!track) return;
    // Scroll events come every frame while swiping: render only when the first card changes.
    const first = Math.min(this.last(), Math.round((track.scrollLeft * this.sign()) / this.stride()));
    if (first !== this.state.first) this.setState({ first });
  };

  override componentDidMount(): void {
    // The slides out of view (inert, the same size empty) get their reviews in the next task.
    if (this.state.filled < this.props.reviews.length) setTimeout(() => this.setState({ filled: Infinity }));
    this.timer = +setInterval(() => {
      const { playing, first } = this.state;
      // Waits while the pointer or focus is inside, or the tab is hidden.
      if (playing && !document.hidden && !(this.base as Element | undefined)?.matches(':hover,:focus-within')) this.go(first >= this.last() ? 0 : first + 1);
    }, AUTOPLAY_MS);
  }

  override componentDidUpdate(previous: BodyProps): void {
    // A column change (resize) keeps the first visible card in place.
    if (previous.cols !== this.props.cols) this.go(this.state.first);
  }

  override componentWillUnmount(): void {
    clearInterval(this.timer);
  }

  render({ reviews, summary, f, cols, showDates, onReadMore }: BodyProps, { first, playing, filled }: State) {
    const moves = reviews.length > cols;
    const last = this.last();
    return (
      <div>
        <Header summary={summary} f={f}>
          {moves && (
            <div class="nav">
              <NavButton label={f.t.previous} off={first <= 0} onClick={() => this.go(first - 1)}>
                <Icon d={LEFT} line />
              </NavButton>
              <NavButton label={playing ? f.t.pause : f.t.play} onClick={() => this.setState({ playing: !playing })}>
                <Icon d={playing ? PAUSE : PLAY} />
              </NavButton>
              <NavButton label={f.t.next} off={first >= last} onClick={() => this.go(first + 1)}>
                <Icon d={RIGHT} line />
              </NavButton>
            </div>
          )}
        </Header>
        <div
          class="track"
          ref={this.track}
          onScroll={this.onScroll}
          style={{ '--cols': cols }}
          aria-live={playing && moves ? 'off' : 'polite'}
          // A track that scrolls with nothing focusable in view (no review with a link or a reply's
          // button; "Read more" shows only for a cut text) is itself a tab stop, so a keyboard can scroll it.
          tabindex={moves && !reviews.slice(first, first + cols).some((r) => r.url || r.reply) ? 0 : undefined}
        >
          {reviews.map((review, i) => (
            <div
              key={review.id}
              class="slide"
              role="group"
              aria-roledescription="slide"
              aria-label={fill(f.t.slide, { n: i + 1, m: reviews.length })}
              inert={i < first || i >= first + cols}
            >
              {i < filled && <Review review={review} f={f} showDates={showDates} onReadMore={onReadMore} />}
            </div>
          ))}
        </div>
      </div>
    );
  }
}
