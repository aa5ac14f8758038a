/**
 * `npm run bench:intelligence`: review intelligence measured on the
 * evaluation set (eval-set.ts).
 *
 * 1. The service's pipeline (api/intelligence/enrich.ts), per language:
 *    language accuracy on texts of 20 characters or more (shorter ones take
 *    the organization's default language by design), sentiment-class accuracy,
 *    POSITIVE↔NEGATIVE confusions, reviews/s. Each language's reviews are
 *    enriched as an organization of that language would (its default language
 *    set to it). Sentiment of languages without a lexicon must be null.
 * 2. The candidate libraries side by side (candidates.ts): language
 *    identification over every text of 20+ characters; sentiment over the
 *    seven lexicon languages, given the labelled language.
 * Figures only; no test asserts on them.
 */
import { clearAnalysisCache, enrich } from '../../api/intelligence/enrich.ts';
import { isSentimentLanguage, SENTIMENT_LANGUAGES } from '../../api/intelligence/languages.ts';
import { plainText } from '../../api/intelligence/text.ts';
import { LANGUAGE_CANDIDATES, sentimentCandidates } from './candidates.ts';
import { loadEvalSet, type EvalReview } from './eval-set.ts';

const LONG_ENOUGH = 20;
/** Timed passes over each language's reviews (after one untimed warm-up). */
const PASSES = 20;

const pct = (n: number, d: number): string => (d === 0 ? '–' : `${((100 * n) / d).toFixed(1)}%`);
const rate = (n: number, ms: number): string => Math.round((n * 1000) / ms).toLocaleString('en');

function row(cells: (string | number)[]): string {
  return `| ${cells.join(' | ')} |`;
}

const set = loadEvalSet();
const heldOut = loadEvalSet('held-out');
/** `--pipeline-only`: the service's figures without the (slow) comparison of candidate libraries. */
const PIPELINE_ONLY = process.argv.includes('--pipeline-only');
const blank = { sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] };

function pipelineTable(reviews: EvalReview[], passes: number): void {
  const byLanguage = new Map<string, EvalReview[]>();
  for (const r of reviews) byLanguage.set(r.language, [...(byLanguage.get(r.language) ?? []), r]);
  const order = [...SENTIMENT_LANGUAGES, ...[...byLanguage.keys()].filter((l) => !isSentimentLanguage(l)).sort()].filter((l) => byLanguage.has(l));
  process.stdout.write(`${row(['language', 'reviews', 'language accuracy (≥ 20 chars)', 'sentiment accuracy', 'POSITIVE↔NEGATIVE', 'reviews/s'])}\n${row(['---', '---', '---', '---', '---', '---'])}\n`);
  const totals = { langOk: 0, langN: 0, sentOk: 0, sentN: 0, pn: 0 };
  for (const language of order) {
    const group = byLanguage.get(language)!;
    let langOk = 0;
    let langN = 0;
    let sentOk = 0;
    let pn = 0;
    let nulls = 0;
    for (const r of group) {
      const out = enrich({ content: r.text, language: null, ...blank }, language);
      if (plainText(r.text).length >= LONG_ENOUGH) {
        langN++;
        if (out.language === r.language) langOk++;
      }
      if (out.sentimentLabel === null) nulls++;
      if (out.sentimentLabel === r.label) sentOk++;
      if ((out.sentimentLabel === 'POSITIVE' && r.label === 'NEGATIVE') || (out.sentimentLabel === 'NEGATIVE' && r.label === 'POSITIVE')) pn++;
    }
    let speed = '';
    if (passes > 0) {
      for (const r of group) enrich({ content: r.text, language: null, ...blank }, language);
      const started = performance.now();
      for (let pass = 0; pass < passes; pass++) {
        clearAnalysisCache();
        for (const r of group) enrich({ content: r.text, language: null, ...blank }, language);
      }
      speed = rate(group.length * passes, performance.now() - started);
    }
    const lexicon = isSentimentLanguage(language);
    totals.langOk += langOk;
    totals.langN += langN;
    if (lexicon) {
      totals.sentOk += sentOk;
      totals.sentN += group.length;
      totals.pn += pn;
    }
    process.stdout.write(
      `${row([
        language,
        group.length,
        `${pct(langOk, langN)} (${langOk}/${langN})`,
        lexicon ? `${pct(sentOk, group.length)} (${sentOk}/${group.length})` : `null for ${nulls}/${group.length} (no lexicon)`,
        lexicon ? `${pct(pn, group.length)} (${pn})` : '–',
        speed,
      ])}\n`,
    );
  }
  process.stdout.write(
    `${row(['all', reviews.length, `${pct(totals.langOk, totals.langN)} (${totals.langOk}/${totals.langN})`, `${pct(totals.sentOk, totals.sentN)} (lexicon languages)`, `${pct(totals.pn, totals.sentN)}`, ''])}\n\n`,
  );
}

