/**
 * The evaluation set of review intelligence: hand-written reviews, one JSON
 * object a line in eval/*.jsonl: `l` the language (ISO 639-1), `s` the
 * sentiment class (P positive, N negative, U neutral), `t` the text as a
 * reviewer would post it (short ones, negations, mixed opinions, emoji,
 * HTML-looking markup). Written once for measuring, not tuned case by case.
 *
 * `eval/held-out/*.jsonl` is a second set in the same format, written before
 * the scorer's rules were last changed and never looked at while changing
 * them: its accuracy tells whether a rule that helped the main set is general
 * or fitted to it. The bench prints the two separately.
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

export type EvalPart = 'main' | 'held-out';

export function loadEvalSet(part: EvalPart = 'main'): EvalReview[] {
  const dir = part === 'main' ? DIR : join(DIR, 'held-out');
  const out: EvalReview[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
    readFileSync(join(dir, file), 'utf8')
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
