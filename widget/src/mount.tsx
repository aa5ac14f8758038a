import { hydrate, render } from 'preact';
import { formatter, resolveLocale } from './format.ts';
import { dropDuplicateJsonLd, injectJsonLd } from './json-ld.ts';
import { WIDGET_LAYOUTS } from '../../api/store/types.ts';
import { isWidgetData } from './guard.ts';
import { rowsHeight } from './layout-height.ts';
import type { Messages } from './messages.ts';
import { LOG_PREFIX } from './protocol.ts';
import { widgetSheet } from './sheet.ts';
import { regionName } from './region-name.ts';
import { Widget } from './widget.tsx';

/**
 * The locale a widget speaks: its own option, else the host page's
 * <html lang>, else the browser's. The loader picks the catalog by the same rule.
 */
export function pageLocale(option: string | null, doc: Document = document): string {
  return resolveLocale(option, doc.documentElement.lang, navigator.language);
}

/**
 * Renders one container: an open shadow root (host CSS cannot reach in, ours
 * cannot leak out) with the shared constructable stylesheet, then the JSON-LD
 * into the host document. `messages` is the catalog the loader fetched for
 * the widget's language (null: English).
 */
export function mount(container: HTMLElement, raw: unknown, messages: Messages | null = null, now: number = Date.now()): void {
  if (!isWidgetData(raw)) throw new Error('malformed widget data');
  // Only known layouts, and the height this bundle's stylesheet draws.
  const layout = WIDGET_LAYOUTS.includes(raw.layout) ? raw.layout : 'carousel';
  const rows = Math.max(0, Math.min(4, Math.floor(Number(raw.rows)) || 1));
  const data = { ...raw, layout, rows, height: rowsHeight(layout, rows) };
  const root = container.shadowRoot ?? container.attachShadow({ mode: 'open' });
  root.adoptedStyleSheets = [widgetSheet()];
  container.style.minHeight = `${data.height}px`;
  const f = formatter(pageLocale(data.options.locale), now, messages);
  const widget = <Widget data={data} f={f} width={container.clientWidth} label={regionName(container, data.subject, f)} />;
  // Server-rendered markup (GET …/html, which alone carries a <style>) is taken over in place: same nodes, no repaint.
  // Its JSON-LD came with it, from the server, into the host page: none is added from markup.
  // A root this bundle rendered before (ReviewProof.render again) is re-rendered: a diff, not a hydration.
  const hydrating = !!root.querySelector('style');
  if (hydrating) {
    for (const el of Array.from(root.querySelectorAll('style,script'))) el.remove();
    hydrate(widget, root);
  } else render(widget, root);
  try {
    if (hydrating) dropDuplicateJsonLd(document);
    else injectJsonLd(document, data.jsonLd);
  } catch (error) {
    // E.g. Trusted Types forbid script text: the widget itself still works.
    console.warn(LOG_PREFIX, 'JSON-LD not added:', error);
  }
}
