/**
 * Formatting only the reviews need (the framed layouts), apart from format.ts
 * so that the badge's chunk does not carry it.
 */
import type { Formatter } from './format.ts';
import { nextTask } from './mount.ts';

/** Seconds per unit, largest first. */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31536000],
  ['month', 2592000],
  ['week', 604800],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 weeks ago", "yesterday", "vor 2 Monaten"; '' for an unparsable date. */
export function relativeDate(iso: string, f: Formatter): string {
  const seconds = (Date.parse(iso) - f.now) / 1000;
  if (Number.isNaN(seconds)) return '';
  const [unit, size] = UNITS.find(([, size]) => Math.abs(seconds) >= size) ?? ['second', 1];
  return f.relative.format(Math.trunc(seconds / size), unit);
}

const LETTER = /[\p{L}\p{N}]/u;

/** Up to two letters, from the first and the last word; '?' when there are none. */
export function initials(name: string): string {
  const words = name.split(/\s+/).filter((w) => LETTER.test(w));
  const first = (w = ''): string => (Array.from(w).find((c) => LETTER.test(c)) ?? '').toLocaleUpperCase();
  return first(words[0]) + (words.length > 1 ? first(words[words.length - 1]) : '') || '?';
}

/**
 * Makes the formatters the framed layouts use before they render, one task
 * each: the first Intl object of a page costs tens of milliseconds on a slow
 * phone (the browser loads its locale data), and each of the others a few.
 */
export async function warmUp(f: Formatter): Promise<void> {
  await nextTask();
  f.number(1, true);
  await nextTask();
  void f.relative;
  await nextTask();
  void f.plural;
  await nextTask();
}
