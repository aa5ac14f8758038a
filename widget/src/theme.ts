/**
 * The two palettes (used by styles.ts at build time) and the bounds that keep
 * any accent colour readable. `theme.test.ts` checks every text/background
 * pair against WCAG AA, so a tweak here cannot quietly break contrast.
 */

export interface Palette {
  /** Widget background (behind the cards). */
  bg: string;
  /** Card and button background. */
  card: string;
  /** Main text. */
  fg: string;
  /** Secondary text: dates, counts. */
  muted: string;
  /** Borders and dividers (decorative). */
  line: string;
  /** Filled stars. */
  star: string;
  /** Empty stars. */
  starEmpty: string;
  shadow: string;
}

export const LIGHT: Palette = {
  bg: '#f8fafc',
  card: '#fff',
  fg: '#0f172a',
  muted: '#475569',
  line: '#e2e8f0',
  star: '#d97706',
  starEmpty: '#cbd5e1',
  shadow: '0 1px 2px #0f172a0f,0 2px 6px #0f172a0f',
};

export const DARK: Palette = {
  bg: '#0f172a',
  card: '#1e293b',
  fg: '#f1f5f9',
  muted: '#b6c2d2',
  line: '#334155',
  star: '#fbbf24',
  starEmpty: '#475569',
  shadow: '0 1px 2px #0000004d',
};

/** Used when a widget's accent colour is missing or not a hex colour. */
export const DEFAULT_ACCENT = '#4f46e5';

/**
 * OKLCH lightness bounds that give any accent colour 4.5:1 against the
 * theme's backgrounds (theme.test.ts sweeps the sRGB cube to prove it); the
 * stylesheet applies them with relative colour syntax, e.g.
 * oklch(from var(--a) min(l, .48) c h).
 */
export const ACCENT_MAX_L_LIGHT = 0.48;
export const ACCENT_MIN_L_DARK = 0.8;

/** The accent the site owner chose if it is a hex colour, else the default. */
export function accentColor(value: string): string {
  return /^#([\da-f]{3}){1,2}$/i.test(value) ? value : DEFAULT_ACCENT;
}
