import { platformLook } from './platforms.ts';

/** A small coloured tile naming the review's platform. */
export function PlatformMark({ platform, size }: { platform: string; size: number }) {
  const look = platformLook(platform);
  return (
    <span class="mark" role="img" aria-label={look.name} title={look.name} style={{ background: look.color, '--m': `${size}px` }}>
      {look.glyph}
    </span>
  );
}
