/**
 * GET /public/v1/widgets/{id}/html (CONTRACT §8): the widget rendered on the
 * server by the bundle's own Preact components, inside a declarative shadow
 * root with its stylesheet, followed by its JSON-LD. Crawlers and visitors
 * without JavaScript see the reviews; the loader, when also on the page,
 * hydrates this markup in place from the data embedded next to it (no second
 * fetch, no layout shift).
 */
import { render } from 'preact-render-to-string';
import { jsonLdScriptTag } from '../../schema/inject.ts';
import { formatter } from '../../widget/src/format.ts';
import { CATALOGS } from '../../widget/src/i18n/catalogs.ts';
import { jsonLdSubject } from '../../widget/src/json-ld.ts';
import { jsonLdText } from '../../widget/src/json-ld-text.ts';
import { CONTAINER_ATTR, DATA_ATTR, HEIGHT_ATTR, PRODUCT_ATTR } from '../../widget/src/protocol.ts';
import type { PublicWidgetData } from '../../widget/src/public-data.ts';
import { EN, fill } from '../../widget/src/messages.ts';
import { cssOf } from '../../widget/src/styles.ts';
import { Widget } from '../../widget/src/widget.tsx';

/** Width the server lays the widget out for (three columns): what a desktop page shows. */
export const SERVER_WIDTH = 1040;

const escapeAttribute = (value: string): string => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * `lang` is the host page's language (the include knows it; the server cannot
 * read <html lang>); the widget's own locale option wins over it.
 */
export function widgetHtml(data: PublicWidgetData, lang: string | null, now = Date.now(), productId: string | null = null): string {
  const locale = data.options.locale ?? lang ?? 'en';
  const messages = CATALOGS[locale.split('-')[0]!.toLowerCase()] ?? EN;
  const f = formatter(locale, now, messages);
  const label = fill(f.t.reviewsOf, { s: data.subject.trim() || f.t.heading });
  const inner = render(<Widget data={data} f={f} width={SERVER_WIDTH} label={label} />);
  const id = escapeAttribute(data.id);
  // The page's product (productFrom: "page") stays on the container, as on a snippet's.
  const product = productId === null ? '' : ` ${PRODUCT_ATTR}="${escapeAttribute(productId)}"`;
  return (
    `<div class="rv-widget" ${CONTAINER_ATTR}="${id}"${product} ${HEIGHT_ATTR}="${data.height}" style="min-height:${data.height}px">` +
    `<template shadowrootmode="open"><style>${cssOf(data.layout)}</style>` +
    // The data the loader hydrates from; JSON with <, >, & escaped cannot end the element.
    `<script type="application/json" ${DATA_ATTR}>${jsonLdText(data)}</script>${inner}</template></div>` +
    (data.jsonLd ? jsonLdScriptTag(data.jsonLd, jsonLdSubject(data.jsonLd)) : '') +
    '\n'
  );
}
