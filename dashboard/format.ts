/** Dates and numbers as the person's browser says them (Intl), in their time zone. */
import { displayRating } from '../widget/src/rating-display.ts';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const number = new Intl.NumberFormat();
const decimal = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 2 });

export const formatDateTime = (iso: string | null, none = 'Never'): string => (iso ? dateTime.format(new Date(iso)) : none);
export const formatDate = (iso: string | null, none = 'Never'): string => (iso ? dateOnly.format(new Date(iso)) : none);
export const formatNumber = (n: number): string => number.format(n);
export const formatDecimal = (n: number | null): string => (n === null ? '–' : decimal.format(n));
const tenth = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** An average rating as people read it everywhere (widget/src/rating-display.ts: 4.15 → "4.2"). */
export const formatRating = (average: number | null): string => (average === null ? '–' : tenth.format(displayRating(average)));

/** The person's time zone, for the hint under date fields. */
export const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** YYYY-MM-DD of today in the person's time zone (the earliest expiration date). */
export function todayLocal(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The end of a chosen day (YYYY-MM-DD) in the person's time zone, as an ISO instant. */
export function endOfLocalDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d, 23, 59, 59, 999).toISOString();
}

export const ROLE_LABELS = { owner: 'Owner', admin: 'Admin', member: 'Member' } as const;
export const PLAN_LABELS = { free: 'Free', starter: 'Starter', growth: 'Growth', agency: 'Agency' } as const;

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];
/** "5 minutes ago", "in 2 hours", "now"; `none` when there is no time. */
export function formatRelative(iso: string | null, none = 'Never', now = Date.now()): string {
  if (!iso) return none;
  const diff = Date.parse(iso) - now;
  for (const [unit, ms] of UNITS) if (Math.abs(diff) >= ms) return relative.format(Math.round(diff / ms), unit);
  return diff < 0 ? 'just now' : 'within a minute';
}
