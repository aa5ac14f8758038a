import { Component, createRef, type ComponentType } from 'preact';
import type { Formatter } from './format.ts';
import { Header } from './header.tsx';
import { fill } from './messages.ts';
import type { PublicReview, PublicWidgetData, PublicWidgetSummary } from './public-data.ts';
import { ReviewDialogContent } from './review-dialog.tsx';
import { rootProps } from './root-props.ts';
import { visibleReviews } from './select.ts';

/** Content widths (px) from which two and three columns of cards fit. */
export const TWO_COLUMNS_AT = 500;
export const THREE_COLUMNS_AT = 780;

export function columnsFor(width: number): number {
  return width >= THREE_COLUMNS_AT ? 3 : width >= TWO_COLUMNS_AT ? 2 : 1;
}

export interface WidgetProps {
  data: PublicWidgetData;
  f: Formatter;
  /** The container's width when mounting, before the first resize report. */
  width: number;
  /** The region's accessible name, unique on the page ("Reviews of Acme Shoes"). */
  label: string;
  /** Render what is off screen in a later task (the browser, not hydrating; carousel.tsx). */
  lazy?: boolean;
}

/** What the framed shell hands the layout's body (carousel.tsx, paged.tsx). */
export interface BodyProps {
  reviews: PublicReview[];
  summary: PublicWidgetSummary;
  f: Formatter;
  cols: number;
  /** Rows per page: the grid shows rows × cols reviews, the list `rows` (the carousel has one). */
  rows: number;
  /** The list layout (rows) rather than the grid (cells). */
  list: boolean;
  showDates: boolean;
  onReadMore: (review: PublicReview) => void;
  /** WidgetProps' `lazy`: the carousel fills its off-screen slides a task later. */
  lazy?: boolean;
}

interface State {
  cols: number;
  open: PublicReview | null;
}

/**
 * The framed layouts' shell for one container (carousel, grid, list): the
 * region, the width it follows (columns) and the "Read more" dialog, around
 * the layout's `Body`, which each layout's chunk passes in, so a page loads
 * only the bodies it shows. Its height never changes.
 */
export class Framed extends Component<WidgetProps & { Body: ComponentType<BodyProps> }, State> {
  root = createRef<HTMLElement>();
  dialog = createRef<HTMLDialogElement>();
  resize?: ResizeObserver;
  override state: State = { cols: columnsFor(this.props.width - 34), open: null };

  override componentDidMount(): void {
    // Only the browser mounts (dom-patch.ts, the ref set): every browser the chunks target has ResizeObserver.
    const root = this.root.current!;
    // The first report comes at once: re-render only when the columns really change.
    this.resize = new ResizeObserver(() => {
      const cols = columnsFor(root.clientWidth - 32);
      if (cols !== this.state.cols) this.setState({ cols });
    });
    this.resize.observe(root);
  }

  override componentDidUpdate(): void {
    const dialog = this.dialog.current;
    if (dialog && this.state.open && !dialog.open) dialog.showModal();
  }

  override componentWillUnmount(): void {
    this.resize?.disconnect();
  }

  render({ data, f, label, lazy, Body }: WidgetProps & { Body: ComponentType<BodyProps> }, { cols, open }: State) {
    const { layout, options, summary } = data;
    const reviews = visibleReviews(data.reviews, options.reviewLanguages, f.lang);
    const props: BodyProps = {
      reviews,
      summary,
      f,
      cols,
      rows: data.rows,
      list: layout === 'list',
      showDates: options.showDates,
      onReadMore: (review: PublicReview) => this.setState({ open: review }),
      lazy,
    };
    return (
      <section ref={this.root} {...rootProps(data, f, label)} aria-roledescription={layout === 'carousel' ? 'carousel' : undefined}>
        {!reviews.length ? (
          <>
            <Header summary={summary} f={f} />
            <p class="empty">{f.t.noReviews}</p>
          </>
        ) : (
          <Body {...props} />
        )}
        <dialog
          class="dialog"
          ref={this.dialog}
          aria-label={open ? fill(f.t.reviewBy, { name: open.authorName }) : undefined}
          onClose={() => this.setState({ open: null })}
        >
          {open && <ReviewDialogContent review={open} f={f} showDates={options.showDates} />}
        </dialog>
      </section>
    );
  }
}
