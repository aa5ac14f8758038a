import { describe, expect, it } from 'vitest';
import { AVATAR_COLORS } from './avatar.tsx';
import { contrast, parseHex } from './color.ts';
import { PLATFORMS } from './platforms.ts';
import { ACCENT_MAX_L_LIGHT, ACCENT_MIN_L_DARK, DARK, LIGHT, accentColor } from './theme.ts';

const rgb = (hex: string) => parseHex(hex)!;
const WHITE = rgb('#ffffff');

describe('palettes', () => {
  for (const [name, p] of [['light', LIGHT], ['dark', DARK]] as const) {
    it(`${name}: text is AA (4.5:1) on both backgrounds, stars 3:1 on cards`, () => {
      for (const bg of [p.bg, p.card]) {
        expect(contrast(rgb(p.fg), rgb(bg))).toBeGreaterThanOrEqual(4.5);
        expect(contrast(rgb(p.muted), rgb(bg))).toBeGreaterThanOrEqual(4.5);
      }
      expect(contrast(rgb(p.star), rgb(p.card))).toBeGreaterThanOrEqual(3);
    });
  }

  it('white initials and platform glyphs are AA on their tiles', () => {
    for (const c of AVATAR_COLORS) expect(contrast(rgb(c), WHITE), c).toBeGreaterThanOrEqual(4.5);
    for (const p of Object.values(PLATFORMS)) expect(contrast(rgb(p.color), WHITE), p.name).toBeGreaterThanOrEqual(4.5);
  });
});

// OKLab as CSS Color 4 defines it, to check what `oklch(from X min(l, L) c h)` draws.
const lin = (c: number) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const unlin = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
function toOklab([r, g, b]: number[]): number[] {
  const [lr, lg, lb] = [lin(r!), lin(g!), lin(b!)];
  const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
  const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
  const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
  return [0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s, 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s, 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s];
}
function fromOklab([L, a, b]: number[]): number[] {
  const l = (L! + 0.3963377774 * a! + 0.2158037573 * b!) ** 3;
  const m = (L! - 0.1055613458 * a! - 0.0638541728 * b!) ** 3;
  const s = (L! - 0.0894841775 * a! - 1.291485548 * b!) ** 3;
  const linear = [4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s, -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s, -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s];
  // Out-of-gamut results clipped: the worst case for contrast (gamut mapping only helps).
  return linear.map((c) => Math.round(unlin(Math.min(1, Math.max(0, c))) * 255));
}

describe('accent bounds', () => {
  it('any sRGB accent, brought under/over the lightness bound, is AA on its theme', () => {
    let worstLight = 21;
    let worstDark = 21;
    for (let r = 0; r <= 255; r += 17) {
      for (let g = 0; g <= 255; g += 17) {
        for (let b = 0; b <= 255; b += 17) {
          const [L, A, B] = toOklab([r, g, b]);
          const light = fromOklab([Math.min(L!, ACCENT_MAX_L_LIGHT), A!, B!]);
          const dark = fromOklab([Math.max(L!, ACCENT_MIN_L_DARK), A!, B!]);
          for (const bg of [LIGHT.bg, LIGHT.card]) worstLight = Math.min(worstLight, contrast(light, rgb(bg)));
          for (const bg of [DARK.bg, DARK.card]) worstDark = Math.min(worstDark, contrast(dark, rgb(bg)));
        }
      }
    }
    expect(worstLight).toBeGreaterThanOrEqual(4.5);
    expect(worstDark).toBeGreaterThanOrEqual(4.5);
  });

  it('only hex colours pass through as the accent', () => {
    expect(accentColor('#0F766E')).toBe('#0F766E');
    expect(accentColor('#abc')).toBe('#abc');
    for (const bad of ['red', '#12345', 'url(x)', '#fff;background:red', '']) expect(accentColor(bad)).toBe('#4f46e5');
  });
});
