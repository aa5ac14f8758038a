import { starsLabel, type Formatter } from './format.ts';

const STAR = 'M12 17.3 18.2 21l-1.7-7 5.5-4.8-7.2-.6L12 2 9.2 8.6 2 9.2 7.5 14l-1.7 7z';

/** Five stars in one SVG, 24 units apart. */
export const FiveStars = () => (
  <svg viewBox="0 0 120 24" aria-hidden="true">
    {[0, 24, 48, 72, 96].map((x) => (
      <path d={STAR} transform={`translate(${x})`} />
    ))}
  </svg>
);

/** A 1-5 rating as stars, partly filled for fractions, read out as "4.5 out of 5 stars". */
export const Stars = ({ rating, size, f }: { rating: number; size: number; f: Formatter }) => (
  <span class="stars" role="img" aria-label={starsLabel(rating, f)} style={{ '--s': `${size}px` }}>
    <FiveStars />
    <span class="fill" style={{ width: `${Math.min(100, rating * 20)}%` }}>
      <FiveStars />
    </span>
  </span>
);
