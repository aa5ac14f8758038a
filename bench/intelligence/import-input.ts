/**
 * The import benchmark's input: NDJSON reviews in the seven lexicon languages,
 * without AI fields (so every field is computed), or with them (`given`: the
 * baseline where nothing is computed). Generated once per size into the
 * system's temporary folder and reused, so that the benchmark times the
 * import, not the making of its input (a million reviews are ~260 MB).
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bump when the generated text changes, so a stale cached file is never reused. */
const VERSION = 1;

const GIVEN_FIELDS = { language: 'en', sentiment: 0.5, sentimentLabel: 'NEUTRAL', aiSummary: 'Given', aiThemes: ['service'] };

/** Sentences per language, combined at random: most generated texts are unique, as real ones are. */
const PARTS: Record<string, string[]> = {
  en: ['The staff were friendly', 'the food was cold', 'delivery was fast', 'not worth the price', 'great value for money', 'the room was clean', 'support never answered', 'I would recommend it'],
  es: ['El personal fue amable', 'la comida llegó fría', 'el envío fue rápido', 'no vale lo que cuesta', 'muy buena relación calidad-precio', 'la habitación estaba limpia', 'el soporte nunca respondió', 'lo recomiendo'],
  fr: ['Le personnel était aimable', 'le plat était froid', 'la livraison était rapide', 'pas donné pour ce que c’est', 'très bon rapport qualité-prix', 'la chambre était propre', 'le support n’a jamais répondu', 'je recommande'],
  de: ['Das Personal war freundlich', 'das Essen war kalt', 'die Lieferung war schnell', 'den Preis nicht wert', 'gutes Preis-Leistungs-Verhältnis', 'das Zimmer war sauber', 'der Support hat nie geantwortet', 'ich kann es empfehlen'],
  it: ['Il personale era gentile', 'il cibo era freddo', 'la consegna è stata veloce', 'non vale il prezzo', 'ottimo rapporto qualità-prezzo', 'la camera era pulita', "l'assistenza non ha mai risposto", 'lo consiglio'],
  pt: ['Os funcionários foram simpáticos', 'a comida estava fria', 'a entrega foi rápida', 'não vale o preço', 'ótima relação qualidade-preço', 'o quarto estava limpo', 'o suporte nunca respondeu', 'recomendo'],
  nl: ['Het personeel was vriendelijk', 'het eten was koud', 'de levering was snel', 'de prijs niet waard', 'goede prijs-kwaliteitverhouding', 'de kamer was schoon', 'de support heeft nooit geantwoord', 'ik raad het aan'],
};
const LANGS = Object.keys(PARTS);

function* lines(n: number, given: boolean): Generator<string> {
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let i = 0; i < n; i++) {
    const parts = PARTS[LANGS[i % LANGS.length]!]!;
    const sentences = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => {
      const a = parts[Math.floor(rnd() * parts.length)]!;
      const b = parts[Math.floor(rnd() * parts.length)]!;
      return `${a[0]!.toUpperCase()}${a.slice(1)}, ${b}.`;
    });
    const record = { platform: 'GOOGLE', externalId: `r${i}`, authorName: `Reviewer ${i}`, rating: 1 + (i % 5), content: sentences.join(' '), date: new Date(1_700_000_000_000 + i * 60_000).toISOString() };
    yield `${JSON.stringify(given ? { ...record, ...GIVEN_FIELDS } : record)}\n`;
  }
}

/** The path of the input file for `n` reviews, written now unless a previous run left it. */
export async function benchInput(n: number, given: boolean): Promise<string> {
  const dir = join(tmpdir(), 'rp-import-bench-input');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `v${VERSION}-${given ? 'given' : 'plain'}-${n}.ndjson`);
  if (existsSync(path)) return path;
  const aside = `${path}.${process.pid}.tmp`;
  const out = createWriteStream(aside);
  let text = '';
  for (const line of lines(n, given)) {
    text += line;
    if (text.length < 1 << 20) continue;
    const flowing = out.write(text);
    text = '';
    if (!flowing) await once(out, 'drain');
  }
  out.end(text);
  await once(out, 'finish');
  renameSync(aside, path);
  return path;
}
