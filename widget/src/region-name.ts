import type { Formatter } from './format.ts';
import { fill } from './messages.ts';

/** Names given on this page, per container: a landmark's name must be unique on the page. */
const given = new WeakMap<Element, string>();
const taken = new Set<string>();

/**
 * "Reviews of Acme Shoes"; a second widget of the same subject on the page
 * becomes "Reviews of Acme Shoes (2)". A container keeps its name when it is
 * rendered again.
 */
export function regionName(container: Element, subject: unknown, f: Formatter): string {
  let name = given.get(container);
  if (name) return name;
  const base = fill(f.t.reviewsOf, { s: typeof subject === 'string' && subject.trim() ? subject.trim() : f.t.heading });
  name = base;
  for (let n = 2; taken.has(name); n++) name = `${base} (${n})`;
  taken.add(name);
  given.set(container, name);
  return name;
}
