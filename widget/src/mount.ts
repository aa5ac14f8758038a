/**
 * What every layout's chunk does around its own rendering (entries/): check
 * the data, open the shadow root with the stylesheets, pick the language,
 * name the region, and afterwards put the JSON-LD into the host page. The
 * loader calls a chunk's `mount(container, data, messages)` with `messages`
 * the catalog it fetched for the widget's language (English's for a language
 * without one).
 */
import { formatter, resolveLocale, type Formatter } from './format.ts';
import { dropDuplicateJsonLd, injectJsonLd } from './json-ld.ts';
import { WIDGET_LAYOUTS } from '../../api/store/types.ts';
import { isWidgetData } from './guard.ts';
import { rowsHeight } from './layout-height.ts';
import type { Messages } from './messages.ts';
import { LOG_PREFIX } from './protocol.ts';
import type { PublicWidgetData } from './public-data.ts';
import { baseSheet } from './sheet.ts';
import { regionName } from './region-name.ts';

/** A layout chunk's export: what the loader calls (and waits for). */
export type Mount = (container: HTMLElement, data: unknown, messages: Messages, now?: number) => void | Promise<void>;

/**
 * Lets the browser run other tasks (and paint) before the next step: a
 * widget's mount is cut into tasks that each stay well under 50 ms on a
 * slow phone, so none of them blocks the page (Lighthouse's TBT).
 */
export const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve));

/**
 * The locale a widget speaks: its own option, else the host page's
 * <html lang>, else the browser's. The loader picks the catalog by the same rule.
 */
export function pageLocale(option: string | null, doc: Document = document): string {
  return resolveLocale(option, doc.documentElement.lang, navigator.language);
}

export interface Prepared {
  root: ShadowRoot;
  data: PublicWidgetData;
  f: Formatter;
  label: string;
  /** Server-rendered markup (GET …/html) is there to be taken over in place. */
  hydrating: boolean;
}

/**
 * Who renders each shadow root now: the code that renders a container again
 * (another widget's data, another layout's chunk) lets the previous one go
 * first, so its timers and observers stop and its nodes are not reused.
 */
const owners = new WeakMap<ShadowRoot, (root: ShadowRoot) => void>();

/**
 * Everything before the layout renders: an open shadow root (host CSS cannot
 * reach in, ours cannot leak out) with the shared constructable stylesheets
 * (base, then the layout's `sheets`), the reserved height, the formatter and
 * the region's unique name. `release` is how this layout's code lets go of
 * the root, should another layout's code render into it later.
 */
export function prepare(container: HTMLElement, raw: unknown, messages: Messages, sheets: CSSStyleSheet[], release: (root: ShadowRoot) => void, now: number): Prepared {
  if (!isWidgetData(raw)) throw new Error('malformed widget data');
  // Only known layouts, and the height this chunk's stylesheet draws.
  const layout = WIDGET_LAYOUTS.includes(raw.layout) ? raw.layout : 'carousel';
  const rows = Math.max(0, Math.min(4, Math.floor(Number(raw.rows)) || 1));
  const data = { ...raw, layout, rows, height: rowsHeight(layout, rows) };
  const root = container.shadowRoot ?? container.attachShadow({ mode: 'open' });
  const previous = owners.get(root);
  if (previous && previous !== release) previous(root);
  // Its JSON-LD came with it, from the server, into the host page: none is added from markup.
  const hydrating = !previous && !!root.querySelector('.rv');
  if (hydrating) for (const el of Array.from(root.querySelectorAll('style,script'))) el.remove();
  owners.set(root, release);
  root.adoptedStyleSheets = [baseSheet(), ...sheets];
  container.style.minHeight = `${data.height}px`;
  const f = formatter(pageLocale(data.options.locale), now, messages);
  return { root, data, f, label: regionName(container, data.subject, f), hydrating };
}

/** After rendering: the JSON-LD into the host document, once per subject (json-ld.ts). */
export function addJsonLd({ hydrating, data }: Prepared): void {
  try {
    if (hydrating) dropDuplicateJsonLd(document);
    else injectJsonLd(document, data.jsonLd);
  } catch (error) {
    // E.g. Trusted Types forbid script text: the widget itself still works.
    console.warn(LOG_PREFIX, 'JSON-LD not added:', error);
  }
}
