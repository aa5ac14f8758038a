import { starsLabel, type Formatter } from './format.ts';
import { FiveStars } from './icons.tsx';

/** A 1-5 rating as stars, partly filled for fractions, read out as "4.5 out of 5 stars". */
export const Stars = ({ rating, size, f }: { rating: number; size: number; f: Formatter }) => (
  <span class="stars" role="img" aria-label={starsLabel(rating, f)} style={{ '--s': `${size}px` }}>
    <FiveStars />
    <span class="fill" style={{ width: `${Math.min(100, rating * 20)}%` }}>
      <FiveStars />
    </span>
  </span>
);
