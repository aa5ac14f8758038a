/**
 * The HTML a site owner pastes, and the same thing as plain JavaScript for tag
 * managers. Both only name the widget id and the service origin: the API key
 * never appears, and the loader fetches the public data itself.
 */
import { ASSET_PATH, CONTAINER_ATTR, HEIGHT_ATTR, LOADER_FILE, NAMESPACE } from './protocol.ts';

export interface SnippetInput {
  /** The service origin, e.g. https://reviews.example.com (a path is ignored). */
  origin: string;
  widgetId: string;
  /** Reserved height in pixels: `layoutHeight(layout, options)`. */
  height: number;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/** The origin alone, http(s) only; anything else is a programming error. */
export function normalizeOrigin(origin: string): string {
  const url = new URL(origin);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`widget origin must be http(s), got ${url.protocol}`);
  }
  return url.origin;
}

function normalizeHeight(height: number): number {
  if (!Number.isFinite(height) || height < 0) throw new Error(`widget height must be a non-negative number, got ${height}`);
  return Math.round(height);
}

/** URL of the loader on the service origin. */
export function loaderUrl(origin: string): string {
  return `${normalizeOrigin(origin)}${ASSET_PATH}${LOADER_FILE}`;
}

/**
 * `<div class="rv-widget" data-rv-widget="ID" style="min-height:Hpx" data-rv-height="H"></div>`
 * followed by the async loader. Under a CSP without 'unsafe-inline' the style
 * attribute is ignored; the loader then reserves the height from data-rv-height.
 */
export function snippetFor({ origin, widgetId, height }: SnippetInput): string {
  const h = normalizeHeight(height);
  const id = escapeHtml(widgetId);
  return (
    `<div class="rv-widget" ${CONTAINER_ATTR}="${id}" style="min-height:${h}px" ${HEIGHT_ATTR}="${h}"></div>` +
    `<script async src="${escapeHtml(loaderUrl(origin))}"></script>`
  );
}

/**
 * Plain JavaScript (no <script> tags) for tag managers. It makes sure a
 * container for the widget exists (one the site owner placed with
 * data-rv-widget="ID", else a new one inserted where the script runs when
 * that is inside <body>, else at the end of <body>), reserves its height,
 * then loads the loader once (or asks an already loaded one to re-scan). It
 * relies on nothing around it, so a tag manager can fire it at any time,
 * from <head> or <body>, even twice.
 */
export function loaderScriptFor({ origin, widgetId, height }: SnippetInput): string {
  const h = normalizeHeight(height);
  // JSON.stringify makes safe JS string literals; '<' is escaped in case the
  // tag manager wraps this in a <script> element.
  const lit = (value: string): string => JSON.stringify(value).replace(/</g, '\\u003c');
  return `(function (d, w) {
  var id = ${lit(widgetId)}, src = ${lit(loaderUrl(origin))}, h = ${h}, at = d.currentScript;
  function go() {
    var found = false, all = d.querySelectorAll('[${CONTAINER_ATTR}]');
    for (var i = 0; i < all.length; i++) if (all[i].getAttribute('${CONTAINER_ATTR}') === id) found = true;
    if (!found) {
      var el = d.createElement('div');
      el.className = 'rv-widget';
      el.setAttribute('${CONTAINER_ATTR}', id);
      el.setAttribute('${HEIGHT_ATTR}', String(h));
      el.style.minHeight = h + 'px';
      if (at && at.parentNode && d.body.contains(at)) at.parentNode.insertBefore(el, at);
      else d.body.appendChild(el);
    }
    var ns = w[${lit(NAMESPACE)}];
    if (ns && typeof ns.scan === 'function') return ns.scan();
    var s = d.scripts;
    for (var j = 0; j < s.length; j++) if (s[j].src === src) return;
    var tag = d.createElement('script');
    tag.async = true;
    tag.src = src;
    (d.head || d.documentElement).appendChild(tag);
  }
  // In <head>, before <body> exists: wait for the document, and for any container the owner placed.
  if (d.body) go();
  else d.addEventListener('DOMContentLoaded', go);
})(document, window);
`;
}
