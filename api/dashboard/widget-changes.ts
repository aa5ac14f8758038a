/**
 * What a widget update changed, in the builder's own words, for the audit
 * log: the builder sends every field on each save, so the record compares
 * the widget before and after and names only the fields whose value moved
 * ("Name: “Home page” → “Front page”", "Platforms: all → Google, Yelp").
 */
import { platformLook } from '../../widget/src/platforms.ts';
import type { Widget } from '../store/types.ts';

type Value = string | number | boolean | null | string[] | undefined;

const quoted = (v: Value): string => (v === null || v === undefined || v === '' ? 'none' : `“${String(v)}”`);
const yesNo = (v: Value): string => (v ? 'on' : 'off');
const words =
  (table: Record<string, string>) =>
  (v: Value): string =>
    table[String(v)] ?? String(v);

/** One label and one way to say a value, per field the builder edits, in the builder's order. */
const FIELDS: { label: string; of: (w: Widget) => Value; say: (v: Value) => string }[] = [
  { label: 'Name', of: (w) => w.name, say: quoted },
  { label: 'Layout', of: (w) => w.layout, say: words({ carousel: 'carousel', grid: 'grid', list: 'list', badge: 'badge' }) },
  { label: 'Theme', of: (w) => w.options.theme, say: words({ light: 'light', dark: 'dark', auto: 'automatic' }) },
  { label: 'Accent colour', of: (w) => w.options.accentColor, say: (v) => String(v) },
  { label: 'Reviews shown', of: (w) => w.options.maxReviews, say: (v) => String(v) },
  { label: 'Minimum stars', of: (w) => w.options.minRating, say: (v) => (v === null ? 'any' : `${String(v)}+`) },
  {
    label: 'Platforms',
    of: (w) => w.options.platforms,
    say: (v) => (Array.isArray(v) ? v.map((p) => platformLook(p).name).join(', ') : 'all'),
  },
  {
    label: 'Sources',
    of: (w) => w.options.sourceIds ?? null,
    say: (v) => (Array.isArray(v) ? v.join(', ') : 'all'),
  },
  { label: 'Hide reviews without text', of: (w) => w.options.hideEmpty, say: yesNo },
  { label: 'Show dates', of: (w) => w.options.showDates, say: yesNo },
  { label: 'Widget language', of: (w) => w.options.locale, say: (v) => (v === null ? 'automatic' : String(v)) },
  { label: 'Show replies', of: (w) => w.options.showReplies !== false, say: yesNo },
  { label: 'Reviews by language', of: (w) => w.options.reviewLanguages ?? 'all', say: words({ all: 'all languages', page: 'the visitor’s language' }) },
  { label: 'Rich results markup', of: (w) => w.options.jsonLd, say: words({ auto: 'automatic', on: 'always', off: 'never' }) },
  { label: 'Type of what is reviewed', of: (w) => w.subject.type, say: (v) => String(v).replace(/([a-z])([A-Z])/g, '$1 $2') },
  { label: 'Name of what is reviewed', of: (w) => w.subject.name, say: quoted },
  { label: 'Page address', of: (w) => w.subject.url, say: quoted },
  { label: 'Image address', of: (w) => w.subject.image, say: quoted },
  { label: 'Brand', of: (w) => w.subject.brand, say: quoted },
];

const same = (a: Value, b: Value): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Each changed field as "Label: before → after"; empty when the save changed nothing. */
export function widgetChanges(before: Widget, after: Widget): string[] {
  return FIELDS.filter((f) => !same(f.of(before), f.of(after))).map((f) => `${f.label}: ${f.say(f.of(before))} → ${f.say(f.of(after))}`);
}
