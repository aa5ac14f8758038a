/**
 * ISO 8601 dates as people write them, read the same way by the import
 * (a review's `date`) and by the API's `since`: a date (`2026-11-20`, 00:00
 * UTC of that day), or a date-time with `T` or a space, minutes with or
 * without seconds and a fraction, and an offset `Z`, `±HH:MM`, `±HHMM` or
 * `±HH`. A date-time without an offset is read as UTC; the import counts
 * those (`readAsUtc`) and says so in its summary, `since` refuses them
 * (its pattern in api/openapi/parameters.ts asks for an offset).
 */

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

/** The form stored dates take (and most exports use): parsed by parseIsoDate's fast path. */
const CANONICAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;

/** An ISO 8601 date or date-time as canonical UTC; null when it is not one, or names no real day or time. */
export function parseIsoDate(value: string): string | null {
  // Already canonical UTC with a day every month has and an hour, minute and second in range: that is the answer.
  const c = CANONICAL.exec(value);
  if (c && c[2]! >= '01' && c[2]! <= '12' && c[3]! >= '01' && c[3]! <= '28' && c[4]! <= '23' && c[5]! <= '59' && c[6]! <= '59') return value;
  const m = ISO_DATE.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zulu, sign, oh = '0', om = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return null;
  if (Number(oh) > 23 || Number(om) > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(frac.slice(0, 3).padEnd(3, '0')));
  // A time without an offset is taken as UTC, like a date without a time.
  const offset = zulu || !sign ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const iso = new Date(date.getTime() - offset * 60_000).toISOString();
  return /^\d{4}-/.test(iso) ? iso : null;
}

/** A date-time written without an offset ("2026-11-20 10:00"): parseIsoDate reads its clock time as UTC. */
export function readAsUtc(value: string): boolean {
  if (CANONICAL.test(value)) return false;
  const m = ISO_DATE.exec(value.trim());
  return m !== null && m[4] !== undefined && m[8] === undefined && m[9] === undefined;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
