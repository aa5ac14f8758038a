import type { Formatter } from './format.ts';
import { fill } from './messages.ts';

/** Names given on this page, per container (with the base they came from): a landmark's name must be unique on the page. */
const given = new WeakMap<Element, [string, string]>();
const taken = new Set<string>();

/**
 * "Reviews of Acme Shoes"; a second widget of the same subject on the page
 * becomes "Reviews of Acme Shoes (2)". A container keeps its name when it is
 * rendered again for the same subject; a new subject (the dashboard's live
 * preview) gives the old name back and takes a new one.
 */
export function regionName(container: Element, subject: unknown, f: Formatter): string {
  const base = fill(f.t.reviewsOf, { s: typeof subject === 'string' && subject.trim() ? subject.trim() : f.t.heading });
  const had = given.get(container);
  if (had && had[0] === base) return had[1];
  if (had) taken.delete(had[1]);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base} (${n})`;
  taken.add(name);
  given.set(container, [base, name]);
  return name;
}
