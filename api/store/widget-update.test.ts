/**
 * Two overlapping `widgets update` calls must not lose a change, on both
 * stores: the embedded one, and FerretDB 1.24 (which does not isolate
 * concurrent updates of one document, so the MongoDB store locks it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../test/global-setup.ts';
import { EmbeddedStore } from './embedded/store.ts';
import { MongoStore } from './mongo/store.ts';
import type { Store, Widget, WidgetPatch } from './types.ts';

function ferretBinary(): string | null {
  if (process.env.FERRETDB_BIN) return process.env.FERRETDB_BIN;
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).stdout?.trim();
  const path = gopath ? join(gopath, 'bin', 'ferretdb') : '';
  return path && existsSync(path) ? path : null;
}

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

  describe('on FerretDB', () => {
    const bin = ferretBinary();
    // Loud, never silent: without the binary this test fails and says how to get it.
    let ferret: ChildProcess | null = null;
    let dir = '';
    let url = '';
    beforeAll(async () => {
      if (!bin) return;
      dir = mkdtempSync(join(tmpdir(), 'widget-update-ferret-'));
      const [port] = await freePorts(1);
      ferret = spawn(bin, ['--handler=sqlite', `--sqlite-url=file:${dir}/`, `--listen-addr=127.0.0.1:${port}`, `--state-dir=${dir}`, '--telemetry=disable', '--debug-addr=-', '--log-level=error'], { stdio: 'ignore' });
      url = `mongodb://127.0.0.1:${port}/`;
    }, 30_000);
    afterAll(() => {
      ferret?.kill('SIGTERM');
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('keeps every change on the MongoDB store', async () => {
      if (!bin) throw new Error('FerretDB is missing: build it with .ci/run (recipe in TOOLCHAIN.md) or set FERRETDB_BIN');
      let store: MongoStore | null = null;
      for (let i = 0; i < 100 && !store; i++) {
        store = await MongoStore.connect(url, `widget_update_${Date.now()}`).catch(async () => {
          await new Promise((r) => setTimeout(r, 100));
          return null;
        });
      }
      if (!store) throw new Error(`FerretDB did not answer at ${url}`);
      try {
        await overlappingUpdates(store);
      } finally {
        await store.close();
      }
    }, 60_000);
  });
});