process.stdout.write(`Evaluation set: ${set.length} reviews (bench/intelligence/eval); held-out set: ${heldOut.length} reviews (bench/intelligence/eval/held-out)\n\n`);
process.stdout.write('Service pipeline (eld/small + AFINN/nlp.js lexicons, negation, contrast), main set:\n\n');
pipelineTable(set, PASSES);
process.stdout.write('Service pipeline, held-out set (not looked at while changing the rules):\n\n');
pipelineTable(heldOut, 0);
if (PIPELINE_ONLY) process.exit(0);

process.stdout.write('Language identification candidates (every text of 20+ characters, markup removed):\n\n');
process.stdout.write(`${row(['library', 'accuracy', 'texts/s'])}\n${row(['---', '---', '---'])}\n`);
const longTexts = set.map((r) => ({ ...r, plain: plainText(r.text) })).filter((r) => r.plain.length >= LONG_ENOUGH);
for (const [name, detect] of Object.entries(LANGUAGE_CANDIDATES)) {
  let ok = 0;
  for (const r of longTexts) if (detect(r.plain) === r.language) ok++;
  const started = performance.now();
  for (let pass = 0; pass < 5; pass++) for (const r of longTexts) detect(r.plain);
  process.stdout.write(`${row([name, `${pct(ok, longTexts.length)} (${ok}/${longTexts.length})`, rate(longTexts.length * 5, performance.now() - started)])}\n`);
}

process.stdout.write('\nSentiment candidates (the seven lexicon languages, labelled language given):\n\n');
process.stdout.write(`${row(['analyser', ...SENTIMENT_LANGUAGES, 'all', 'POSITIVE↔NEGATIVE', 'worst language P↔N', 'texts/s'])}\n${row(Array(SENTIMENT_LANGUAGES.length + 5).fill('---'))}\n`);
const seven = set.filter((r) => isSentimentLanguage(r.language)).map((r) => ({ ...r, plain: plainText(r.text) }));
for (const [name, analyse] of Object.entries(sentimentCandidates())) {
  const per = new Map<string, { ok: number; n: number; pn: number }>();
  let ok = 0;
  let pn = 0;
  for (const r of seven) {
    const label = await analyse(r.plain, r.language);
    const p = per.get(r.language) ?? { ok: 0, n: 0, pn: 0 };
    p.n++;
    if (label === r.label) {
      p.ok++;
      ok++;
    }
    if ((label === 'POSITIVE' && r.label === 'NEGATIVE') || (label === 'NEGATIVE' && r.label === 'POSITIVE')) {
      p.pn++;
      pn++;
    }
    per.set(r.language, p);
  }
  const started = performance.now();
  for (const r of seven) await analyse(r.plain, r.language);
  const worst = Math.max(...[...per.values()].map((p) => p.pn / p.n));
  process.stdout.write(
    `${row([
      name,
      ...SENTIMENT_LANGUAGES.map((l) => pct(per.get(l)?.ok ?? 0, per.get(l)?.n ?? 0)),
      pct(ok, seven.length),
      pct(pn, seven.length),
      `${(worst * 100).toFixed(1)}%`,
      rate(seven.length, performance.now() - started),
    ])}\n`,
  );
}
