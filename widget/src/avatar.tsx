import { initials } from './review-format.ts';
import { httpsUrl } from './guard.ts';

/** White text on each of these keeps 4.5:1 (avatar.test.tsx). */
export const AVATAR_COLORS = ['#4338ca', '#0f766e', '#b45309', '#be123c', '#6d28d9', '#1d4ed8', '#047857', '#a21caf'];

export function avatarColor(name: string): string {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) | 0;
  return AVATAR_COLORS[Math.abs(hash) % AVATAR_COLORS.length]!;
}

/**
 * The author's initials on a colour derived from the name, covered by their
 * picture when it is https and loads; a picture that fails is hidden,
 * uncovering the initials. Decorative: the name is written next to it.
 */
export function Avatar({ name, src }: { name: string; src: string | null }) {
  const url = httpsUrl(src);
  return (
    <span class="avatar" aria-hidden="true" style={{ background: avatarColor(name) }}>
      {initials(name)}
      {url && (
        <img
          src={url}
          alt=""
          loading="lazy"
          referrerpolicy="no-referrer"
          onError={(event) => ((event.currentTarget as HTMLImageElement).hidden = true)}
        />
      )}
    </span>
  );
}
