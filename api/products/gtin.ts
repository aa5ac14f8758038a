/**
 * GTIN (GS1 Global Trade Item Number): 8, 12, 13 or 14 digits whose last is a
 * check digit (GS1 General Specifications §7.9.1): from the right, the digits
 * before it are weighted 3, 1, 3, 1, …; the check digit brings the weighted
 * sum up to a multiple of 10.
 */
export const GTIN_LENGTHS = [8, 12, 13, 14] as const;

/** The check digit of the digits before it (a string of decimal digits). */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += (body.charCodeAt(i) - 48) * weight;
  return (10 - (sum % 10)) % 10;
}

/** Why `value` is not a GTIN, or null when it is one (its length allowed, its check digit right). */
export function gtinProblem(value: string): string | null {
  if (!/^\d+$/.test(value)) return 'gtin must be digits only';
  if (!(GTIN_LENGTHS as readonly number[]).includes(value.length)) return 'gtin must have 8, 12, 13 or 14 digits';
  const expected = gtinCheckDigit(value.slice(0, -1));
  if (Number(value.at(-1)) !== expected) return `gtin's check digit is wrong (expected ${expected} for ${value.slice(0, -1)})`;
  return null;
}
