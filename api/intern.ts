/**
 * One shared copy of short strings that repeat across records (a platform, a
 * language code, a theme name). Strings that cross a thread or come out of a
 * parser are new copies each time: a million imported reviews otherwise hold
 * a million "GOOGLE"s, "en"s and "service"s, all of which the young
 * generation copies and the heap keeps. Bounded: past 10,000 distinct strings
 * a new one is returned as it is.
 */
const MAX_ENTRIES = 10_000;
const MAX_LENGTH = 100;
const table = new Map<string, string>();

export function intern(value: string): string {
  if (value.length > MAX_LENGTH) return value;
  const shared = table.get(value);
  if (shared !== undefined) return shared;
  if (table.size < MAX_ENTRIES) table.set(value, value);
  return value;
}
