/**
 * The evaluation set of review intelligence: hand-written reviews, one JSON
 * object a line in eval/*.jsonl: `l` the language (ISO 639-1), `s` the
 * sentiment class (P positive, N negative, U neutral), `t` the text as a
 * reviewer would post it (short ones, negations, mixed opinions, emoji,
 * HTML-looking markup). Written once for measuring, not tuned case by case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SentimentLabel } from '../../api/store/types.ts';

export interface EvalReview {
  language: string;
  label: SentimentLabel;
  text: string;
}

const LABELS: Record<string, SentimentLabel> = { P: 'POSITIVE', N: 'NEGATIVE', U: 'NEUTRAL' };
const DIR = join(import.meta.dirname, 'eval');

export function loadEvalSet(): EvalReview[] {
  const out: EvalReview[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).sort()) {
    readFileSync(join(DIR, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.trim() === '') return;
        const row = JSON.parse(line) as { l: string; s: string; t: string };
        const label = LABELS[row.s];
        if (!label || !/^[a-z]{2}$/.test(row.l) || typeof row.t !== 'string') throw new Error(`${file}:${i + 1}: bad evaluation row`);
        out.push({ language: row.l, label, text: row.t });
      });
  }
  return out;
}
