import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOADER_BUDGET, PAGE_BUDGET, TOTAL_BUDGET, buildWidget, type BuildResult } from './build.ts';

describe('buildWidget', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'widget-build-'));
  let result: BuildResult;
  const lines: string[] = [];
  beforeAll(async () => {
    result = await buildWidget({ outDir, log: (line) => lines.push(line) });
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('writes the loader, the hashed bundle and the manifest', () => {
    expect(result.manifest.loader).toBe('loader.js');
    expect(result.manifest.bundle).toMatch(/^widget-[A-Z0-9]+\.js$/);
    expect(JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8'))).toEqual(result.manifest);
    const catalogs = Object.values(result.manifest.catalogs).flatMap((name) => [name, `${name}.br`, `${name}.gz`]);
    expect(Object.keys(result.manifest.catalogs).length).toBeGreaterThanOrEqual(19);
    expect(readdirSync(outDir).sort()).toEqual(
      ['loader.js', 'loader.js.br', 'loader.js.gz', 'manifest.json', result.manifest.bundle, `${result.manifest.bundle}.br`, `${result.manifest.bundle}.gz`, ...catalogs].sort(),
    );
    // The loader knows every catalog's name; the bundle holds none of them.
    const loader = readFileSync(join(outDir, 'loader.js'), 'utf8');
    const bundle = readFileSync(join(outDir, result.manifest.bundle), 'utf8');
    for (const [lang, name] of Object.entries(result.manifest.catalogs)) {
      expect(loader).toContain(name.replace(`-${lang}.json`, '-*.json'));
      expect(JSON.parse(readFileSync(join(outDir, name), 'utf8')).heading).toBeTruthy();
    }
    expect(bundle).not.toContain('Kundenbewertungen');
  });

  it('compiles the bundle name into the loader, and the precompressed files match', () => {
    const loader = readFileSync(join(outDir, 'loader.js'));
    expect(loader.toString()).toContain(JSON.stringify(result.manifest.bundle));
    expect(loader.toString()).not.toContain('__RV_BUNDLE__');
    for (const name of [result.manifest.loader, result.manifest.bundle]) {
      const raw = readFileSync(join(outDir, name));
      expect(gunzipSync(readFileSync(join(outDir, `${name}.gz`))).equals(raw)).toBe(true);
      expect(brotliDecompressSync(readFileSync(join(outDir, `${name}.br`))).equals(raw)).toBe(true);
      expect(result.manifest.sizes[name]!.gzip).toBe(readFileSync(join(outDir, `${name}.gz`)).length);
    }
  });

  it('stays within the budgets, and prints them', () => {
    const sizes = result.manifest.sizes;
    expect(sizes['loader.js']!.gzip).toBeLessThanOrEqual(LOADER_BUDGET);
    expect(sizes['loader.js']!.gzip + sizes[result.manifest.bundle]!.gzip).toBeLessThanOrEqual(TOTAL_BUDGET);
    expect(result.ok).toBe(true);
    expect(lines.join('\n')).toMatch(/ok {3}loader: \d+ B gzip of 1536 B/);
    expect(lines.join('\n')).toMatch(new RegExp(`ok {3}loader \\+ bundle: \\d+ B gzip of ${TOTAL_BUDGET} B`));
    expect(lines.join('\n')).toMatch(new RegExp(`ok {3}loader \\+ bundle \\+ catalog: \\d+ B gzip of ${PAGE_BUDGET} B`));
  });

  it('outputs self-contained scripts: no imports, no stray globals, no eval', () => {
    for (const name of [result.manifest.loader, result.manifest.bundle]) {
      const js = readFileSync(join(outDir, name), 'utf8');
      expect(js).toMatch(/^("use strict";)?\(\(\)=>\{[^]*\}\)\(\);\n?$/);
      expect(js).not.toMatch(/\bimport\s*\(|\bimport\s+[{*\w]|\brequire\(/);
      expect(js).not.toMatch(/\beval\(|new Function\(|document\.write|localStorage|sessionStorage|document\.cookie/);
    }
  });

  it('a second build removes the previous hashed bundle only when the name changes', async () => {
    const again = await buildWidget({ outDir });
    expect(again.manifest.bundle).toBe(result.manifest.bundle);
    expect(readdirSync(outDir).filter((n) => n.startsWith('widget-'))).toHaveLength(3);
    expect(readdirSync(outDir).filter((n) => n.startsWith('i18n-'))).toHaveLength(3 * Object.keys(again.manifest.catalogs).length);
  });
});
