/** Inline SVG icons: no requests, no fonts, drawn in currentColor. All decorative. */

/** A 24×24 icon; `line` paths are stroked (chevrons, cross), others filled. */
export const Icon = ({ d, line }: { d: string; line?: boolean }) => (
  <svg viewBox="0 0 24 24" aria-hidden="true" class={line ? 'line' : undefined}>
    <path d={d} />
  </svg>
);

export const LEFT = 'M15 5l-7 7 7 7';
export const RIGHT = 'M9 5l7 7-7 7';
export const CLOSE = 'M6 6l12 12M18 6 6 18';
export const PAUSE = 'M6 5h4v14H6zm8 0h4v14h-4z';
export const PLAY = 'M8 5v14l11-7z';
/** A check in a circle. */
export const CHECK = 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20m-2 15-5-5 1.4-1.4 3.6 3.6 7.6-7.6L19 8z';
