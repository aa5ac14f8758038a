import { render } from 'preact';
import { formatter, resolveLocale } from './format.ts';
import { injectJsonLd } from './json-ld.ts';
import { WIDGET_LAYOUTS } from '../../api/store/types.ts';
import { isWidgetData } from './guard.ts';
import { layoutHeight } from './layout-height.ts';
import { LOG_PREFIX } from './protocol.ts';
import { widgetSheet } from './sheet.ts';
import { Widget } from './widget.tsx';

/**
 * Renders one container: an open shadow root (host CSS cannot reach in, ours
 * cannot leak out) with the shared constructable stylesheet, then the JSON-LD
 * into the host document.
 */
export function mount(container: HTMLElement, raw: unknown, now: number = Date.now()): void {
  if (!isWidgetData(raw)) throw new Error('malformed widget data');
  // Only known layouts, and the height this bundle's stylesheet draws.
  const layout = WIDGET_LAYOUTS.includes(raw.layout) ? raw.layout : 'carousel';
  const data = { ...raw, layout, height: layoutHeight(layout, raw.options) };
  const root = container.shadowRoot ?? container.attachShadow({ mode: 'open' });
  root.adoptedStyleSheets = [widgetSheet()];
  container.style.minHeight = `${data.height}px`;
  const locale = resolveLocale(data.options.locale, navigator.language);
  render(<Widget data={data} f={formatter(locale, now)} width={container.clientWidth} />, root);
  try {
    injectJsonLd(document, data.id, data.jsonLd);
  } catch (error) {
    // E.g. Trusted Types forbid script text: the widget itself still works.
    console.warn(LOG_PREFIX, 'JSON-LD not added:', error);
  }
}
