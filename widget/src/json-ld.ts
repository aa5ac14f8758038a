import { jsonLdText } from './json-ld-text.ts';
import { JSON_LD_ATTR } from './protocol.ts';

/**
 * Puts the widget's JSON-LD into the host document (search engines do not
 * read shadow roots), once per widget id however many containers show it.
 * Returns whether a script element was added.
 */
export function injectJsonLd(doc: Document, widgetId: string, jsonLd: object | null): boolean {
  if (!jsonLd) return false;
  const existing = Array.from(doc.querySelectorAll(`script[${JSON_LD_ATTR}]`));
  // Compared as attribute values, never spliced into a selector: the id is data.
  if (existing.some((s) => s.getAttribute(JSON_LD_ATTR) === widgetId)) return false;
  const script = doc.createElement('script');
  script.type = 'application/ld+json';
  script.setAttribute(JSON_LD_ATTR, widgetId);
  script.textContent = jsonLdText(jsonLd);
  (doc.head ?? doc.documentElement).appendChild(script);
  return true;
}
