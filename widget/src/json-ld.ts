import { jsonLdText } from './json-ld-text.ts';
import { JSON_LD_ATTR } from './protocol.ts';

/** What a JSON-LD document is about: its type and name ("Product Acme Shoes"). */
export function jsonLdSubject(jsonLd: object): string {
  const { '@type': type, name } = jsonLd as { '@type'?: unknown; name?: unknown };
  return `${String(type)} ${String(name)}`;
}

/**
 * Puts the widget's JSON-LD into the host document (search engines do not
 * read shadow roots), once per subject however many widgets show it: two
 * Product blocks for one product would be duplicate structured data.
 * Returns whether a script element was added.
 */
export function injectJsonLd(doc: Document, jsonLd: object | null): boolean {
  if (!jsonLd) return false;
  const subject = jsonLdSubject(jsonLd);
  const existing = Array.from(doc.querySelectorAll(`script[${JSON_LD_ATTR}]`));
  // Compared as attribute values, never spliced into a selector: the subject is data.
  if (existing.some((s) => s.getAttribute(JSON_LD_ATTR) === subject)) return false;
  const script = doc.createElement('script');
  script.type = 'application/ld+json';
  script.setAttribute(JSON_LD_ATTR, subject);
  script.textContent = jsonLdText(jsonLd);
  (doc.head ?? doc.documentElement).appendChild(script);
  return true;
}

/**
 * Server-rendered includes each carry their JSON-LD; where several widgets of
 * one subject were included, the copies after the first go once the loader runs.
 */
export function dropDuplicateJsonLd(doc: Document): void {
  const seen = new Set<string | null>();
  for (const script of Array.from(doc.querySelectorAll(`script[${JSON_LD_ATTR}]`))) {
    const subject = script.getAttribute(JSON_LD_ATTR);
    if (seen.has(subject)) script.remove();
    seen.add(subject);
  }
}
