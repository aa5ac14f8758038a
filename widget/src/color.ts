/**
 * WCAG contrast arithmetic, for the tests that hold the palettes and the
 * accent bounds to AA (not shipped in the bundle).
 */

export type Rgb = number[];

/** #rgb or #rrggbb → [r, g, b] 0-255; null for anything else. */
export function parseHex(value: string): Rgb | null {
  let hex = value.trim();
  if (!/^#([\da-f]{3}){1,2}$/i.test(hex)) return null;
  if (hex.length === 4) hex = hex.replace(/\w/g, '$&$&');
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

/** WCAG 2 relative luminance. */
export function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((c) => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG 2 contrast ratio, 1-21. */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
