/**
 * Calendar months in UTC, as `YYYY-MM` keys: the unit of the Overview's
 * series (both stores bucket a review by the UTC month of its `date`).
 */

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The UTC month of an instant. */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

function parts(month: string): [number, number] {
  const m = MONTH.exec(month);
  if (!m) throw new RangeError(`not a month (YYYY-MM): ${month}`);
  return [Number(m[1]), Number(m[2])];
}

/** The month `n` months after (negative: before) the given one. */
export function addMonths(month: string, n: number): string {
  const [y, m] = parts(month);
  const index = y * 12 + (m - 1) + n;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Every month from..to inclusive, oldest first (empty when from > to). */
export function monthsBetween(from: string, to: string): string[] {
  parts(to);
  const out: string[] = [];
  for (let month = from; month <= to; month = addMonths(month, 1)) out.push(month);
  return out;
}

/** The first instant of a month, UTC. */
export function monthStart(month: string): Date {
  const [y, m] = parts(month);
  const d = new Date(0);
  d.setUTCFullYear(y, m - 1, 1); // not Date.UTC: it reads years 0-99 as 1900-1999
  return d;
}
