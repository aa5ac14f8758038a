import { jsonLdText } from './json-ld-text.ts';
import { JSON_LD_ATTR } from './protocol.ts';

/** What a JSON-LD document is about: its type and name ("Product Acme Shoes"). */
export function jsonLdSubject(jsonLd: object): string {
  const { '@type': type, name } = jsonLd as { '@type'?: unknown; name?: unknown };
  return `${String(type)} ${String(name)}`;
}

/**
 * Puts the widget's JSON-LD into the host document (search engines do not
 * read shadow roots): one document per subject however many widgets show it,
 * told by each block's content, whatever key a block printed by the site's
 * server carries (docs/json-ld.md prints the widget id). Two Product blocks
 * for one product would be duplicate structured data. Of two documents of one
 * subject the fuller one stays (the longer text, then the smaller): a total
 * order, so the page ends with the same document whatever order its widgets
 * load in. Returns whether the page's document changed.
 */
export function injectJsonLd(doc: Document, jsonLd: object | null): boolean {
  if (!jsonLd) return false;
  const subject = jsonLdSubject(jsonLd);
  const text = jsonLdText(jsonLd);
  for (const script of Array.from(doc.querySelectorAll(`script[${JSON_LD_ATTR}]`))) {
    const other = script.textContent || '';
    // Compared as values, never spliced into a selector: the subject is data. (Text that is
    // not JSON throws: addJsonLd warns, the widget itself still works.)
    if (jsonLdSubject(JSON.parse(other) as object) !== subject) continue;
    if (other.length > text.length || (other.length === text.length && other <= text)) return false;
    script.textContent = text;
    return true;
  }
  const script = doc.createElement('script');
  script.type = 'application/ld+json';
  script.setAttribute(JSON_LD_ATTR, subject);
  script.textContent = text;
  (doc.head ?? doc.documentElement).appendChild(script);
  return true;
}

/**
 * Server-rendered includes each carry their JSON-LD; where several widgets of
 * one subject were included, one document per subject stays once the loader
 * runs, chosen as injectJsonLd chooses.
 */
export function dropDuplicateJsonLd(doc: Document): void {
  for (const script of Array.from(doc.querySelectorAll(`script[${JSON_LD_ATTR}]`))) {
    script.remove();
    injectJsonLd(doc, JSON.parse(script.textContent || '') as object);
  }
}
