/**
 * `Retry-After` (RFC 9110 §10.2.3): either a number of seconds or an HTTP
 * date. The answer is a delay in milliseconds from `now`, never negative;
 * null when the header is absent or unreadable (then the schedule alone counts).
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (raw === undefined || raw === '') return null;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // An HTTP date (IMF-fixdate, or the obsolete RFC 850 and asctime forms) has a month name and a
  // hh:mm:ss time; Date.parse alone would also take "12 May" or "2026".
  if (!/(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/.test(raw) || !/\d\d:\d\d:\d\d/.test(raw)) return null;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}
