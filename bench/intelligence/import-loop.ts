/**
 * `npm run bench:intelligence:import [-- --reviews 200000]`: the import path
 * with enrichment on, in process, on the embedded store in a temporary
 * DATA_DIR: reviews/s, and how long the event loop was ever kept waiting
 * (perf_hooks.monitorEventLoopDelay, 1 ms resolution, plus a 5 ms timer that
 * records the longest gap between its ticks), and CPU time per review
 * (process.cpuUsage: less sensitive than reviews/s to other processes on the
 * machine). The reviews are generated in
 * the seven lexicon languages, without AI fields, so every field is computed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { importReviews } from '../../api/admin/import.ts';
import { createOrganization } from '../../api/admin/orgs.ts';
import { warmUp } from '../../api/intelligence/enrich.ts';
import { sharedEnrichPool } from '../../api/intelligence/pool.ts';
import { createLogger } from '../../api/logger.ts';
import { EmbeddedStore } from '../../api/store/embedded/store.ts';
import { flag } from '../support.ts';

const REVIEWS = flag('reviews', 200_000);
/** `--given`: every record brings its AI fields, so nothing is computed (the baseline). */
const GIVEN = process.argv.includes('--given');
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

function reviewStream(n: number): Readable {
  let i = 0;
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  return new Readable({
    read() {
      const lines: string[] = [];
      for (let k = 0; k < 1000 && i < n; k++, i++) {
        const parts = PARTS[LANGS[i % LANGS.length]!]!;
        const sentences = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => {
          const a = parts[Math.floor(rnd() * parts.length)]!;
          const b = parts[Math.floor(rnd() * parts.length)]!;
          return `${a[0]!.toUpperCase()}${a.slice(1)}, ${b}.`;
        });
        lines.push(JSON.stringify({ platform: 'GOOGLE', externalId: `r${i}`, authorName: `Reviewer ${i}`, rating: 1 + (i % 5), content: sentences.join(' '), date: new Date(1_700_000_000_000 + i * 60_000).toISOString(), ...(GIVEN && GIVEN_FIELDS) }));
      }
      this.push(lines.length ? `${lines.join('\n')}\n` : null);
    },
  });
}

const dir = mkdtempSync(join(tmpdir(), 'rp-import-bench-'));
try {
  const store = await EmbeddedStore.open(dir);
  const org = await createOrganization(store, { name: 'Bench', plan: 'growth', rateLimit: null });
  // As the service does at start-up.
  warmUp();
  const pool = sharedEnrichPool();
  await pool?.warmUp();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let longestGap = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 5);
  histogram.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const summary = await importReviews(store, org, reviewStream(REVIEWS), 'ndjson', createLogger('silent'));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  histogram.disable();
  clearInterval(ticker);
  const sample = (await store.reviews.list({ orgId: org.id, limit: 1, offset: 0 })).items[0];
  await store.close();
  await pool?.close();
  process.stdout.write(
    [
      `Enrichment workers: ${pool?.size ?? 0} (ENRICH_WORKERS; 0 = on the main thread)`,
      `Imported ${summary.imported.toLocaleString('en')} reviews ${GIVEN ? 'with their AI fields given (nothing computed)' : 'with enrichment'} in ${seconds.toFixed(1)} s = ${Math.round(summary.imported / seconds).toLocaleString('en')} reviews/s`,
      `CPU time of this process: ${((used.user + used.system) / summary.imported).toFixed(1)} µs per review (user + system; worker threads included)`,
      `Event loop delay during the import: max ${(histogram.max / 1e6).toFixed(1)} ms, p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms; longest gap between 5 ms timer ticks ${longestGap.toFixed(1)} ms`,
      `A stored review: ${JSON.stringify({ content: sample?.content, language: sample?.language, sentiment: sample?.sentiment, sentimentLabel: sample?.sentimentLabel, aiThemes: sample?.aiThemes, aiSummary: sample?.aiSummary })}`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
