import { Component } from 'preact';
import type { BodyProps } from './framed.tsx';
import { Header, NavButton } from './header.tsx';
import { Icon, LEFT, RIGHT } from './icons.tsx';
import { fill } from './messages.ts';
import { Review } from './review-card.tsx';

/**
 * The grid and the list: a fixed number of rows, paged with prev/next buttons
 * when there are more reviews, so the height never depends on the count.
 */
export class Paged extends Component<BodyProps, { page: number }> {
  override state = { page: 0 };

  render({ reviews, summary, f, cols, rows, list, showDates, onReadMore }: BodyProps, { page }: { page: number }) {
    const size = list ? rows : rows * cols;
    const pages = Math.ceil(reviews.length / size);
    // Fewer pages after a resize: show the last one that exists.
    const current = Math.min(page, pages - 1);
    const go = (to: number) => this.setState({ page: to });
    return (
      <>
        <Header summary={summary} f={f}>
          {pages > 1 && (
            <div class="nav">
              <NavButton label={f.t.previous} off={current < 1} onClick={() => go(current - 1)}>
                <Icon d={LEFT} line />
              </NavButton>
              <span class="page" aria-live="polite">
                <span aria-hidden="true">
                  {current + 1} / {pages}
                </span>
                <span class="sr">{fill(f.t.page, { n: current + 1, m: pages })}</span>
              </span>
              <NavButton label={f.t.next} off={current >= pages - 1} onClick={() => go(current + 1)}>
                <Icon d={RIGHT} line />
              </NavButton>
            </div>
          )}
        </Header>
        <ul class={list ? 'rows' : 'cells'} style={{ '--cols': cols }}>
          {reviews.slice(current * size, current * size + size).map((review) => (
            <li key={review.id}>
              <Review review={review} f={f} showDates={showDates} onReadMore={onReadMore} row={list} />
            </li>
          ))}
        </ul>
      </>
    );
  }
}
