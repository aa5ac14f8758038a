import { countLine, formatAverage, type Formatter } from './format.ts';
import { PlatformMark } from './platform-mark.tsx';
import type { PublicWidgetData } from './public-data.ts';
import { rootProps, TITLE_ID } from './root-props.ts';
import { Stars } from './stars.tsx';

/**
 * The badge: "4.7 ★★★★★ 312 reviews" and the platforms' marks. It has no
 * state and no events, so the browser draws it without Preact's renderer
 * (dom-render.ts); function components only, and nothing but attributes,
 * `class` and style objects on elements.
 */
export function Badge({ data, f, label }: { data: PublicWidgetData; f: Formatter; label: string }) {
  const { summary } = data;
  const average = summary.averageRating;
  return (
    <section {...rootProps(data, f, label)}>
      <h2 class="sr" id={TITLE_ID}>
        {f.t.heading}
      </h2>
      {average !== null && (
        <span class="score" aria-hidden="true">
          {formatAverage(average, f)}
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
    </section>
  );
}
