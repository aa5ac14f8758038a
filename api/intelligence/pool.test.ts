/**
 * The enrichment pool as behaviour: results identical to the main thread's
 * and in input order across several workers and chunks; a worker that stops
 * fails its chunks (and the import using them, writing nothing of them) and
 * is replaced for the next chunk; ENRICH_WORKERS is validated by name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { importReviews } from '../admin/import.ts';
import { createOrganization } from '../admin/orgs.ts';
import { createLogger } from '../logger.ts';
import { EmbeddedStore } from '../store/embedded/store.ts';
import { enrich, type Enrichable } from './enrich.ts';
import { EnrichPool, enrichWorkersFromEnv } from './pool.ts';

const blank = { language: null, sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] };
const PHRASES = [
  'The staff were friendly',
  'la comida llegó fría',
  'la livraison était rapide',
  'das Zimmer war sauber',
  'non vale il prezzo',
  'o suporte nunca respondeu',
  'de kamer was schoon',
  'とても良いお店でした',
  'ok',
  '',
];
const items: Enrichable[] = Array.from({ length: 1200 }, (_, i) => ({ content: `${PHRASES[i % PHRASES.length]} ${PHRASES[(i * 7) % PHRASES.length]}. #${i}`, ...blank }));

const pool = new EnrichPool(2);
afterAll(() => pool.close());

describe('EnrichPool', () => {
  it('answers what enrich() answers on the main thread, in input order, across workers and chunks', async () => {
    const chunks = [items.slice(0, 500), items.slice(500, 900), items.slice(900)];
    const answers = await Promise.all(chunks.map((c) => pool.run(c, 'de')));
    expect(answers.flat()).toEqual(items.map((item) => enrich(item, 'de')));
    expect(pool.workers()).toHaveLength(2);
  }, 60_000);

  it('keeps the AI fields a review gives, through the packed messages', async () => {
    const given: Enrichable[] = [
      { content: 'Great food.', language: 'fr', sentiment: null, sentimentLabel: null, aiSummary: null, aiThemes: [] },
      { content: 'Terrible service.', language: null, sentiment: 0.25, sentimentLabel: null, aiSummary: 'Given summary', aiThemes: ['service', 'a|b'] },
      { content: 'Das Zimmer war sauber.', ...blank },
      { content: '', language: 'ja', sentiment: 0.5, sentimentLabel: 'NEUTRAL', aiSummary: 'x', aiThemes: ['one'] },
    ];
    expect(await pool.run(given, 'en')).toEqual(given.map((item) => enrich(item, 'en')));
    expect(await pool.run(given, 'en', true)).toEqual(given.map((item) => enrich(item, 'en', true)));
  }, 60_000);

  it('stores the same fields whether the workers or the main thread analysed a chunk', async () => {
    const lines = Array.from({ length: 6000 }, (_, i) =>
      JSON.stringify({ platform: 'GOOGLE', externalId: `s${i}`, authorName: 'A', rating: 1 + (i % 5), content: items[i % items.length]!.content, date: '2026-01-01T00:00:00.000Z', ...(i % 9 === 0 && { sentiment: 0.7 }) }),
    );
    const stored = async (withPool: EnrichPool | null): Promise<unknown[]> => {
      const dir = mkdtempSync(join(tmpdir(), 'rp-pool-same-'));
      try {
        const store = await EmbeddedStore.open(dir);
        const org = await createOrganization(store, { name: 'Same', plan: 'growth', rateLimit: null });
        // Twelve chunks: more than one worker holds at once, so the main thread analyses some of them.
        const summary = await importReviews(store, org, Readable.from([Buffer.from(lines.join('\n'))]), 'ndjson', createLogger('silent'), withPool);
        expect(summary.imported).toBe(lines.length);
        const page = await store.reviews.list({ orgId: org.id, limit: 100_000, offset: 0 });
        await store.close();
        return page.items.map(({ externalId, language, sentiment, sentimentLabel, aiSummary, aiThemes }) => ({ externalId, language, sentiment, sentimentLabel, aiSummary, aiThemes })).sort((a, b) => a.externalId.localeCompare(b.externalId));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const one = new EnrichPool(1);
    try {
      expect(await stored(one)).toEqual(await stored(null));
    } finally {
      await one.close();
    }
  }, 120_000);

  it('fails the chunks of a worker that stops, then replaces it', async () => {
    const one = new EnrichPool(1);
    try {
      await one.warmUp();
      const first = one.workers()[0]!;
      const pending = one.run(items, 'en');
      await first.terminate();
      await expect(pending).rejects.toThrow(/review enrichment worker stopped/);
      // The next chunk goes to a fresh worker.
      expect(await one.run(items.slice(0, 20), 'en')).toEqual(items.slice(0, 20).map((item) => enrich(item, 'en')));
      expect(one.workers()[0]).not.toBe(first);
    } finally {
      await one.close();
    }
  }, 60_000);

  it('fails an import whose worker stops, with nothing of the failed chunk written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rp-pool-'));
    const own = new EnrichPool(1);
    try {
      const store = await EmbeddedStore.open(dir);
      const org = await createOrganization(store, { name: 'Pool', plan: 'growth', rateLimit: null });
      const lines = Array.from({ length: 800 }, (_, i) => JSON.stringify({ platform: 'GOOGLE', externalId: `p${i}`, authorName: 'A', rating: 5, content: 'Great food and friendly staff.', date: '2026-01-01T00:00:00.000Z' }));
      let stopped = false;
      // The first 600 records stream in (one chunk of 500 goes to the worker); the worker is stopped; then the rest.
      async function* ndjson(): AsyncGenerator<Buffer> {
        yield Buffer.from(`${lines.slice(0, 600).join('\n')}\n`);
        while (own.workers().length === 0) await new Promise((r) => setTimeout(r, 5));
        await own.workers()[0]!.terminate();
        stopped = true;
        yield Buffer.from(`${lines.slice(600).join('\n')}\n`);
      }
      const source = Readable.from(ndjson());
      await expect(importReviews(store, org, source, 'ndjson', createLogger('silent'), own)).rejects.toThrow(/review enrichment worker stopped/);
      expect(stopped).toBe(true);
      expect(await store.reviews.count(org.id)).toBe(0);
      await store.close();
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('reads ENRICH_WORKERS as an integer from 0 to 8, naming the variable otherwise', () => {
    expect(enrichWorkersFromEnv({ ENRICH_WORKERS: '0' })).toBe(0);
    expect(enrichWorkersFromEnv({ ENRICH_WORKERS: '3' })).toBe(3);
    expect(enrichWorkersFromEnv({})).toBeGreaterThanOrEqual(0);
    expect(enrichWorkersFromEnv({})).toBeLessThanOrEqual(2);
    for (const bad of ['-1', '9', 'two', '1.5']) expect(() => enrichWorkersFromEnv({ ENRICH_WORKERS: bad })).toThrow(/ENRICH_WORKERS/);
  });
});
