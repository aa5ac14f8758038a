/**
 * The enrichment pool's messages (pool.ts ↔ enrich-worker.ts).
 *
 * What crosses between threads is packed into a few arrays rather than an
 * object per review: the structured clone of 500 small objects (their keys
 * written and read again for each) cost the main thread more than the rest of
 * the exchange. `given` is null when no review of the chunk brings an AI field
 * (the usual import), else one entry per review (null = nothing given).
 */
import type { SentimentLabel } from '../store/types.ts';
import { intern } from '../intern.ts';
import type { AiFields, Enrichable } from './enrich.ts';

export interface PackedItems {
  contents: string[];
  given: (Omit<Enrichable, 'content'> | null)[] | null;
}

/** Results column by column: sentiment NaN = null; label 0 = null, else LABELS[label - 1]; review i's themes are the next themeCounts[i] of `themes`. */
export interface PackedFields {
  languages: string[];
  sentiments: Float64Array<ArrayBuffer>;
  labels: Uint8Array<ArrayBuffer>;
  summaries: (string | null)[];
  themeCounts: Uint8Array<ArrayBuffer>;
  themes: string[];
}

const LABELS: readonly SentimentLabel[] = ['POSITIVE', 'NEUTRAL', 'NEGATIVE'];

const givesSomething = (item: Enrichable): boolean =>
  item.language !== null || item.sentiment !== null || item.sentimentLabel !== null || item.aiSummary !== null || item.aiThemes.length > 0;

export function packItems(items: readonly Enrichable[]): PackedItems {
  const contents = items.map((item) => item.content);
  if (!items.some(givesSomething)) return { contents, given: null };
  return {
    contents,
    given: items.map((item) =>
      givesSomething(item) ? { language: item.language, sentiment: item.sentiment, sentimentLabel: item.sentimentLabel, aiSummary: item.aiSummary, aiThemes: item.aiThemes } : null,
    ),
  };
}

export function unpackItems({ contents, given }: PackedItems): Enrichable[] {
  return contents.map((content, i) => {
    const g = given?.[i];
    return g ? { content, ...g } : { content, language: null, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] };
  });
}

export function packFields(fields: readonly AiFields[]): PackedFields {
  const n = fields.length;
  const packed: PackedFields = { languages: new Array<string>(n), sentiments: new Float64Array(n), labels: new Uint8Array(n), summaries: new Array<string | null>(n), themeCounts: new Uint8Array(n), themes: [] };
  for (let i = 0; i < n; i++) {
    const f = fields[i]!;
    packed.languages[i] = f.language;
    packed.sentiments[i] = f.sentiment ?? Number.NaN;
    packed.labels[i] = f.sentimentLabel === null ? 0 : LABELS.indexOf(f.sentimentLabel) + 1;
    packed.summaries[i] = f.aiSummary;
    // Counts fit a byte: computed themes are at most 4, given ones at most 20 (validate-record.ts).
    packed.themeCounts[i] = f.aiThemes.length;
    for (const theme of f.aiThemes) packed.themes.push(theme);
  }
  return packed;
}

export function unpackFields(packed: PackedFields): AiFields[] {
  const out: AiFields[] = new Array(packed.languages.length);
  let t = 0;
  for (let i = 0; i < out.length; i++) {
    const sentiment = packed.sentiments[i]!;
    const label = packed.labels[i]!;
    const count = packed.themeCounts[i]!;
    const themes: string[] = new Array(count);
    for (let k = 0; k < count; k++) themes[k] = intern(packed.themes[t + k]!);
    out[i] = {
      language: intern(packed.languages[i]!),
      sentiment: Number.isNaN(sentiment) ? null : sentiment,
      sentimentLabel: label === 0 ? null : LABELS[label - 1]!,
      aiSummary: packed.summaries[i]!,
      aiThemes: themes,
    };
    t += count;
  }
  return out;
}

