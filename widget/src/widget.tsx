import { Component, createRef } from 'preact';
import { Carousel } from './carousel.tsx';
import { countLine, formatNumber, type Formatter } from './format.ts';
import { Header, TITLE_ID } from './header.tsx';
import { fill } from './messages.ts';
import { Paged } from './paged.tsx';
import { PlatformMark } from './platform-mark.tsx';
import type { PublicReview, PublicWidgetData } from './public-data.ts';
import { ReviewDialogContent } from './review-dialog.tsx';
import { visibleReviews } from './select.ts';
import { Stars } from './stars.tsx';
import { accentColor } from './theme.ts';

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
}

interface State {
  cols: number;
  open: PublicReview | null;
}

/** Root element attributes every layout shares: name, language, theme, accent, the exact reserved height. */
function rootProps({ layout, options, height }: PublicWidgetData, f: Formatter, label: string) {
  return {
    class: `rv ${layout} ${options.theme}`,
    'aria-label': label,
    lang: f.locale,
    dir: f.rtl ? ('rtl' as const) : ('ltr' as const),
    // Preact sets these through CSSOM, which a strict CSP allows.
    style: { height: `${height}px`, '--a': accentColor(options.accentColor) },
  };
}

function Badge({ data: { summary }, f }: { data: PublicWidgetData; f: Formatter }) {
  const average = summary.averageRating;
  return (
    <>
      <h2 class="sr" id={TITLE_ID}>
        {f.t.heading}
      </h2>
      {average !== null && (
        <span class="score" aria-hidden="true">
          {formatNumber(average, f, 1, true)}
        </span>
      )}
      <div class="badge-col">
        {average !== null && <Stars rating={average} size={18} f={f} />}
        <span class="badge-count">{countLine(summary, f)}</span>
        <span class="marks">
          {summary.platforms.slice(0, 6).map((p) => (
            <PlatformMark platform={p.platform} size={18} />
          ))}
        </span>
      </div>
    </>
  );
}

/**
 * The whole widget for one container: picks the layout, follows the width
 * (columns), and owns the "Read more" dialog. Its height never changes.
 */
export class Widget extends Component<WidgetProps, State> {
  root = createRef<HTMLElement>();
  dialog = createRef<HTMLDialogElement>();
  resize?: ResizeObserver;
  override state: State = { cols: columnsFor(this.props.width - 34), open: null };

  override componentDidMount(): void {
    const root = this.root.current;
    if (!root || typeof ResizeObserver === 'undefined') return;
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

  render({ data, f, label }: WidgetProps, { cols, open }: State) {
    const { layout, options, summary } = data;
    if (layout === 'badge') {
      return (
        <section ref={this.root} {...rootProps(data, f, label)}>
          <Badge data={data} f={f} />
        </section>
      );
    }
    const reviews = visibleReviews(data.reviews, options.reviewLanguages, f.lang);
    const props = { reviews, summary, f, cols, showDates: options.showDates, onReadMore: (review: PublicReview) => this.setState({ open: review }) };
    return (
      <section ref={this.root} {...rootProps(data, f, label)} aria-roledescription={layout === 'carousel' ? 'carousel' : undefined}>
        {!reviews.length ? (
          <>
            <Header summary={summary} f={f} />
            <p class="empty">{f.t.noReviews}</p>
          </>
        ) : layout === 'carousel' ? (
          <Carousel {...props} />
        ) : (
          <Paged {...props} rows={data.rows} list={layout === 'list'} />
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
