import type { Formatter } from './format.ts';
import type { PublicWidgetData } from './public-data.ts';
import { accentColor } from './theme.ts';

/** Id of the heading that labels the widget's region (ids are per shadow root). */
export const TITLE_ID = 'title';

/** Root element attributes every layout shares: name, language, theme, accent, the exact reserved height. */
export function rootProps({ layout, options, height }: PublicWidgetData, f: Formatter, label: string) {
  return {
    class: `rv ${layout} ${options.theme}`,
    'aria-label': label,
    lang: f.locale,
    dir: f.rtl ? ('rtl' as const) : ('ltr' as const),
    // Set through CSSOM (dom-render.ts, dom-patch.ts), which a strict CSP allows.
    style: { height: `${height}px`, '--a': accentColor(options.accentColor) },
  };
}
