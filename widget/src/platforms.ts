/**
 * How each review platform is named and marked. Marks are coloured tiles with
 * a letter, not logos: no external images, no trademarks to get wrong. The
 * tile colours keep white text at 4.5:1 or more (platforms.test.ts).
 */

export interface PlatformLook {
  name: string;
  /** One or two characters drawn on the tile. */
  glyph: string;
  color: string;
}

export const PLATFORMS: Record<string, PlatformLook> = {
  GOOGLE: { name: 'Google', glyph: 'G', color: '#1a67d2' },
  YELP: { name: 'Yelp', glyph: 'Y', color: '#c41f1f' },
  TRUSTPILOT: { name: 'Trustpilot', glyph: '★', color: '#007a53' },
  G2: { name: 'G2', glyph: 'G2', color: '#d0331f' },
  CAPTERRA: { name: 'Capterra', glyph: 'C', color: '#044d80' },
  FACEBOOK: { name: 'Facebook', glyph: 'f', color: '#1465cc' },
};

const OTHER_COLOR = '#475569';

export function platformLook(id: string): PlatformLook {
  if (Object.hasOwn(PLATFORMS, id)) return PLATFORMS[id]!;
  return { name: id.charAt(0) + id.slice(1).toLowerCase(), glyph: id.charAt(0), color: OTHER_COLOR };
}
