import type { ComponentChildren } from 'preact';
import { countLine, formatAverage, type Formatter } from './format.ts';
import type { PublicWidgetSummary } from './public-data.ts';
import { TITLE_ID } from './root-props.ts';
import { Stars } from './stars.tsx';

/**
 * The heading row of the framed layouts: title, "4.7 ★★★★★ · 312 reviews"
 * (the number, rounded for people by displayRating, is hidden from screen
 * readers: the stars' label says the exact average, "4.65 out of 5") and
 * the navigation buttons passed as children.
 */
export function Header({ summary, f, children }: { summary: PublicWidgetSummary; f: Formatter; children?: ComponentChildren }) {
  const average = summary.averageRating;
  return (
    <div class="head">
      <div class="head-text">
        <h2 class="title" id={TITLE_ID}>
          {f.t.heading}
        </h2>
        <p class="sum">
          {average !== null && (
            <>
              <b aria-hidden="true">{formatAverage(average, f)}</b>
              <Stars rating={average} size={15} f={f} />
              <span aria-hidden="true">·</span>
            </>
          )}
          <span class="count">{countLine(summary, f)}</span>
        </p>
      </div>
      {children}
    </div>
  );
}

/** A round icon button; "disabled" through aria-disabled so it keeps focus at the ends. */
export function NavButton({ label, off, onClick, children }: { label: string; off?: boolean; onClick: () => void; children: ComponentChildren }) {
  return (
    <button type="button" class="btn" aria-label={label} aria-disabled={off} onClick={() => off || onClick()}>
      {children}
    </button>
  );
}
