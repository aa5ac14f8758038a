/**
 * Two overlapping `widgets update` calls must not lose a change, on both
 * stores: the embedded one, and FerretDB 1.24 (which does not isolate
 * concurrent updates of one document, so the MongoDB store locks it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeOn, mongoTargets, openMongoStore } from '../test/mongo-suites.ts';
import { EmbeddedStore } from './embedded/store.ts';
import type { Store, Widget, WidgetPatch } from './types.ts';

const widget = (): Widget => {
  const now = new Date().toISOString();
  return {
    id: `wdg_${Math.random().toString(36).slice(2, 14)}`,
    orgId: 'org_overlap',
    name: 'Home',
    layout: 'grid',
    subject: { type: 'Product', name: 'Shoes', url: null, image: null, brand: null },
    options: { theme: 'dark', accentColor: '#112233', maxReviews: 6, minRating: 4, platforms: ['GOOGLE'], hideEmpty: true, showDates: false, locale: 'fr-FR', jsonLd: 'on' },
    createdAt: now,
    updatedAt: now,
  };
};

async function overlappingUpdates(store: Store): Promise<void> {
  const w = widget();
  await store.widgets.create(w);
  const patches: WidgetPatch[] = [
    { options: { theme: 'light' } },
    { options: { showDates: true } },
    { options: { maxReviews: 9 } },
    { options: { accentColor: '#abcdef' } },
    { subject: { name: 'Boots' } },
    { subject: { brand: 'Acme' } },
    { name: 'Landing' },
    { layout: 'list' },
  ];
  const results = await Promise.all(patches.map((p) => store.widgets.update(w.id, p)));
  expect(results.every((r) => r !== null)).toBe(true);
  expect(await store.widgets.get(w.id)).toMatchObject({
    name: 'Landing',
    layout: 'list',
    subject: { ...w.subject, name: 'Boots', brand: 'Acme' },
    options: { ...w.options, theme: 'light', showDates: true, maxReviews: 9, accentColor: '#abcdef' },
  });
  expect(await store.widgets.update('wdg_missing', { name: 'x' })).toBeNull();
}

describe('overlapping widget updates', () => {
  it('keep every change on the embedded store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'widget-update-'));
    const store = await EmbeddedStore.open(dir);
    try {
      await overlappingUpdates(store);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const target of mongoTargets()) {
    describeOn(target, 'on the MongoDB store', () => {
      it('keep every change', async () => {
        const store = await openMongoStore(target, 'widget_update');
        try {
          await overlappingUpdates(store);
        } finally {
          await store.dropDatabase();
          await store.close();
        }
      }, 60_000);
    });
  }
});
