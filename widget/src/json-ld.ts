import { jsonLdText } from './json-ld-text.ts';
import { JSON_LD_ATTR } from './protocol.ts';

/** What a JSON-LD document is about: its type and name ("Product Acme Shoes"). */
export function jsonLdSubject(jsonLd: object): string {
  const { '@type': type, name } = jsonLd as { '@type'?: unknown; name?: unknown };
  return `${String(type)} ${String(name)}`;
}

/** The document a managed script element holds, or null when its text is not one. */
function parsed(script: Element): object | null {
  try {
    const doc: unknown = JSON.parse(script.textContent || '');
    return doc && typeof doc === 'object' ? doc : null;
  } catch {
    return null;
  }
}

/**
 * Whether document `a` (its text `at`) goes on the page rather than `b` (`bt`), of one
 * subject: the one with more Review items, then the smaller text. A total order, so the
 * page ends with the same document whatever order its widgets (and the server) wrote them in.
 */
function better(a: object, at: string, b: object, bt: string): boolean {
  const items = (d: object): number => {
    const r = (d as { review?: unknown }).review;
    return Array.isArray(r) ? r.length : r ? 1 : 0;
  };
  return items(a) !== items(b) ? items(a) > items(b) : at < bt;
}

/**
 * Puts the widget's JSON-LD into the host document (search engines do not
 * read shadow roots), one document per subject however many widgets show it
 * and whatever key a block printed by the site's server carries (its content
 * says its subject): two Product blocks for one product would be duplicate
 * structured data. Where the page has one already, the better of the two
 * (`better`) stays. Returns whether the page's document changed.
 */
export function injectJsonLd(doc: Document, jsonLd: object | null): boolean {
  if (!jsonLd) return false;
  const subject = jsonLdSubject(jsonLd);
  const text = jsonLdText(jsonLd);
  for (const script of Array.from(doc.querySelectorAll(`script[${JSON_LD_ATTR}]`))) {
    const other = parsed(script);
    // Compared as values, never spliced into a selector: the subject is data.
    if ((other ? jsonLdSubject(other) : script.getAttribute(JSON_LD_ATTR)) !== subject) continue;
    if (!other || !better(jsonLd, text, other, script.textContent || '')) return false;
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
 * runs: the better one (`better`), in the first one's place.
 */
export function dropDuplicateJsonLd(doc: Document): void {
  const kept = new Map<string, [Element, object, string]>();
  for (const script of Array.from(doc.querySelectorAll(`script[${JSON_LD_ATTR}]`))) {
    const d = parsed(script);
    if (!d) continue;
    const subject = jsonLdSubject(d);
    const text = script.textContent || '';
    const first = kept.get(subject);
    if (!first) {
      kept.set(subject, [script, d, text]);
      continue;
    }
    script.remove();
    if (better(d, text, first[1], first[2])) {
      first[0].textContent = text;
      kept.set(subject, [first[0], d, text]);
    }
  }
}
